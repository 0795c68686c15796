"""The tray icon counts what waits for the owner, and keeps the app alive when the window closes.

Qt offscreen has no system tray; here the window is told a tray is available
(the only stand-in), everything else is real: engine, events, worker threads,
the QSystemTrayIcon and its menu. test_tray_dbus.py checks a real tray host.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from app import Engine
from app.demo.seed import seed


@pytest.fixture
def tray_session(tmp_path: Path, qtbot, english, monkeypatch) -> Iterator[object]:  # type: ignore[no-untyped-def]
    from ui.session import Session
    from ui.tray import Tray

    monkeypatch.setattr(Tray, "available", staticmethod(lambda: True))
    seed(tmp_path / "home")  # with its secrets: the vault key goes to the test keyring
    engine = Engine.open(tmp_path / "home")
    s = Session(engine, page="dashboard", tray=True, prompts=False)
    with qtbot.waitSignal(s.window.pages["dashboard"].loaded, timeout=10000):
        s.window.show()
    app = QApplication.instance()
    try:
        yield s
    finally:
        s.close()
        app.setQuitOnLastWindowClosed(True)


def _menu(tray) -> list[str]:  # type: ignore[no-untyped-def]
    return [a.text() for a in tray.contextMenu().actions() if not a.isSeparator()]


def _counts(engine: Engine) -> tuple[int, int]:
    return len(engine.access_requests(status="pending")), len(engine.conflicts(None))


def test_tooltip_and_menu_count_requests_and_conflicts(tray_session, qtbot) -> None:
    s = tray_session
    tray = s.window.tray
    assert tray is not None and tray.isVisible()
    requests, conflicts = _counts(s.engine)
    assert requests >= 1 and conflicts == 3
    qtbot.waitUntil(lambda: tray.counts == (requests, conflicts), timeout=10000)
    assert _menu(tray) == [
        "Open Tapemind",
        f"Pending requests: {requests}",
        f"Open conflicts: {conflicts}",
        "Quit",
    ]
    assert tray.toolTip().splitlines()[1:] == [
        f"Pending requests: {requests}",
        f"Open conflicts: {conflicts}",
    ]
    # settled elsewhere (the CLI, another window): the count follows the engine's event
    s.engine.resolve_conflict(s.engine.conflicts(None)[0].id, keep="both")
    qtbot.waitUntil(lambda: tray.counts == (requests, conflicts - 1), timeout=10000)
    assert f"Open conflicts: {conflicts - 1}" in tray.toolTip()


def test_closing_the_window_keeps_the_app_and_the_tray_counting(tray_session, qtbot) -> None:
    s = tray_session
    tray = s.window.tray
    app = QApplication.instance()
    requests, conflicts = _counts(s.engine)
    qtbot.waitUntil(lambda: tray.counts == (requests, conflicts), timeout=10000)
    quits: list[bool] = []
    app.aboutToQuit.connect(lambda: quits.append(True))
    assert s.window.close() is False  # the close is turned into a hide
    assert not s.window.isVisible() and tray.isVisible()
    assert not app.quitOnLastWindowClosed()
    # An agent asks for a secret while the window is closed: the tray shows it.
    pending = s.engine.access_requests(status="pending")[0]
    result = s.engine.request_secret(pending.agent, pending.secret, "deploy again", session="s2")
    assert result.status == "pending"
    qtbot.waitUntil(lambda: tray.counts == (requests + 1, conflicts), timeout=10000)
    assert f"Pending requests: {requests + 1}" in _menu(tray)
    qtbot.wait(50)
    assert quits == []  # still running
    # The tray's conflicts entry brings the window back with the review open.
    conflicts_page = s.window.pages["conflicts"]
    with qtbot.waitSignal(conflicts_page.loaded, timeout=10000):
        tray.conflicts_action.trigger()
    assert s.window.isVisible() and s.window.current_page() is conflicts_page
    assert conflicts_page.review is not None and conflicts_page.review.isVisible()


def test_without_a_tray_the_app_works_and_closing_quits(demo_home: Path, qtbot, english) -> None:
    from ui.session import Session
    from ui.tray import Tray

    assert not Tray.available()  # Qt offscreen has no system tray
    s = Session(Engine.open(demo_home), page="dashboard", tray=True, prompts=False)
    try:
        dashboard = s.window.pages["dashboard"]
        with qtbot.waitSignal(dashboard.loaded, timeout=10000):
            s.window.show()
        assert s.window.tray is None
        assert dashboard.cards["conflicts"].value.text() == "3"
        assert QApplication.instance().quitOnLastWindowClosed()
        assert s.window.close() is True  # a real close: the app would quit
    finally:
        s.close()
