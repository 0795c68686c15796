"""The vault passphrase is asked on the GUI thread while the worker that needs it waits."""

from __future__ import annotations

import threading

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QInputDialog

from ui.passphrase import PassphrasePrompt


def _answer_when_shown(text: str | None) -> None:
    dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, QInputDialog)]
    visible = [d for d in dialogs if d.isVisible()]
    if not visible:
        QTimer.singleShot(10, lambda: _answer_when_shown(text))
        return
    if text is None:
        visible[0].reject()
    else:
        visible[0].setTextValue(text)
        visible[0].accept()


def _ask_from_a_worker(prompt: PassphrasePrompt, out: list) -> threading.Thread:  # type: ignore[type-arg]
    worker = threading.Thread(target=lambda: out.append(prompt.provider("unlock")))
    return worker


def test_worker_gets_the_passphrase_typed_in_the_dialog(qtbot, english) -> None:
    prompt = PassphrasePrompt()
    out: list[str | None] = []
    worker = _ask_from_a_worker(prompt, out)
    QTimer.singleShot(0, lambda: _answer_when_shown("口令 correct horse"))
    with qtbot.waitSignal(prompt.answered, timeout=10000) as blocker:
        worker.start()
    worker.join(5)
    assert blocker.args == [True]  # the signal says whether, never what
    assert out == ["口令 correct horse"]


def test_cancel_gives_none_and_the_gui_thread_is_never_blocked(qtbot, english) -> None:
    prompt = PassphrasePrompt()
    out: list[str | None] = []
    worker = _ask_from_a_worker(prompt, out)
    QTimer.singleShot(0, lambda: _answer_when_shown(None))
    with qtbot.waitSignal(prompt.answered, timeout=10000):
        worker.start()
    worker.join(5)
    assert out == [None]
    assert prompt.provider("unlock") is None  # asked on the GUI thread: no dialog, no wait


def test_the_dialog_speaks_chinese_when_the_app_does(qtbot, english) -> None:
    from PySide6.QtWidgets import QPushButton

    from ui import i18n

    i18n.install_language("zh")
    prompt = PassphrasePrompt()
    out: list[str | None] = []
    worker = _ask_from_a_worker(prompt, out)
    seen: list[list[str]] = []

    def look_then_answer() -> None:
        shown = [
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, QInputDialog) and w.isVisible()
        ]
        if not shown:
            QTimer.singleShot(10, look_then_answer)
            return
        seen.append(sorted(b.text() for b in shown[0].findChildren(QPushButton)))
        _answer_when_shown("口令")

    QTimer.singleShot(0, look_then_answer)
    with qtbot.waitSignal(prompt.answered, timeout=10000):
        worker.start()
    worker.join(5)
    assert seen == [sorted(["解锁", "取消"])] and out == ["口令"]
