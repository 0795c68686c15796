"""Confirmation and text-editing dialogs, opened window-modal (non-blocking)."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from .i18n import tr


class ConfirmDialog(QDialog):
    """Ask before something that cannot be undone; `accepted` means go ahead."""

    def __init__(
        self, title: str, text: str, quote: str, action: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        lay = QVBoxLayout(self)
        heading = QLabel(title)
        heading.setObjectName("emptyTitle")
        lay.addWidget(heading)
        self.message = QLabel(text)
        self.message.setWordWrap(True)
        lay.addWidget(self.message)
        if quote:
            q = QLabel(quote)
            q.setWordWrap(True)
            q.setObjectName("muted")
            lay.addWidget(q)
        self.buttons = QDialogButtonBox()
        self.ok = self.buttons.addButton(action, QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel = self.buttons.addButton(tr("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        self.cancel.setDefault(True)  # the safe choice is the default
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)


class TextEditDialog(QDialog):
    """Edit a text; `accepted` with the new text in `text()`.

    Keyboard: Tab leaves the editor for the buttons, Ctrl+Enter saves, Escape cancels.
    """

    def __init__(
        self, title: str, note: str, text: str, action: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(560, 320)
        lay = QVBoxLayout(self)
        label = QLabel(note)
        label.setWordWrap(True)
        label.setObjectName("muted")
        lay.addWidget(label)
        self.editor = QPlainTextEdit(text)
        self.editor.setTabChangesFocus(True)
        lay.addWidget(self.editor, 1)
        self.buttons = QDialogButtonBox()
        self.ok = self.buttons.addButton(action, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(tr("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self.save_shortcuts = [
            QShortcut(QKeySequence(keys), self, self.accept)
            for keys in ("Ctrl+Return", "Ctrl+Enter")
        ]
        self.editor.setFocus()

    def text(self) -> str:
        return self.editor.toPlainText()
