"""Conflict review: the queue, both memories side by side, and the owner's decision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStackedLayout,
    QVBoxLayout,
    QWidget,
)

from ..dialogs import TextEditDialog
from ..i18n import tr
from ..probe import age_seconds, field
from ..widgets import EmptyState, fmt_age, one_line, section_label, title_label, unavailable
from .base import Page

ID_ROLE = Qt.ItemDataRole.UserRole


@dataclass(frozen=True)
class Side:
    memory_id: int | None
    text: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class ConflictView:
    id: Any
    agent: str
    reason: str
    age_s: float | None
    old: Side
    new: Side


def _side(engine: Any, c: Any, which: str) -> Side:
    side = field(c, "existing" if which == "old" else "challenger")
    memory = field(side, "memory") if side is not None else None
    if memory is not None:  # the engine's ConflictSide: the memory and its sources
        evidence = tuple(
            f"#{e.id} {tr(e.role)}: {one_line(e.text, 200)}" for e in field(side, "sources") or ()
        )
        return Side(memory.id, memory.text, evidence)
    ref = field(c, f"{which}_id", f"{which}_memory_id", which, f"{which}_memory")
    if ref is None and which == "old":
        ref = field(c, "existing_id", "target_id", "memory_id")
    if ref is None and which == "new":
        ref = field(c, "challenger_id", "challenger")
    memory_id = ref if isinstance(ref, int) else field(ref, "id")
    if isinstance(memory_id, int):
        try:
            detail = engine.memory(memory_id)
        except Exception:  # the side may be a challenger that is not a memory
            detail = None
        if detail is not None:
            evidence = tuple(f"#{e.id} {e.role}: {one_line(e.text, 200)}" for e in detail.sources)
            return Side(memory_id, detail.memory.text, evidence)
    text = field(ref, "text") if ref is not None and not isinstance(ref, int) else None
    text = text or field(c, f"{which}_text", "challenger_text" if which == "new" else "old_text")
    return Side(memory_id if isinstance(memory_id, int) else None, str(text or ""), ())


def _age(c: Any) -> float | None:
    days = field(c, "age_days")
    return float(days) * 86400 if isinstance(days, int | float) else age_seconds(c)


def load_conflicts(engine: Any) -> list[ConflictView]:
    """Every agent's open conflicts with both sides read (worker side)."""
    out = []
    for agent in engine.agents():
        for c in engine.conflicts(agent.name, status="open"):
            out.append(
                ConflictView(
                    id=field(c, "id"),
                    agent=agent.name,
                    reason=str(field(c, "reason", default="") or ""),
                    age_s=_age(c),
                    old=_side(engine, c, "old"),
                    new=_side(engine, c, "new"),
                )
            )
    return out


def _side_panel(title: str) -> tuple[QFrame, QLabel, QLabel]:
    panel = QFrame()
    panel.setObjectName("panel")
    lay = QVBoxLayout(panel)
    lay.addWidget(section_label(title))
    text = QLabel()
    text.setWordWrap(True)
    text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    text.setStyleSheet("font-size: 11.5pt;")
    lay.addWidget(text)
    lay.addWidget(section_label(tr("Evidence on the tape")))
    evidence = QLabel()
    evidence.setWordWrap(True)
    evidence.setObjectName("muted")
    lay.addWidget(evidence)
    lay.addStretch(1)
    return panel, text, evidence


class ConflictsPage(Page):
    name = "conflicts"

    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.available = ctx.has("conflicts", "resolve_conflict")
        self.items: list[ConflictView] = []
        self.dialog: Any = None
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 16)
        root.addWidget(title_label(tr("Conflicts")))
        if not self.available:
            root.addWidget(unavailable(tr("conflict review")), 1)
            return
        self.stack = QStackedLayout()
        self.empty = EmptyState(
            tr("No open conflicts"), tr("When two memories disagree, they wait here for you.")
        )
        body = QWidget()
        bl = QHBoxLayout(body)
        bl.setContentsMargins(0, 0, 0, 0)
        self.queue = QListWidget()
        self.queue.setMaximumWidth(280)
        self.queue.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.queue.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.queue.currentRowChanged.connect(self._show)
        bl.addWidget(self.queue)
        review = QVBoxLayout()
        self.meta = QLabel("")
        self.meta.setWordWrap(True)
        review.addWidget(self.meta)
        sides = QHBoxLayout()
        old_panel, self.old_text, self.old_evidence = _side_panel(tr("Existing memory"))
        new_panel, self.new_text, self.new_evidence = _side_panel(tr("New memory"))
        sides.addWidget(old_panel)
        sides.addWidget(new_panel)
        review.addLayout(sides, 1)
        buttons = QHBoxLayout()
        self.prev_button = QPushButton(tr("◀ Previous"))
        self.prev_button.clicked.connect(lambda: self._step(-1))
        self.next_button = QPushButton(tr("Next ▶"))
        self.next_button.clicked.connect(lambda: self._step(1))
        buttons.addWidget(self.prev_button)
        buttons.addWidget(self.next_button)
        buttons.addStretch(1)
        self.decisions: dict[str, QPushButton] = {}
        for keep, label in (
            ("old", "Keep old"),
            ("new", "Keep new"),
            ("both", "Keep both"),
            ("merge", "Merge…"),
        ):
            button = QPushButton(tr(label))
            button.clicked.connect(lambda _=False, k=keep: self.decide(k))
            self.decisions[keep] = button
            buttons.addWidget(button)
        review.addLayout(buttons)
        bl.addLayout(review, 1)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(body)
        root.addLayout(self.stack, 1)
        ctx.bridge.conflicts_changed.connect(self.changed)

    def refresh(self, *_: object) -> None:
        if not self.available:
            self._finish_load()
            return
        self._start_load()
        self.ctx.runner.read(
            load_conflicts, self.ctx.engine, on_result=self._loaded, on_error=self._finish_load
        )

    def _loaded(self, items: list[ConflictView]) -> None:
        current = self.current()
        self.items = items
        self.queue.blockSignals(True)
        self.queue.clear()
        for c in items:
            item = QListWidgetItem(
                f"{c.agent} · {tr('open for {age}').format(age=fmt_age(c.age_s))}\n"
                f"{one_line(c.new.text, 60)}"
            )
            item.setData(ID_ROLE, c.id)
            self.queue.addItem(item)
        self.queue.blockSignals(False)
        self.stack.setCurrentIndex(1 if items else 0)
        if items:
            ids = [c.id for c in items]
            row = ids.index(current.id) if current is not None and current.id in ids else 0
            self.queue.setCurrentRow(row)
            self._show(row)
        self._finish_load()

    def current(self) -> ConflictView | None:
        row = self.queue.currentRow() if self.available else -1
        return self.items[row] if 0 <= row < len(self.items) else None

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self.items):
            return
        c = self.items[row]
        self.meta.setText(
            tr("Agent {agent} · open for {age} · {pos} of {n}").format(
                agent=c.agent, age=fmt_age(c.age_s), pos=row + 1, n=len(self.items)
            )
            + "\n"
            + tr("Arbiter's reason: {reason}").format(reason=c.reason or "—")
        )
        self.old_text.setText(c.old.text)
        self.new_text.setText(c.new.text)
        self.old_evidence.setText("\n".join(c.old.evidence) or tr("none"))
        self.new_evidence.setText("\n".join(c.new.evidence) or tr("none"))
        self.prev_button.setEnabled(row > 0)
        self.next_button.setEnabled(row < len(self.items) - 1)

    def _step(self, delta: int) -> None:
        row = self.queue.currentRow() + delta
        if 0 <= row < self.queue.count():
            self.queue.setCurrentRow(row)

    def decide(self, keep: str) -> None:
        """Resolve the shown conflict: old, new, both, or merge (asks for the text)."""
        c = self.current()
        if c is None:
            return
        if keep == "merge":
            self.dialog = TextEditDialog(
                tr("Merge into one memory"),
                tr("Edit the merged text; both memories are replaced by it."),
                f"{c.old.text}\n{c.new.text}",
                tr("Save merged memory"),
                self,
            )
            self.dialog.accepted.connect(lambda: self._resolve(c.id, "merge", self.dialog.text()))
            self.dialog.open()
            return
        self._resolve(c.id, keep, None)

    def _resolve(self, conflict_id: Any, keep: str, text: str | None) -> None:
        self.ctx.runner.write(
            self.ctx.engine.resolve_conflict,
            conflict_id,
            keep=keep,
            text=text,
            on_result=self.changed,
        )
