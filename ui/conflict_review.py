"""The conflict review dialog: one open conflict at a time, both memories side by side.

Each side shows the memory's text and the tape entries it came from; above
them the arbiter's reason and how long the conflict has been open. The owner
keeps the old memory, the new one, both, or merges them into an edited text,
and walks the queue with previous/next. Everything is reachable by keyboard:
mnemonics on every button, Alt+Left/Alt+Right through the queue, Escape
closes. A decision saved by mistake is one Undo (Alt+U) away: the conflict is
reopened and shown again. The dialog is modeless, so evidence links can open
the tape in the main window while the review stays open.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from .conflict_data import ConflictView, Side
from .dialogs import TextEditDialog
from .i18n import tr, word
from .widgets import fmt_age, fmt_time, section_label, title_label

DECISIONS = (
    ("old", "Keep &old"),
    ("new", "Keep &new"),
    ("both", "Keep &both"),
    ("merge", "&Merge…"),
)

# What each decision does, on its button (the owner should not have to guess).
DOES = {
    "old": "The existing memory stays; the new one is superseded (Undo takes it back)",
    "new": "The new memory stays; the existing one is superseded (Undo takes it back)",
    "both": "Both stay active: they are both true",
    "merge": "Write one memory that replaces both",
}

# What the owner just did, said back after the save (with Undo beside it).
SETTLED = {
    "old": "Conflict #{id} settled: kept the existing memory, the new one is superseded.",
    "new": "Conflict #{id} settled: kept the new memory, the existing one is superseded.",
    "both": "Conflict #{id} settled: kept both memories.",
    "merge": "Conflict #{id} settled: both memories merged into one.",
}


class SidePanel(QFrame):
    """One memory of the conflict: its text, a line of facts, its evidence on the tape."""

    entry_activated = Signal(int)

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("panel")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(14, 10, 14, 10)
        self.base_title = title
        self.title = section_label(title)
        outer.addWidget(self.title)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setObjectName("panelScroll")
        scroll.viewport().setAutoFillBackground(False)  # the panel's card colour shows
        body = QWidget()
        body.setObjectName("panelBody")
        lay = QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 6, 0)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.text.setStyleSheet("font-size: 12pt; padding: 4px 0;")
        lay.addWidget(self.text)
        self.facts = QLabel()
        self.facts.setObjectName("muted")
        self.facts.setWordWrap(True)
        lay.addWidget(self.facts)
        lay.addSpacing(8)
        lay.addWidget(section_label(tr("Evidence on the tape")))
        self.evidence = QLabel()
        self.evidence.setWordWrap(True)
        self.evidence.setTextFormat(Qt.TextFormat.RichText)
        self.evidence.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction
        )  # links reachable with Tab, opened with Enter
        self.evidence.linkActivated.connect(lambda href: self.entry_activated.emit(int(href)))
        lay.addWidget(self.evidence)
        lay.addStretch(1)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)

    def show_side(self, side: Side) -> None:
        self.title.setText(f"{self.base_title}  #{side.memory_id}")
        self.text.setText(side.text or tr("(forgotten)"))
        facts = [
            word(side.category),
            tr("importance {value}").format(value=f"{side.importance:.2f}"),
            tr("learned {time}").format(time=fmt_time(side.created_at)),
        ]
        self.facts.setText(" · ".join(facts))
        if not side.evidence:
            self.evidence.setText(escape(tr("none")))
            return
        rows = []
        for e in side.evidence:
            when = f" · {escape(fmt_time(e.at))}"
            rows.append(
                f'<p style="margin: 0 0 8px 0;"><a href="{e.entry_id}">#{e.entry_id}</a> '
                f"<b>{escape(tr(e.role))}</b>{when}<br>{escape(e.text)}</p>"
            )
        self.evidence.setText("".join(rows))


class ConflictReviewDialog(QDialog):
    """Review the queue of open conflicts, one at a time.

    `decided(conflict_id, keep, text)` asks the owner of the dialog to resolve a
    conflict (the write runs off the GUI thread); it answers with `resolved(id)`
    or `failed(id, message)`. `reopen_requested(conflict_id)` asks to undo the
    last resolution; it answers with `reopened(id)` or `failed(id, message)`.
    `entry_activated(agent, entry_id)` asks to show the tape around an evidence entry.
    """

    decided = Signal(int, str, object)
    reopen_requested = Signal(int)
    entry_activated = Signal(str, int)

    def __init__(self, items: list[ConflictView], index: int = 0, parent: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Review conflict"))
        self.resize(1060, 640)
        self.setMinimumSize(760, 480)
        self.items: list[ConflictView] = list(items)
        self.index = max(0, min(index, len(self.items) - 1))
        self.pending: int | None = None  # the conflict being resolved right now
        self.pending_keep: str | None = None
        self.last_settled: int | None = None  # what Undo reopens
        self.wanted: int | None = None  # a reopened conflict to show once it is queued
        self.merge_dialog: TextEditDialog | None = None

        root = QVBoxLayout(self)
        root.setContentsMargins(20, 16, 20, 14)
        root.setSpacing(10)
        self.heading = title_label("")
        root.addWidget(self.heading)
        self.meta = QLabel()
        self.meta.setObjectName("muted")
        self.meta.setWordWrap(True)
        root.addWidget(self.meta)
        reason_box = QFrame()
        reason_box.setObjectName("panel")
        rl = QVBoxLayout(reason_box)
        rl.setContentsMargins(14, 8, 14, 8)
        rl.addWidget(section_label(tr("Arbiter's reason")))
        self.reason = QLabel()
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rl.addWidget(self.reason)
        root.addWidget(reason_box)

        sides = QHBoxLayout()
        sides.setSpacing(12)
        self.old_panel = SidePanel(tr("Existing memory"))
        self.new_panel = SidePanel(tr("New memory"))
        for panel in (self.old_panel, self.new_panel):
            panel.entry_activated.connect(self._entry)
            sides.addWidget(panel, 1)
        root.addLayout(sides, 1)

        status_row = QHBoxLayout()
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        status_row.addWidget(self.status, 1)
        self.undo_button = QPushButton(tr("&Undo"))
        self.undo_button.setToolTip(tr("Reopen the conflict just settled and decide again"))
        self.undo_button.setAutoDefault(False)
        self.undo_button.clicked.connect(self.undo)
        self.undo_button.setVisible(False)
        status_row.addWidget(self.undo_button)
        root.addLayout(status_row)

        buttons = QHBoxLayout()
        self.prev_button = QPushButton(tr("◀ &Previous"))
        self.prev_button.setToolTip(tr("Previous conflict (Alt+Left)"))
        self.prev_button.clicked.connect(lambda: self.step(-1))
        self.next_button = QPushButton(tr("Ne&xt ▶"))
        self.next_button.setToolTip(tr("Next conflict (Alt+Right)"))
        self.next_button.clicked.connect(lambda: self.step(1))
        buttons.addWidget(self.prev_button)
        buttons.addWidget(self.next_button)
        buttons.addStretch(1)
        self.decisions: dict[str, QPushButton] = {}
        for keep, label in DECISIONS:
            button = QPushButton(tr(label))
            button.setAutoDefault(False)  # Enter never settles a conflict by accident
            button.setToolTip(tr(DOES[keep]))
            button.clicked.connect(lambda _=False, k=keep: self.decide(k))
            self.decisions[keep] = button
            buttons.addWidget(button)
        buttons.addSpacing(12)
        self.close_button = QPushButton(tr("Close"))
        self.close_button.clicked.connect(self.reject)
        buttons.addWidget(self.close_button)
        for button in (self.prev_button, self.next_button, self.close_button):
            button.setAutoDefault(False)
        root.addLayout(buttons)

        self.shortcuts = []
        for keys, delta in (("Alt+Left", -1), ("Alt+Right", 1)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(lambda d=delta: self.step(d))
            self.shortcuts.append(shortcut)
        self.show_current()

    # -- the queue -----------------------------------------------------------------

    def current(self) -> ConflictView | None:
        return self.items[self.index] if 0 <= self.index < len(self.items) else None

    def step(self, delta: int) -> None:
        """Show the previous (-1) or next (+1) conflict of the queue."""
        target = self.index + delta
        if 0 <= target < len(self.items):
            self.index = target
            self.show_current()

    def set_queue(self, items: list[ConflictView]) -> None:
        """A fresh queue from the engine: stay on the conflict shown if it is still open."""
        shown = self.current()
        self.items = [c for c in items if c.id != self.pending]
        ids = [c.id for c in self.items]
        if self.wanted is not None and self.wanted in ids:
            self.index, self.wanted = ids.index(self.wanted), None
        elif shown is not None and shown.id in ids:
            self.index = ids.index(shown.id)
        else:
            self.index = min(self.index, len(self.items) - 1)
        self.show_current()

    def show_current(self) -> None:
        c = self.current()
        for button in self.decisions.values():
            button.setEnabled(c is not None and self.pending is None)
        self.old_panel.setVisible(c is not None)
        self.new_panel.setVisible(c is not None)
        if c is None:
            self.index = 0
            self.heading.setText(tr("No open conflicts"))
            self.meta.setText(tr("Every conflict in the queue is settled."))
            self.reason.setText("—")
            self.prev_button.setEnabled(False)
            self.next_button.setEnabled(False)
            self.close_button.setFocus()
            return
        # The conflict's number, as "settled" and "open again" name it; then its place.
        self.heading.setText(
            tr("Conflict #{id} · {pos} of {n} open").format(
                id=c.id, pos=self.index + 1, n=len(self.items)
            )
        )
        meta = tr("Agent {agent} · open for {age}").format(
            agent=c.agent, age=fmt_age(c.age_s) or "—"
        )
        if c.arbiter == "owner":  # a superseded memory the owner brought back
            meta += " · " + tr("raised by you")
        elif c.arbiter:
            meta += " · " + tr("raised by the {arbiter} arbiter").format(arbiter=word(c.arbiter))
        self.meta.setText(meta)
        self.reason.setText(c.reason_shown() or "—")
        self.old_panel.show_side(c.old)
        self.new_panel.show_side(c.new)
        self.prev_button.setEnabled(self.index > 0)
        self.next_button.setEnabled(self.index < len(self.items) - 1)

    # -- decisions -----------------------------------------------------------------

    def decide(self, keep: str) -> None:
        """Settle the shown conflict: old, new, both; merge asks for the text first."""
        c = self.current()
        if c is None or self.pending is not None:
            return
        if keep == "merge":
            self.merge_dialog = TextEditDialog(
                tr("Merge into one memory"),
                tr("Edit the merged text; both memories are replaced by it. Ctrl+Enter saves."),
                f"{c.old.text}\n{c.new.text}",
                tr("Save merged memory"),
                self,
            )
            self.merge_dialog.accepted.connect(
                lambda: self._send(c.id, "merge", self.merge_dialog.text())
            )
            self.merge_dialog.open()
            return
        self._send(c.id, keep, None)

    def _send(self, conflict_id: int, keep: str, text: str | None) -> None:
        if keep == "merge" and not (text or "").strip():
            self.status.setText(tr("The merged text is empty; nothing was changed."))
            return
        self.pending, self.pending_keep = conflict_id, keep
        self._hide_undo()
        self.status.setText(tr("Saving…"))
        for button in self.decisions.values():
            button.setEnabled(False)
        self.decided.emit(conflict_id, keep, text)

    def resolved(self, conflict_id: int) -> None:
        """The engine settled `conflict_id`: drop it and show the next one in its place."""
        keep = self.pending_keep if self.pending == conflict_id else None
        if self.pending == conflict_id:
            self.pending = self.pending_keep = None
        said = SETTLED.get(keep or "")
        self.status.setText(tr(said).format(id=conflict_id) if said else tr("Saved."))
        self.last_settled = conflict_id
        self.undo_button.setVisible(True)
        self.undo_button.setEnabled(True)
        ids = [c.id for c in self.items]
        if conflict_id in ids:
            i = ids.index(conflict_id)
            del self.items[i]
            if i < self.index or self.index >= len(self.items):
                self.index = max(0, self.index - 1)
        self.show_current()

    def failed(self, conflict_id: int, message: str) -> None:
        if self.pending == conflict_id:
            self.pending = self.pending_keep = None
        if self.wanted == conflict_id:
            self.wanted = None
            self.undo_button.setEnabled(True)
        self.status.setText(message)
        self.show_current()

    def undo(self) -> None:
        """Reopen the conflict settled last; it comes back into the queue and is shown."""
        if self.last_settled is None or self.pending is not None:
            return
        self.wanted = self.last_settled
        self.undo_button.setEnabled(False)
        self.status.setText(tr("Reopening…"))
        self.reopen_requested.emit(self.last_settled)

    def _hide_undo(self) -> None:
        if self.undo_button.hasFocus():
            # a hidden focused button swallows keys: Alt+O/N/B would do nothing
            self.next_button.setFocus() if self.next_button.isEnabled() else self.setFocus()
        self.undo_button.setVisible(False)

    def reopened(self, conflict_id: int) -> None:
        """The engine reopened `conflict_id`; the next queue from the engine shows it."""
        if self.last_settled == conflict_id:
            self.last_settled = None
        self._hide_undo()
        again = tr("Conflict #{id} is open again: decide again.")
        self.status.setText(again.format(id=conflict_id))

    def _entry(self, entry_id: int) -> None:
        c = self.current()
        if c is not None:
            self.entry_activated.emit(c.agent, entry_id)
