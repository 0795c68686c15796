"""Asking the owner for the vault passphrase from a worker thread.

The engine calls its passphrase provider on whichever thread needs the key —
in the app, always a worker. The provider here hands the question to the GUI
thread through a queued signal and waits for the owner's answer, so the
dialog runs where widgets may live and the worker blocks, not the window.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot
from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

from .i18n import tr

WAIT_S = 600.0  # the owner may be away; a worker waits this long for an answer


class PassphrasePrompt(QObject):
    """`provider(purpose)` for `engine.use_passphrase_prompt`; None if cancelled."""

    asked = Signal(str)
    answered = Signal(bool)  # whether a passphrase was given (never the passphrase)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window = parent
        self._lock = threading.Lock()  # one question at a time
        self._answer: str | None = None
        self._done = threading.Event()
        self.asked.connect(self._ask, Qt.ConnectionType.QueuedConnection)

    def provider(self, purpose: str) -> str | None:
        if QThread.currentThread() is self.thread():
            return None  # never block the GUI thread waiting on itself
        with self._lock:
            self._answer = None
            self._done.clear()
            self.asked.emit(purpose)
            self._done.wait(WAIT_S)
            answer, self._answer = self._answer, None
            return answer

    @Slot(str)
    def _ask(self, purpose: str) -> None:
        label = (
            tr("Choose a passphrase for the new vault:")
            if purpose == "create"
            else tr("The vault is locked. Passphrase:")
        )
        dialog = QInputDialog(self.window)
        dialog.setWindowTitle(tr("Vault passphrase"))
        dialog.setLabelText(label)
        dialog.setTextEchoMode(QLineEdit.EchoMode.Password)
        # Qt's own "OK"/"Cancel" are not translated (no qtbase catalogue ships)
        dialog.setOkButtonText(tr("Unlock") if purpose != "create" else tr("Create"))
        dialog.setCancelButtonText(tr("Cancel"))
        ok = dialog.exec() == QInputDialog.DialogCode.Accepted
        text = dialog.textValue()
        dialog.deleteLater()  # the typed passphrase leaves memory with the dialog
        self._answer = text if ok and text else None
        self.answered.emit(self._answer is not None)
        self._done.set()
