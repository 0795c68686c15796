"""Chinese and English: labels, fonts, and screenshots of every page in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter

from ui import i18n
from ui.main import main
from ui.window import PAGE_NAMES


def inks(font: QFont, text: str) -> bool:
    """Whether drawing `text` in `font` puts ink on every character (none drawn blank)."""
    for ch in text:
        image = QImage(60, 40, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.white)
        painter = QPainter(image)
        painter.setFont(font)
        painter.drawText(5, 30, ch)
        painter.end()
        if not any(
            QColor(image.pixel(x, y)).lightness() < 128 for x in range(60) for y in range(40)
        ):
            return False
    return True


def test_switching_to_chinese_shows_chinese_labels(session, qtbot, open_page) -> None:
    open_page("memories")
    with qtbot.waitSignal(session.window.language_changed):
        session.window.language_actions["zh"].trigger()
    window = session.window
    assert [window.sidebar.item(i).text() for i in range(3)] == ["仪表盘", "记忆", "冲突"]
    page = window.current_page()
    assert page is window.pages["memories"]  # the same page, rebuilt
    if not page.has_loaded:
        qtbot.waitSignal(page.loaded, timeout=10000).wait()
    assert page.never_box.text() == "从未被召回"
    headers = [page.model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)]
    assert headers == ["编号", "类别", "内容"]
    assert window.menuBar().actions()[0].text() == "文件(&F)"
    # The application font draws Chinese (itself, or through Qt's per-glyph fallback).
    assert inks(window.font(), "记忆") and inks(window.font(), "℃")
    with qtbot.waitSignal(window.language_changed):
        window.language_actions["en"].trigger()
    assert window.sidebar.item(0).text() == "Dashboard"


def test_chinese_text_draws_its_symbols(qapp, english) -> None:
    """℃ in a memory ("京都白天约24℃") was drawn blank in Chinese: the CJK family chosen
    there (WenQuanYi Micro Hei, what CI installs) maps it to an empty glyph."""
    from ui import theme

    try:
        font = theme.apply_fonts(qapp, "zh")
        assert inks(font, "℃") and inks(font, "京都")
        assert theme.cjk_family() is not None  # Chinese itself still has its family
    finally:
        theme.apply_fonts(qapp, "en")


def test_every_translation_is_compiled(qapp, english) -> None:
    i18n.install_language("zh")
    try:
        missing = [en for en, zh in i18n.ZH.items() if i18n.tr(en) != zh]
    finally:
        i18n.install_language("en")
    assert missing == [], "run `python -m ui.i18n` to rebuild the .qm"


def test_every_ui_string_has_a_chinese_translation() -> None:
    import re

    # tr("…"), also inside an f-string as tr('…')
    pattern = re.compile(r"""\btr\(\s*((?:"(?:[^"\\]|\\.)*"\s*|'(?:[^'\\]|\\.)*'\s*)+)\)""")
    missing = set()
    for path in Path(i18n.__file__).parent.rglob("*.py"):
        if path.name in ("i18n.py", "zh.py"):  # their docstrings show tr("…") as an example
            continue
        for match in pattern.finditer(path.read_text("utf-8")):
            parts = re.findall(r""""((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'""", match.group(1))
            text = "".join(a or b for a, b in parts)
            if text not in i18n.ZH:
                missing.add(text)
    assert missing == set()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_screenshot_of_every_page(session, qtbot, tmp_path: Path, lang: str) -> None:
    if lang != "en":
        session.window.set_language(lang)
    for name in PAGE_NAMES:
        session.window.open_page(name, {})
        out = tmp_path / f"{name}-{lang}.png"
        assert session.screenshot(out, 1100, 720)
        image = QImage(str(out))
        assert not image.isNull()
        assert (image.width(), image.height()) == (1100, 720)
        # not a blank canvas: the page drew text and widgets in more than a few colours
        colours = {image.pixel(x, y) for x in range(0, 1100, 37) for y in range(0, 720, 29)}
        assert len(colours) > 5


def test_command_line_screenshot(demo_home: Path, tmp_path: Path, qapp, english) -> None:
    out = tmp_path / "memories-zh.png"
    code = main(
        [
            "--home",
            str(demo_home),
            "--page",
            "memories",
            "--lang",
            "zh",
            "--screenshot",
            str(out),
            "--size",
            "1000x700",
        ]
    )
    assert code == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1000, 700)
    i18n.install_language("en")


def test_command_line_refuses_a_missing_home(tmp_path: Path, qapp, english, capsys) -> None:
    code = main(["--home", str(tmp_path / "nowhere"), "--screenshot", str(tmp_path / "x.png")])
    assert code == 2
    assert "nowhere" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_version(capsys) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("tapemind-desktop 0.1.0")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_command_line_screenshot_of_the_review_dialog(
    demo_home: Path, tmp_path: Path, qapp, english, lang: str
) -> None:
    out = tmp_path / f"review-{lang}.png"
    args = ["--home", str(demo_home), "--review", "--lang", lang, "--size", "1000x640"]
    assert main([*args, "--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1000, 640)  # the dialog, at the size asked
    colours = {image.pixel(x, y) for x in range(0, 1000, 31) for y in range(0, 640, 23)}
    assert len(colours) > 5
    i18n.install_language("en")


def test_review_screenshot_needs_an_open_conflict(tmp_path: Path, qapp, english) -> None:
    from app import Engine

    Engine.open(tmp_path / "empty", create=True).close()
    out = tmp_path / "review.png"
    assert main(["--home", str(tmp_path / "empty"), "--review", "--screenshot", str(out)]) == 1
    assert not out.exists()


def test_the_chinese_window_title_names_the_app_once(demo_home: Path, qtbot, english) -> None:
    """Qt appends the application's display name to a window title that differs from it:
    "Tapemind 记忆磁带 — Tapemind" said the name twice."""
    from PySide6.QtWidgets import QApplication

    from app import Engine
    from ui.session import Session

    i18n.install_language("zh")
    s = Session(Engine.open(demo_home), page="dashboard", tray=False)
    try:
        title, shown_as = s.window.windowTitle(), QApplication.applicationDisplayName()
        assert title == "Tapemind 记忆磁带"
        seen = title if shown_as == title else f"{title} — {shown_as}"
        assert seen.count("Tapemind") == 1
    finally:
        s.close()
        i18n.install_language("en")


def test_command_line_screenshot_of_the_insight_review(
    demo_home: Path, tmp_path: Path, qapp, english
) -> None:
    from app import Engine

    with Engine.open(demo_home) as engine:
        engine.insights("claude-code")  # the demo's memories, proposed as skills
    out = tmp_path / "insight-review.png"
    args = ["--home", str(demo_home), "--page", "insights", "--review", "--size", "1024x640"]
    assert main([*args, "--lang", "en", "--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1024, 640)  # the dialog, not the window
