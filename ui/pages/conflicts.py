"""Conflicts: the queue of open conflicts; each one is reviewed in its own dialog."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedLayout,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..conflict_data import ConflictView, load_conflicts, load_settled
from ..conflict_review import ConflictReviewDialog
from ..context import AppContext
from ..i18n import tr
from ..tablemodels import Column, RowsModel
from ..widgets import EmptyState, fmt_age, fmt_time, one_line, title_label
from .base import Page

if TYPE_CHECKING:
    from app import Engine

QUEUE_COLUMNS = (
    Column("Agent", lambda c: c.agent),
    Column("Open for", lambda c: fmt_age(c.age_s)),
    Column("Existing memory", lambda c: one_line(c.old.text, 120), tooltip=lambda c: c.old.text),
    Column("New memory", lambda c: one_line(c.new.text, 120), tooltip=lambda c: c.new.text),
    Column(
        "Arbiter's reason",
        lambda c: one_line(c.reason_shown(), 120),
        tooltip=lambda c: c.reason_shown(),
    ),
)


# How a settled conflict was decided, in the owner's words.
DECIDED = {
    "old": "Kept the existing memory",
    "new": "Kept the new memory",
    "both": "Kept both",
    "merge": "Merged",
}

SETTLED_COLUMNS = (
    Column("Agent", lambda c: c.agent),
    Column("Settled", lambda c: fmt_time(c.resolved_at), sort=lambda c: c.resolved_at),
    Column("Decision", lambda c: tr(DECIDED.get(c.resolution or "", c.resolution or ""))),
    Column("Existing memory", lambda c: one_line(c.old.text, 120), tooltip=lambda c: c.old.text),
    Column("New memory", lambda c: one_line(c.new.text, 120), tooltip=lambda c: c.new.text),
)


OPEN_HINT = "Double-click a conflict (or select it and press Enter) to review it side by side."
SETTLED_HINT = "Select a settled conflict and press Reopen to decide it again."


def _load(engine: Engine, settled: bool) -> tuple[list[ConflictView], list[ConflictView] | None]:
    """The open queue (the review walks it), and the settled list when it is shown."""
    return load_conflicts(engine), load_settled(engine) if settled else None


def _first_row(items: list[ConflictView], wanted: dict[str, Any]) -> int:
    """The row of the conflict asked for, else the agent's oldest, else the oldest."""
    for i, c in enumerate(items):
        if c.id == wanted.get("conflict"):
            return i
    return next((i for i, c in enumerate(items) if c.agent == wanted.get("agent")), 0)


class ConflictsPage(Page):
    """Open conflicts, oldest first. Review… (or a double-click, or Enter) opens the
    review dialog on that conflict; the dashboard's card opens it on the oldest."""

    name = "conflicts"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.items: list[ConflictView] = []
        self.review: ConflictReviewDialog | None = None
        self._review_on_load: dict[str, Any] | None = None  # open the review after the load
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 16)
        head = QHBoxLayout()
        head.addWidget(title_label(tr("Conflicts")))
        head.addStretch(1)
        self.count_label = QLabel("")
        self.count_label.setObjectName("muted")
        head.addWidget(self.count_label)
        self.review_button = QPushButton(tr("&Review…"))
        self.review_button.setEnabled(False)
        self.review_button.clicked.connect(lambda: self.open_review(self._selected_row()))
        head.addWidget(self.review_button)
        # Settled conflicts, to reopen one decided by mistake after the review closed.
        self.settled_items: list[ConflictView] = []
        self.show_settled = QCheckBox(tr("Show &settled"))
        self.show_settled.toggled.connect(self._settled_toggled)
        head.insertWidget(2, self.show_settled)
        self.reopen_button = QPushButton(tr("Re&open"))
        self.reopen_button.setToolTip(
            tr("Undo the decision: the conflict waits for you again, both memories active")
        )
        self.reopen_button.setVisible(False)
        self.reopen_button.clicked.connect(self.reopen_selected)
        head.addWidget(self.reopen_button)
        root.addLayout(head)
        self.stack = QStackedLayout()
        self.empty = EmptyState(
            tr("No open conflicts"), tr("When two memories disagree, they wait here for you.")
        )
        self.model = RowsModel(QUEUE_COLUMNS, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(30)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in ((0, 120), (1, 80)):
            self.table.setColumnWidth(col, width)
        for col in (2, 3, 4):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda index: self.open_review(index.row()))
        self.table.activated.connect(lambda index: self.open_review(index.row()))  # Enter
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.table)
        self.settled_model = RowsModel(SETTLED_COLUMNS, self)
        self.settled_table = QTableView()
        self.settled_table.setModel(self.settled_model)
        self.settled_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.settled_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.settled_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.settled_table.verticalHeader().setVisible(False)
        settled_header = self.settled_table.horizontalHeader()
        for col, width in ((0, 120), (1, 140), (2, 200)):
            self.settled_table.setColumnWidth(col, width)
        for col in (3, 4):
            settled_header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        self.settled_empty = EmptyState(
            tr("No settled conflicts"), tr("Conflicts you settle are listed here to reopen.")
        )
        self.stack.addWidget(self.settled_table)
        self.stack.addWidget(self.settled_empty)
        root.addLayout(self.stack, 1)
        self.hint = QLabel(tr(OPEN_HINT))
        self.hint.setObjectName("muted")
        root.addWidget(self.hint)
        ctx.bridge.conflicts_changed.connect(self.changed)

    # -- loading -------------------------------------------------------------------

    def open_with(self, args: dict[str, Any]) -> None:
        """`review`: open the review once loaded, on `conflict` if given, else on the
        oldest conflict of `agent` (or of any agent)."""
        if args.get("review"):
            self._review_on_load = args
        self.refresh()

    def refresh(self, *_: object) -> None:
        self._start_load()
        self.ctx.runner.read(
            _load,
            self.ctx.engine,
            self.show_settled.isChecked(),
            on_result=self._loaded,
            on_error=self._finish_load,
        )

    def _loaded(self, found: tuple[list[ConflictView], list[ConflictView] | None]) -> None:
        items, settled = found
        self._show_open(items)
        if settled is not None and self.show_settled.isChecked():
            self._show_settled(settled)
        self._finish_load()

    def _show_open(self, items: list[ConflictView]) -> None:
        selected = self._selected_row()
        keep_id = self.items[selected].id if 0 <= selected < len(self.items) else None
        self.items = items
        self.model.set_rows(items)
        self.review_button.setEnabled(bool(items))
        if not self.show_settled.isChecked():
            # (a load started before "Show settled" was ticked must not take the view back)
            self.stack.setCurrentIndex(1 if items else 0)
            self.count_label.setText(tr("{n} open").format(n=len(items)) if items else "")
        ids = [c.id for c in items]
        if items:
            self.table.selectRow(ids.index(keep_id) if keep_id in ids else 0)
        if self.review is not None:
            self.review.set_queue(items)
        if self._review_on_load is not None:
            wanted, self._review_on_load = self._review_on_load, None
            self.open_review(_first_row(items, wanted))

    def changed(self, *_: object) -> None:
        """Reload now while the review is open, even with another page showing (the
        review is modeless: its evidence links open the tape), so its queue and Undo
        stay current; otherwise as any page."""
        if self.review is not None and self.review.isVisible():
            self.refresh()
        else:
            super().changed()

    def _settled_toggled(self, on: bool) -> None:
        self.hint.setText(tr(SETTLED_HINT) if on else tr(OPEN_HINT))
        self.review_button.setVisible(not on)
        self.reopen_button.setVisible(on)
        self.refresh()

    def _show_settled(self, items: list[ConflictView]) -> None:
        self.settled_items = items
        self.settled_model.set_rows(items)
        self.stack.setCurrentWidget(self.settled_table if items else self.settled_empty)
        self.reopen_button.setEnabled(bool(items))
        self.count_label.setText(tr("{n} settled").format(n=len(items)) if items else "")
        if items:
            self.settled_table.selectRow(0)

    def reopen_selected(self) -> None:
        """Reopen the selected settled conflict; it goes back to the open queue."""
        rows = self.settled_table.selectionModel().selectedRows()
        if not rows or not 0 <= rows[0].row() < len(self.settled_items):
            return
        self.reopen_button.setEnabled(False)
        self.ctx.runner.write(
            self.ctx.engine.reopen_conflict,
            self.settled_items[rows[0].row()].id,
            on_result=lambda _c: self.changed(),
            on_error=lambda _e: self.changed(),
        )

    def _selected_row(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else (0 if self.items else -1)

    def current(self) -> ConflictView | None:
        row = self._selected_row()
        return self.items[row] if 0 <= row < len(self.items) else None

    # -- the review dialog -----------------------------------------------------------

    def open_review(self, row: int = 0) -> ConflictReviewDialog | None:
        """Open (or bring up) the review dialog on the conflict at `row` of the queue."""
        if not self.items or not 0 <= row < len(self.items):
            return None
        if self.review is None:
            self.review = ConflictReviewDialog(self.items, row, self)
            self.review.decided.connect(self._resolve)
            self.review.reopen_requested.connect(self._reopen)
            self.review.entry_activated.connect(self._open_entry)
            self.review.finished.connect(self._review_closed)
        else:
            self.review.set_queue(self.items)
            self.review.index = row
            self.review.show_current()
        self.review.show()
        self.review.raise_()
        self.review.activateWindow()
        return self.review

    def _review_closed(self, *_: object) -> None:
        review, self.review = self.review, None
        if review is not None:
            review.deleteLater()

    def _resolve(self, conflict_id: int, keep: str, text: object) -> None:
        review = self.review

        def done(_result: object) -> None:
            if review is not None and review is self.review:
                review.resolved(conflict_id)
            self.changed()

        def failed(exc: object) -> None:
            if review is not None and review is self.review:
                review.failed(conflict_id, str(exc))

        self.ctx.runner.write(
            self.ctx.engine.resolve_conflict,
            conflict_id,
            keep=keep,
            text=text,
            on_result=done,
            on_error=failed,
        )

    def _reopen(self, conflict_id: int) -> None:
        review = self.review

        def done(_result: object) -> None:
            if review is not None and review is self.review:
                review.reopened(conflict_id)
            self.changed()

        def failed(exc: object) -> None:
            if review is not None and review is self.review:
                review.failed(conflict_id, str(exc))

        self.ctx.runner.write(
            self.ctx.engine.reopen_conflict, conflict_id, on_result=done, on_error=failed
        )

    def _open_entry(self, agent: str, entry_id: int) -> None:
        self.ctx.nav.page_requested.emit("tape", {"agent": agent, "entry": entry_id})

    def dispose(self) -> None:
        if self.review is not None:
            self.review.close()
