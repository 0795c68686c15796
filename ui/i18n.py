"""English and Chinese through Qt's own translation machinery.

Widgets call `tr("English text")`; in Chinese a QTranslator loaded from
`translations/tapemind_zh.qm` answers. `ZH` below is the source of that file:
`python -m ui.i18n` writes the .ts and compiles it with pyside6-lrelease.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape

from PySide6.QtCore import QCoreApplication, QLocale, QTranslator

CONTEXT = "tapemind"
LANGUAGES = ("en", "zh")
TRANSLATIONS = Path(__file__).with_name("translations")
QM_FILE = TRANSLATIONS / "tapemind_zh.qm"
TS_FILE = TRANSLATIONS / "tapemind_zh.ts"

_state: dict[str, object] = {"lang": "en", "translator": None}


def tr(text: str) -> str:
    """The text in the current language (English is the source)."""
    return QCoreApplication.translate(CONTEXT, text)


def counted(n: int, one: str, many: str, **values: object) -> str:
    """A count in the right number: `one` ("{n} active memory", translated) when `n` is 1,
    else `many` ("{n} active memories"), formatted with `n` and `values`. English says
    "1 memory"; Chinese has one form, which both keys translate to."""
    return (one if n == 1 else many).format(n=n, **values)


def word(code: str) -> str:
    """An engine code (category, status, arbiter…) as words in the current language:
    its translation, else the code with its underscores made spaces ("project fact"),
    so English never shows a person "project_fact"."""
    text = tr(code)
    return text.replace("_", " ") if text == code else text


def system_language() -> str:
    return "zh" if QLocale.system().name().lower().startswith("zh") else "en"


def current_language() -> str:
    return str(_state["lang"])


def install_language(lang: str) -> str:
    """Make `lang` ('en', 'zh' or 'system') current; returns the language in effect."""
    if lang == "system":
        lang = system_language()
    if lang not in LANGUAGES:
        raise ValueError(f"Unknown language {lang!r}: use en or zh.")
    old = _state["translator"]
    if isinstance(old, QTranslator):
        QCoreApplication.removeTranslator(old)
        _state["translator"] = None
    if lang == "zh":
        translator = QTranslator()
        if not translator.load(str(QM_FILE)):
            raise FileNotFoundError(f"{QM_FILE} is missing; build it with `python -m ui.i18n`.")
        QCoreApplication.installTranslator(translator)
        _state["translator"] = translator
    _state["lang"] = lang
    return lang


def write_ts(path: Path = TS_FILE) -> None:
    """Write the Qt Linguist source file from `ZH`."""
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        "<!DOCTYPE TS>",
        '<TS version="2.1" language="zh_CN" sourcelanguage="en">',
        "<context>",
        f"    <name>{CONTEXT}</name>",
    ]
    for source, target in sorted(ZH.items()):
        lines += [
            "    <message>",
            f"        <source>{escape(source)}</source>",
            f"        <translation>{escape(target)}</translation>",
            "    </message>",
        ]
    lines += ["</context>", "</TS>", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")


def build() -> Path:
    """Regenerate the .ts and compile the .qm (needs pyside6-lrelease)."""
    write_ts()
    tool = shutil.which("pyside6-lrelease") or str(
        Path(sys.executable).with_name("pyside6-lrelease")
    )
    subprocess.run([tool, "-silent", str(TS_FILE), "-qm", str(QM_FILE)], check=True)
    return QM_FILE


from .zh import ZH  # noqa: E402  (the table is long; it lives in its own module)

if __name__ == "__main__":
    print(build())
