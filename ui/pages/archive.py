"""Archive: archived memories with strength and last recall; restore one or many."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..agent_choice import choose_agent, show_agents
from ..i18n import tr, word
from ..probe import field
from ..tablemodels import Column, RowFilterProxy, RowsModel
from ..widgets import fmt_time, one_line, title_label
from .base import Page

MAX_SHOWN = 1000


def _strength(m: Any) -> str:
    value = field(m, "strength")
    return f"{value:.2f}" if isinstance(value, int | float) else "—"


ARCHIVE_COLUMNS = (
    Column("ID", lambda m: str(m.id), lambda m: m.id, align_right=True),
    Column("Category", lambda m: word(m.category)),
    Column("Text", lambda m: one_line(m.text)),
    Column("Strength", _strength, lambda m: field(m, "strength", default=0) or 0, True),
    Column(
        "Last recalled",
        lambda m: fmt_time(m.last_recalled_at),
        lambda m: m.last_recalled_at.timestamp() if m.last_recalled_at else 0,
    ),
    Column(
        "Archived",
        lambda m: fmt_time(m.archived_at),
        lambda m: m.archived_at.timestamp() if m.archived_at else 0,
    ),
)


def load_archive(engine: Any, agent: str | None) -> tuple[list[str], str | None, list[Any]]:
    names, agent = choose_agent(engine, agent)
    rows: list[Any] = []
    archived = getattr(engine, "archived", None)
    while agent is not None and len(rows) < MAX_SHOWN:
        if callable(archived):  # most recently archived first
            page = archived(agent, limit=200, offset=len(rows))
        else:
            page = engine.memories(agent, status="archived", limit=200, offset=len(rows))
        rows.extend(page)
        if len(page) < 200:
            break
    return names, agent, rows


class ArchivePage(Page):
    name = "archive"

    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.agent: str | None = None
        self.can_restore = ctx.has("restore")
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 16)
        head = QHBoxLayout()
        head.addWidget(title_label(tr("Archive")))
        head.addStretch(1)
        head.addWidget(QLabel(tr("Agent")))
        self.agent_box = QComboBox()
        self.agent_box.setMinimumWidth(140)
        self.agent_box.currentIndexChanged.connect(self._agent_picked)
        head.addWidget(self.agent_box)
        root.addLayout(head)
        self.note = QLabel(
            tr("Archived memories are not recalled on their own; restore brings them back.")
        )
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        root.addWidget(self.note)
        self.model = RowsModel(ARCHIVE_COLUMNS, self)
        self.proxy = RowFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the engine's order first
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        for col, width in ((0, 56), (1, 110), (3, 80), (4, 140), (5, 140)):
            self.table.setColumnWidth(col, width)
        root.addWidget(self.table, 1)
        self.empty_label = QLabel("")
        self.empty_label.setObjectName("muted")
        root.addWidget(self.empty_label)
        foot = QHBoxLayout()
        foot.addStretch(1)
        self.restore_button = QPushButton(tr("Restore selected"))
        self.restore_button.clicked.connect(self.restore_selected)
        if not self.can_restore:
            self.restore_button.setEnabled(False)
            self.restore_button.setToolTip(tr("Restoring is not available in this version."))
            foot.insertWidget(0, QLabel(tr("Restoring is not available in this version.")))
        foot.addWidget(self.restore_button)
        root.addLayout(foot)
        ctx.bridge.memories_changed.connect(self.changed)

    def open_with(self, args: dict[str, Any]) -> None:
        if args.get("agent"):
            self.agent = args["agent"]
        self.refresh()

    def _agent_picked(self) -> None:
        self.agent = self.agent_box.currentData()
        self.refresh()

    def refresh(self, *_: object) -> None:
        self._start_load()
        self.ctx.runner.read(
            load_archive,
            self.ctx.engine,
            self.agent,
            on_result=self._loaded,
            on_error=self._finish_load,
        )

    def _loaded(self, result: tuple[list[str], str | None, list[Any]]) -> None:
        names, agent, rows = result
        self.agent = agent
        show_agents(self.agent_box, names, agent)
        self.model.set_rows(rows)
        self.empty_label.setText(
            "" if rows else tr("Nothing archived: every memory of this agent is active.")
        )
        self._finish_load()

    def selected_ids(self) -> list[int]:
        rows = {i.row() for i in self.table.selectionModel().selectedRows()}
        return [self.proxy.row_at(r).id for r in sorted(rows)]

    def restore_selected(self) -> None:
        ids = self.selected_ids()
        if ids and self.can_restore:
            self.ctx.runner.write(self.ctx.engine.restore, ids, on_result=self.changed)
