"""The MCP configuration of an agent, ready to paste into a client (token included)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from .i18n import current_language, tr

if TYPE_CHECKING:
    from app import Engine
    from app.host.snippets import Snippet


def load_snippets(engine: Engine, agent: str) -> list[Snippet]:
    """Every client snippet for `agent`, with its bearer token (worker side)."""
    from app.host.served import mcp_url
    from app.host.snippets import snippets  # the CLI's own snippets

    token = engine.agent_token(agent).token
    # Where this app serves the home (the port really served, remembered across runs).
    return snippets(agent, token, mcp_url(engine.home), engine.home, lang=current_language())


class McpConfigDialog(QDialog):
    """Pick a client; the text is what to paste (or run), with a Copy button."""

    def __init__(self, agent: str, snippets: list[Snippet], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.snippets = snippets
        self.setWindowTitle(tr("MCP configuration for {agent}").format(agent=agent))
        self.resize(640, 420)
        lay = QVBoxLayout(self)
        self.client = QComboBox()
        for s in snippets:
            # a client has a command and a file for each transport: say which is which
            form = tr("command") if s.form == "command" else tr("file")
            self.client.addItem(f"{s.client} · {s.transport} · {form}")
        lay.addWidget(self.client)
        self.where = QLabel("")
        self.where.setObjectName("muted")
        self.where.setWordWrap(True)
        lay.addWidget(self.where)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setStyleSheet("font-family: monospace;")
        lay.addWidget(self.text, 1)
        note = QLabel(tr("It contains the agent's token: paste it only into that agent's client."))
        note.setObjectName("muted")
        lay.addWidget(note)
        buttons = QDialogButtonBox()
        self.copy = buttons.addButton(tr("Copy"), QDialogButtonBox.ButtonRole.ActionRole)
        # Qt's own words are not translated (no qtbase catalogue ships): name it ourselves
        buttons.addButton(QDialogButtonBox.StandardButton.Close).setText(tr("Close"))
        self.copy.clicked.connect(self.copy_text)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.client.currentIndexChanged.connect(self._show)
        self._show(0)

    def _show(self, i: int) -> None:
        if 0 <= i < len(self.snippets):
            self.where.setText(self.snippets[i].where)
            self.text.setPlainText(self.snippets[i].text)

    def copy_text(self) -> None:
        QApplication.clipboard().setText(self.text.toPlainText())
