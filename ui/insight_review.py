"""The insight review dialog: one proposed skill at a time, its draft beside its evidence.

On the left the SKILL.md draft (or, for a revision of a grown skill, the changes to it);
on the right each memory it rests on, with the tape entries that memory came from (a link
opens the tape there). The owner accepts the draft, edits it first, or rejects it, and
walks the queue with previous/next. Mnemonics on every button, Alt+Left/Alt+Right through
the queue, Escape closes. Modeless, like the conflict review, so evidence links can open
the tape in the main window while it stays open.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from .dialogs import TextEditDialog
from .i18n import counted, tr, word
from .insight_data import EvidenceMemory, ProposalView
from .widgets import fmt_time, section_label, title_label

KINDS = {"new": "new skill", "revision": "new version of a grown skill"}
REASONS = {
    "new": "these memories form no skill yet",
    "grown": "the memories under the skill changed",
    "stale": "a memory the skill rests on was forgotten or superseded",
}


def writer_text(writer: str) -> str:
    if writer.startswith("llm:"):
        return tr("written by the model {model}").format(model=writer[4:])
    return tr("written from the memories' own words")


def evidence_html(memories: tuple[EvidenceMemory, ...]) -> str:
    """The evidence as rich text: each memory, then its entries as links to the tape."""
    rows = []
    for m in memories:
        facts = f"{escape(word(m.category))} · {escape(tr(m.status))}"
        rows.append(
            f'<p style="margin: 0 0 2px 0;"><b>m{m.memory_id}</b> <span>{facts}</span><br>'
            f"{escape(m.text) or escape(tr('(forgotten)'))}</p>"
        )
        for e in m.entries:
            when = f" · {escape(fmt_time(e.at))}" if e.at is not None else ""
            rows.append(
                f'<p style="margin: 0 0 10px 16px;"><a href="{e.entry_id}">#{e.entry_id}</a> '
                f"<b>{escape(tr(e.role))}</b>{when}<br>{escape(e.text)}</p>"
            )
    return "".join(rows) or escape(tr("none"))


class InsightReviewDialog(QDialog):
    """Review the queue of pending proposals, one at a time.

    `accept_requested(proposal_id, text)` asks the page to accept (text None: as drafted);
    `reject_requested(proposal_id)` to reject; the page answers with `settled(id, message)`
    or `failed(id, message)` (not `done`: QDialog.done closes the dialog).
    `entry_activated(agent, entry_id)` asks to show the tape.
    """

    accept_requested = Signal(int, object)
    reject_requested = Signal(int)
    entry_activated = Signal(str, int)

    def __init__(self, items: list[ProposalView], index: int = 0, parent: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Review proposed skill"))
        self.resize(1100, 680)
        self.setMinimumSize(780, 500)
        self.items = list(items)
        self.index = max(0, min(index, len(self.items) - 1))
        self.pending: int | None = None
        self.said = ""  # the last outcome, shown until the owner moves on
        self.edit_dialog: TextEditDialog | None = None
        root = QVBoxLayout(self)
        root.setContentsMargins(20, 16, 20, 14)
        root.setSpacing(10)
        self.heading = title_label("")
        root.addWidget(self.heading)
        self.meta = QLabel()
        self.meta.setObjectName("muted")
        self.meta.setWordWrap(True)
        root.addWidget(self.meta)
        root.addLayout(self._panels(), 1)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        root.addWidget(self.status)
        root.addLayout(self._buttons())
        self.shortcuts = []
        for keys, delta in (("Alt+Left", -1), ("Alt+Right", 1)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(lambda d=delta: self.step(d))
            self.shortcuts.append(shortcut)
        self.show_current()

    def _panels(self) -> QHBoxLayout:
        panels = QHBoxLayout()
        panels.setSpacing(12)
        left = QFrame()
        left.setObjectName("panel")
        ll = QVBoxLayout(left)
        ll.setContentsMargins(14, 10, 14, 10)
        head = QHBoxLayout()
        self.draft_title = section_label(tr("Draft"))
        head.addWidget(self.draft_title)
        head.addStretch(1)
        self.changes = QCheckBox(tr("Show &changes"))
        self.changes.setToolTip(tr("The changes to the grown skill's current version"))
        self.changes.setChecked(True)  # a revision opens on what it changes
        self.changes.toggled.connect(lambda _on: self.show_current())
        head.addWidget(self.changes)
        ll.addLayout(head)
        self.draft = QPlainTextEdit()
        self.draft.setReadOnly(True)
        self.draft.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        ll.addWidget(self.draft, 1)
        panels.addWidget(left, 3)
        right = QFrame()
        right.setObjectName("panel")
        rl = QVBoxLayout(right)
        rl.setContentsMargins(14, 10, 14, 10)
        rl.addWidget(section_label(tr("Evidence: the memories and their tape entries")))
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.viewport().setAutoFillBackground(False)
        body = QWidget()
        bl = QVBoxLayout(body)
        bl.setContentsMargins(0, 0, 6, 0)
        self.evidence = QLabel()
        self.evidence.setWordWrap(True)
        self.evidence.setTextFormat(Qt.TextFormat.RichText)
        self.evidence.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.evidence.linkActivated.connect(self._entry)
        bl.addWidget(self.evidence)
        bl.addStretch(1)
        scroll.setWidget(body)
        rl.addWidget(scroll, 1)
        panels.addWidget(right, 2)
        return panels

    def _buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.prev_button = QPushButton(tr("◀ &Previous"))
        self.prev_button.clicked.connect(lambda: self.step(-1))
        self.next_button = QPushButton(tr("Ne&xt ▶"))
        self.next_button.clicked.connect(lambda: self.step(1))
        row.addWidget(self.prev_button)
        row.addWidget(self.next_button)
        row.addStretch(1)
        self.accept_button = QPushButton(tr("&Accept"))
        self.accept_button.setToolTip(tr("Keep this skill as drafted; agents get it"))
        self.accept_button.clicked.connect(lambda: self._accept(None))
        self.edit_button = QPushButton(tr("&Edit and accept…"))
        self.edit_button.clicked.connect(self.edit)
        self.reject_button = QPushButton(tr("&Reject"))
        self.reject_button.setToolTip(tr("These memories are not proposed again"))
        self.reject_button.clicked.connect(self._reject)
        self.close_button = QPushButton(tr("Close"))
        self.close_button.clicked.connect(self.reject)
        for button in (self.accept_button, self.edit_button, self.reject_button):
            row.addWidget(button)
        row.addSpacing(12)
        row.addWidget(self.close_button)
        for button in (self.prev_button, self.next_button, self.accept_button, self.edit_button,
                       self.reject_button, self.close_button):  # fmt: skip
            button.setAutoDefault(False)  # Enter never accepts a skill by accident
        return row

    # -- the queue -------------------------------------------------------------------

    def current(self) -> ProposalView | None:
        return self.items[self.index] if 0 <= self.index < len(self.items) else None

    def step(self, delta: int) -> None:
        target = self.index + delta
        if 0 <= target < len(self.items):
            self.index = target
            self.said = ""
            self.show_current()

    def set_queue(self, items: list[ProposalView]) -> None:
        shown = self.current()
        self.items = [p for p in items if p.id != self.pending]
        ids = [p.id for p in self.items]
        self.index = ids.index(shown.id) if shown is not None and shown.id in ids else 0
        self.show_current()

    def show_current(self) -> None:
        p = self.current()
        for button in (self.accept_button, self.edit_button, self.reject_button):
            button.setEnabled(p is not None and self.pending is None)
        if p is None:
            self.heading.setText(tr("No proposals waiting"))
            self.meta.setText(tr("Every proposed skill is reviewed."))
            self.draft.setPlainText("")
            self.evidence.setText("")
            self.status.setText(self.said)
            self.changes.setVisible(False)
            self.prev_button.setEnabled(False)
            self.next_button.setEnabled(False)
            return
        self.heading.setText(
            tr("Proposal {pos} of {n}: {name}").format(
                pos=self.index + 1, n=len(self.items), name=p.name
            )
        )
        parts = [
            tr("Agent {agent}").format(agent=p.agent),
            tr(KINDS.get(p.kind, p.kind)),
            tr(REASONS.get(p.reason, p.reason)),
            writer_text(p.writer),
            tr("{steps} from {memories}").format(
                steps=counted(p.steps, tr("{n} step"), tr("{n} steps")),
                memories=counted(len(p.evidence), tr("{n} memory"), tr("{n} memories")),
            ),
        ]
        if p.created_at is not None:
            parts.append(tr("proposed {time}").format(time=fmt_time(p.created_at)))
        self.meta.setText(" · ".join(parts))
        self.changes.setVisible(p.diff is not None)
        diff = self.changes.isChecked() and p.diff is not None
        self.draft_title.setText(tr("Changes to the grown skill") if diff else tr("Draft"))
        self.draft.setPlainText(p.diff if diff and p.diff else p.text)
        self.evidence.setText(evidence_html(p.evidence))
        self.status.setText(self.said or p.note or "")
        self.prev_button.setEnabled(self.index > 0)
        self.next_button.setEnabled(self.index < len(self.items) - 1)

    # -- decisions --------------------------------------------------------------------

    def edit(self) -> None:
        p = self.current()
        if p is None or self.pending is not None:
            return
        self.edit_dialog = TextEditDialog(
            tr("Edit the skill"),
            tr(
                "Change the name, the description or the steps; cite memories as [m12]. "
                "Ctrl+Enter accepts."
            ),
            p.text,
            tr("Accept edited skill"),
            self,
        )
        self.edit_dialog.resize(760, 560)
        self.edit_dialog.accepted.connect(
            lambda: self._accept(self.edit_dialog.text() if self.edit_dialog else None)
        )
        self.edit_dialog.open()

    def _accept(self, text: str | None) -> None:
        p = self.current()
        if p is None or self.pending is not None:
            return
        self._send(p.id)
        self.accept_requested.emit(p.id, text)

    def _reject(self) -> None:
        p = self.current()
        if p is None or self.pending is not None:
            return
        self._send(p.id)
        self.reject_requested.emit(p.id)

    def _send(self, proposal_id: int) -> None:
        self.pending = proposal_id
        self.said = ""
        self.status.setText(tr("Saving…"))
        for button in (self.accept_button, self.edit_button, self.reject_button):
            button.setEnabled(False)

    def settled(self, proposal_id: int, message: str) -> None:
        """The engine took the decision on `proposal_id`: drop it, show the next."""
        if self.pending == proposal_id:
            self.pending = None
        ids = [p.id for p in self.items]
        if proposal_id in ids:
            i = ids.index(proposal_id)
            del self.items[i]
            if i < self.index or self.index >= len(self.items):
                self.index = max(0, self.index - 1)
        self.said = message
        self.show_current()

    def failed(self, proposal_id: int, message: str) -> None:
        """The decision was refused (a bad edit: the message says what to fix)."""
        if self.pending == proposal_id:
            self.pending = None
        self.said = message
        self.show_current()

    def _entry(self, href: str) -> None:
        p = self.current()
        if p is not None and href.isdigit():
            self.entry_activated.emit(p.agent, int(href))
