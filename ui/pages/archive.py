"""Archive: archived memories (restore them) and fading ones, which maintenance archives
within a week unless they are recalled, used or kept (keep the ones that still matter)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTabBar,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..agent_choice import choose_agent, show_agents
from ..context import AppContext
from ..i18n import tr, word
from ..tablemodels import Column, RowFilterProxy, RowsModel
from ..widgets import fmt_time, one_line, title_label
from .base import Page

if TYPE_CHECKING:
    from app import ArchiveCandidate, ArchiveRun, Engine, Memory

MAX_SHOWN = 1000
ARCHIVED, FADING = 0, 1  # the page's two views (tabs)


def _strength(m: Memory) -> str:
    return f"{m.strength:.2f}" if m.strength is not None else "—"


ARCHIVE_COLUMNS = (
    Column("ID", lambda m: str(m.id), lambda m: m.id, align_right=True),
    Column("Category", lambda m: word(m.category)),
    Column("Text", lambda m: one_line(m.text)),
    Column("Strength", _strength, lambda m: m.strength or 0.0, True),
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


def _due(c: ArchiveCandidate) -> str:
    """When maintenance archives it: a date ahead, or the next run for one already due."""
    if c.fade_at <= datetime.now(UTC):
        return tr("next maintenance")
    return fmt_time(c.fade_at)


# Rows are the engine's archive candidates ahead (`fading`), strength as of today.
FADING_COLUMNS = (
    Column("ID", lambda c: str(c.memory_id), lambda c: c.memory_id, align_right=True),
    Column("Category", lambda c: word(c.category)),
    Column("Text", lambda c: one_line(c.text)),
    Column("Strength", lambda c: f"{c.strength:.2f}", lambda c: c.strength, True),
    Column(
        "Last active", lambda c: fmt_time(c.last_active_at), lambda c: c.last_active_at.timestamp()
    ),
    Column("Due", _due, lambda c: c.fade_at.timestamp()),
)


@dataclass(frozen=True)
class ArchiveView:
    names: list[str]
    agent: str | None
    archived: list[Memory]
    fading: list[ArchiveCandidate]
    threshold: float = 0.0  # the agent's archive_below and archive_idle_days
    idle_days: float = 0.0
    last_run: ArchiveRun | None = None  # the latest time maintenance archived some


def load_archive(engine: Engine, agent: str | None) -> ArchiveView:
    names, agent = choose_agent(engine, agent)
    if agent is None:
        return ArchiveView(names, None, [], [])
    rows: list[Memory] = []
    while len(rows) < MAX_SHOWN:  # most recently archived first
        page = engine.archived(agent, limit=200, offset=len(rows))
        rows.extend(page)
        if len(page) < 200:
            break
    settings = engine.agent(agent).settings
    runs = engine.archive_runs(agent, limit=1)
    return ArchiveView(
        names,
        agent,
        rows,
        engine.fading(agent),
        settings.archive_below,
        settings.archive_idle_days,
        runs[0] if runs else None,
    )


def _table(proxy: RowFilterProxy) -> QTableView:
    table = QTableView()
    table.setModel(proxy)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSortingEnabled(True)
    table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the engine's order first
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    table.setAlternatingRowColors(True)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
    for col, width in ((0, 56), (1, 110), (3, 80), (4, 140), (5, 140)):
        table.setColumnWidth(col, width)
    return table


class ArchivePage(Page):
    name = "archive"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.agent: str | None = None
        self.shown: ArchiveView | None = None  # the last load
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

        self.tabs = QTabBar()
        self.tabs.setDocumentMode(True)
        self.tabs.setExpanding(False)
        self.tabs.addTab(tr("Archived"))
        self.tabs.addTab(tr("Fading"))
        self.tabs.currentChanged.connect(self._view_picked)
        root.addWidget(self.tabs)
        self.note = QLabel("")
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        root.addWidget(self.note)

        self.model = RowsModel(ARCHIVE_COLUMNS, self)
        self.proxy = RowFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = _table(self.proxy)
        self.fading_model = RowsModel(FADING_COLUMNS, self)
        self.fading_proxy = RowFilterProxy(self)
        self.fading_proxy.setSourceModel(self.fading_model)
        self.fading_table = _table(self.fading_proxy)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.fading_table)
        root.addWidget(self.stack, 1)
        self.empty_label = QLabel("")
        self.empty_label.setObjectName("muted")
        root.addWidget(self.empty_label)

        foot = QHBoxLayout()
        foot.addStretch(1)
        self.restore_button = QPushButton(tr("Restore selected"))
        self.restore_button.clicked.connect(self.restore_selected)
        foot.addWidget(self.restore_button)
        self.keep_button = QPushButton(tr("Keep selected"))
        self.keep_button.setToolTip(
            tr("Reinforce them now: they stay active and fade again only after a new idle spell.")
        )
        self.keep_button.clicked.connect(self.keep_selected)
        foot.addWidget(self.keep_button)
        root.addLayout(foot)
        self._view_picked(ARCHIVED)
        ctx.bridge.memories_changed.connect(self.changed)

    def open_with(self, args: dict[str, Any]) -> None:
        if args.get("agent"):
            self.agent = args["agent"]
        if args.get("view") == "fading":
            self.tabs.setCurrentIndex(FADING)
        self.refresh()

    def _agent_picked(self) -> None:
        self.agent = self.agent_box.currentData()
        self.refresh()

    def _view_picked(self, view: int) -> None:
        self.stack.setCurrentIndex(view)
        self.restore_button.setVisible(view == ARCHIVED)
        self.keep_button.setVisible(view == FADING)
        self._describe()

    def refresh(self, *_: object) -> None:
        self._start_load()
        self.ctx.runner.read(
            load_archive,
            self.ctx.engine,
            self.agent,
            on_result=self._loaded,
            on_error=self._finish_load,
        )

    def _loaded(self, view: ArchiveView) -> None:
        self.agent = view.agent
        show_agents(self.agent_box, view.names, view.agent)
        self.shown = view
        self.model.set_rows(view.archived)
        self.fading_model.set_rows(view.fading or [])
        self.tabs.setTabText(ARCHIVED, tr("Archived ({n})").format(n=len(view.archived)))
        self.tabs.setTabText(FADING, tr("Fading ({n})").format(n=len(view.fading)))
        self._describe()
        self._finish_load()

    def _describe(self) -> None:
        """The note above the table and the empty state, for the view shown."""
        if self.tabs.currentIndex() == FADING:
            view = self.shown
            if view is not None and view.agent is not None:
                self.note.setText(
                    tr(
                        "Archived within a week unless recalled, used or kept: their strength "
                        "falls below {threshold:g} after {days:g}+ idle days. Keep the ones "
                        "that matter."
                    ).format(threshold=view.threshold, days=view.idle_days)
                )
            empty = tr("Nothing is fading: every active memory was recalled or used lately.")
            shown = self.fading_model.rowCount()
        else:
            said = tr("Archived memories are not recalled on their own; restore brings them back.")
            view = self.shown
            run = view.last_run if view is not None else None
            if view is not None and run is not None:
                said = (
                    tr(
                        "Maintenance last archived {n} memories on {time}: their strength had "
                        "fallen below {threshold:g} after {days:g}+ idle days."
                    ).format(
                        n=run.archived,
                        time=fmt_time(run.at),
                        threshold=view.threshold,
                        days=view.idle_days,
                    )
                    + " "
                    + said
                )
            self.note.setText(said)
            empty = tr("Nothing archived: every memory of this agent is active.")
            shown = self.model.rowCount()
        self.empty_label.setText("" if shown or self.shown is None else empty)

    def selected_ids(self) -> list[int]:
        rows = {i.row() for i in self.table.selectionModel().selectedRows()}
        return [self.proxy.row_at(r).id for r in sorted(rows)]

    def selected_fading_ids(self) -> list[int]:
        rows = {i.row() for i in self.fading_table.selectionModel().selectedRows()}
        return [self.fading_proxy.row_at(r).memory_id for r in sorted(rows)]

    def restore_selected(self) -> None:
        ids = self.selected_ids()
        if ids:
            self.ctx.runner.write(self.ctx.engine.restore, ids, on_result=self.changed)

    def keep_selected(self) -> None:
        ids = self.selected_fading_ids()
        if ids:
            self.ctx.runner.write(self.ctx.engine.keep, ids, on_result=self.changed)
