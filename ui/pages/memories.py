"""Memories: a lazily paged table with filters, search and a detail pane."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..agent_choice import show_agents
from ..context import AppContext
from ..dialogs import ConfirmDialog, TextEditDialog
from ..glyphwarm import GlyphWarmer, common_characters
from ..i18n import tr, word
from ..tablemodels import LazyRowsModel, RowFilterProxy
from ..tableview import AppendingTableView
from ..widgets import draw_text_unshaped, one_line, title_label
from .base import Page
from .memory_detail import MemoryDetailPane
from .memory_rows import MEMORY_COLUMNS, fetch_page, load_head, search_page, waiting_page

SEARCH_DEBOUNCE_MS = 250
AUTO_FILL_ROWS = 50  # a client-side filter keeps loading pages until this many rows show…
AUTO_FILL_LIMIT = 5000  # …or this many are loaded (then scrolling loads more)


class MemoriesPage(Page):
    name = "memories"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        from app import CATEGORIES, STATUSES

        super().__init__(ctx, parent)
        self.agent: str | None = None
        self.selected_id: int | None = None
        self.dialog: Any = None
        self.searching = False
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 16)
        head = QHBoxLayout()
        head.addWidget(title_label(tr("Memories")))
        head.addSpacing(16)
        self.count_label = QLabel("")
        self.count_label.setObjectName("muted")
        head.addWidget(self.count_label)
        head.addStretch(1)
        self.search_box = QLineEdit()
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setPlaceholderText(tr("Search memories…"))
        self.search_box.setMinimumWidth(240)
        head.addWidget(self.search_box, 1)
        root.addLayout(head)

        bar = QHBoxLayout()
        self.agent_box = QComboBox()
        self.agent_box.setMinimumWidth(140)
        self.category_box = QComboBox()
        self.category_box.addItem(tr("All categories"), None)
        for c in CATEGORIES:
            self.category_box.addItem(word(c), c)
        self.status_box = QComboBox()
        self.status_box.addItem(tr("All statuses"), None)
        for s in STATUSES:
            self.status_box.addItem(tr(s), s)
        self.never_box = QCheckBox(tr("Never recalled"))
        self.waiting_box = QCheckBox(tr("Unembedded"))
        self.waiting_box.setToolTip(
            tr("Only the memories waiting to be embedded (full-text search finds them meanwhile)")
        )
        for label, widget in (
            ("Agent", self.agent_box),
            ("Category", self.category_box),
            ("Status", self.status_box),
        ):
            bar.addWidget(QLabel(tr(label)))
            bar.addWidget(widget)
        bar.addWidget(self.never_box)
        bar.addWidget(self.waiting_box)
        bar.addStretch(1)
        root.addLayout(bar)

        self.model = LazyRowsModel(MEMORY_COLUMNS, page_size=200, parent=self)
        self.model.page_requested.connect(self._fetch_page)
        self.proxy = RowFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = AppendingTableView()  # a page arriving below the screen: no repaint
        self.table.setModel(self.proxy)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(28)
        # One height for every row: the view never measures a row's contents.
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.setWordWrap(False)
        draw_text_unshaped(self.table)  # before the warmer: it draws in the table's font
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setResizeContentsPrecision(40)  # size columns from a sample, not every row
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        for col, width in ((0, 46), (1, 104), (3, 84), (4, 66), (5, 52), (6, 76), (7, 122)):
            self.table.setColumnWidth(col, width)
        # Importance, recalls and uses are in the detail pane; the text needs the room.
        # A right click on the header shows them again.
        for col in (3, 4, 5, 6):  # status: said before a text that is not active
            self.table.setColumnHidden(col, True)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._column_menu)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        # The table's first paint of a row must not load its glyphs: draw the
        # common ones now, a few per idle moment, and each page's new ones.
        self.warmer = GlyphWarmer(self.table, self)
        self.warmer.add(common_characters())

        self.detail = MemoryDetailPane()
        self.detail.entry_activated.connect(self._open_entry)
        self.detail.memory_activated.connect(self.show_memory)
        self.detail.edit_requested.connect(self.ask_edit)
        self.detail.forget_requested.connect(self.ask_forget)
        self.detail.dispute_requested.connect(self.dispute)
        split = QSplitter()
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 7)
        split.setStretchFactor(1, 3)
        split.setSizes([700, 300])
        self.detail.setMinimumWidth(240)
        root.addWidget(split, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self._apply_search)
        self.search_box.textChanged.connect(self._debounce.start)
        self.agent_box.currentIndexChanged.connect(self._agent_picked)
        for box in (self.category_box, self.status_box):
            box.currentIndexChanged.connect(self.refresh)
        self.never_box.toggled.connect(self._apply_never)
        self.waiting_box.toggled.connect(self.refresh)
        ctx.bridge.memories_changed.connect(self.changed)
        ctx.bridge.agents_changed.connect(self.changed)

    # -- filters -------------------------------------------------------------------

    def open_with(self, args: dict[str, Any]) -> None:
        """Filters from a dashboard card: agent, status, category, never_recalled, memory."""
        widgets = (
            (self.category_box, args.get("category")),
            (self.status_box, args.get("status")),
        )
        for combo, value in widgets:
            combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(value)))
            combo.blockSignals(False)
        if args.get("agent") and args["agent"] != self.agent:
            self.agent = args["agent"]
            self.selected_id = None
        for box, key in ((self.never_box, "never_recalled"), (self.waiting_box, "unembedded")):
            box.blockSignals(True)
            box.setChecked(bool(args.get(key)))
            box.blockSignals(False)
        self._apply_never(self.never_box.isChecked(), reload=False)
        if args.get("memory"):
            self.selected_id = int(args["memory"])
        self.refresh()

    def _agent_picked(self) -> None:
        self.agent = self.agent_box.currentData()
        self.selected_id = None
        self.refresh()

    def filters(self) -> tuple[Any, Any]:
        return self.category_box.currentData(), self.status_box.currentData()

    def _apply_never(self, on: bool, reload: bool = False) -> None:
        self.proxy.set_predicate("never", (lambda m: m.recall_count == 0) if on else None)
        self._fill_view()

    def _apply_search(self) -> None:
        self.refresh()

    def _fill_view(self) -> None:
        # A filter that hides loaded rows must not strand the view: load on.
        if self._wants_more():
            self.model.fetchMore()
        self._update_count()

    def _column_menu(self, pos: Any) -> None:
        menu = QMenu(self)
        for col, column in enumerate(MEMORY_COLUMNS):
            if col == 2:
                continue
            act = menu.addAction(tr(column.header))
            act.setCheckable(True)
            act.setChecked(not self.table.isColumnHidden(col))
            act.toggled.connect(lambda on, c=col: self.table.setColumnHidden(c, not on))
        menu.popup(self.table.horizontalHeader().mapToGlobal(pos))

    # -- loading -------------------------------------------------------------------

    def refresh(self, *_: object) -> None:
        self._start_load()
        agent = self.agent
        category, status = self.filters()
        self.ctx.runner.read(
            load_head,
            self.ctx.engine,
            agent,
            category,
            status,
            self.waiting_box.isChecked(),
            on_result=self._head_loaded,
            on_error=self._finish_load,
        )

    def _head_loaded(self, result: tuple[list[str], str | None, int]) -> None:
        names, agent, total = result
        self.agent = agent
        show_agents(self.agent_box, names, agent)
        query = self.search_box.text().strip()
        if agent and self.waiting_box.isChecked():
            # A short list of its own (not paged): what the indexer has still to embed.
            self.searching = True
            self.model.reset(0)
            self.ctx.runner.read(
                waiting_page,
                self.ctx.engine,
                self.model,
                agent,
                on_result=self._search_loaded,
                on_error=self._finish_load,
            )
            return
        if agent and query:
            category, status = self.filters()
            self.searching = True
            self.model.reset(0)
            self.ctx.runner.read(
                search_page,
                self.ctx.engine,
                self.model,
                agent,
                query,
                category,
                status,
                on_result=self._search_loaded,
                on_error=self._finish_load,
            )
            return
        self.searching = False
        self.model.reset(total)
        if total == 0 or agent is None:
            self._page_loaded(self.model.generation, [])
        else:
            self.model.fetchMore()

    def _search_loaded(self, page: tuple[list[Any], list[Any], str]) -> None:
        rows, cells, chars = page
        self.model.reset(len(rows))
        self._page_loaded(self.model.generation, rows, cells, chars)

    def _fetch_page(self, generation: int, offset: int, limit: int) -> None:
        if self.agent is None:
            return
        category, status = self.filters()
        # The next page starts after the last memory loaded (the engine pages
        # newest first by id): as quick at row 99,800 as at row 0.
        after = self.model.rows[offset - 1].id if 0 < offset <= len(self.model.rows) else None
        args = (self.ctx.engine, self.model, self.agent, category, status, limit, offset, after)

        def start() -> None:
            self.ctx.runner.read(
                fetch_page,
                *args,
                on_result=lambda page: self._page_loaded(generation, *page),
                on_error=lambda _e: self.model.page_failed(generation),
            )

        # The view asks for the page while it scrolls to the bottom; the worker
        # (~10 ms of Python per page) starts once that frame is painted, so the
        # paint does not share the cores and the GIL with it (steps that started
        # a fetch were the slowest: ~9 ms of CPU, 30-40 ms wall at load 3).
        QTimer.singleShot(0, self, start)

    def _page_loaded(
        self, generation: int, rows: list[Any], cells: Any = None, chars: str = ""
    ) -> None:
        first = not self.model.rows
        if not self.model.add_page(generation, rows, cells):
            return
        self.warmer.add(chars)
        if first and rows:
            self._fit_columns(rows[0])
        self._update_count()
        if self._wants_more():
            self.model.fetchMore()
            return
        # A load ends with the selected memory's detail drawn (or nothing selected);
        # pages that scrolling brings in leave the selection alone.
        if self._loading and not self._reselect():
            self._finish_load()

    def _fit_columns(self, row: Any) -> None:
        """Size the narrow columns to their header and a typical value (the text
        column takes the rest); measured once, never from every row."""
        metrics = self.table.fontMetrics()
        from app import CATEGORIES, STATUSES

        known = {1: CATEGORIES, 6: STATUSES}  # every value these columns can show
        for col in (0, 1, 3, 4, 5, 6, 7):
            column = MEMORY_COLUMNS[col]
            values = [word(v) for v in known[col]] if col in known else [column.display(row)]
            wide = max(metrics.horizontalAdvance(v) for v in [tr(column.header), *values])
            # Narrow columns stay narrow: the text column is what the owner reads.
            self.table.setColumnWidth(col, min(wide + 20, 120))

    def _wants_more(self) -> bool:
        return (
            self.proxy.rowCount() < AUTO_FILL_ROWS
            and len(self.model.rows) < AUTO_FILL_LIMIT
            and self.model.canFetchMore()
        )

    def _update_count(self) -> None:
        shown, total = self.proxy.rowCount(), self.model.total
        if self.waiting_box.isChecked():
            self.count_label.setText(
                (
                    tr("{n} memory waiting to be embedded")
                    if total == 1
                    else tr("{n} memories waiting to be embedded")
                ).format(n=f"{total:,}")
            )
            return
        self.count_label.setText(
            tr("{shown} of {total} memories").format(shown=f"{shown:,}", total=f"{total:,}")
        )

    # -- selection and detail -------------------------------------------------------

    def _reselect(self) -> bool:
        """Select the memory shown before (or the first); True if its detail is loading."""
        if self.selected_id is None:
            if not self.proxy.rowCount():
                self.detail.show_detail(None)
                return False
            self.selected_id = self.proxy.row_at(0).id
        i = self.model.find(lambda m: m.id == self.selected_id)
        proxy_index = self.proxy.mapFromSource(self.model.index(i, 0)) if i >= 0 else None
        if proxy_index is not None and proxy_index.isValid():
            self.table.blockSignals(True)
            self.table.selectionModel().blockSignals(True)
            self.table.selectRow(proxy_index.row())
            self.table.selectionModel().blockSignals(False)
            self.table.blockSignals(False)
            self.table.scrollTo(proxy_index)
        self.show_memory(self.selected_id)
        return True

    def _row_changed(self, current: Any, _previous: Any) -> None:
        if not current.isValid():
            return
        memory = self.proxy.row_at(current.row())
        if memory is not None:
            self.show_memory(memory.id)

    def show_memory(self, memory_id: int) -> None:
        self.selected_id = memory_id
        self.ctx.runner.read(
            self.ctx.engine.memory,
            memory_id,
            on_result=self._detail_loaded,
            on_error=self._detail_failed,
        )

    def _detail_loaded(self, detail: Any) -> None:
        if detail.memory.id == self.selected_id:
            self.detail.show_detail(detail)
            if self._loading:
                self._finish_load()

    def _detail_failed(self, _exc: object) -> None:
        self.detail.show_detail(None)
        if self._loading:
            self._finish_load()

    def _open_entry(self, agent: str, entry_id: int) -> None:
        self.ctx.nav.page_requested.emit("tape", {"agent": agent, "entry": entry_id})

    # -- edit and forget --------------------------------------------------------------

    def ask_edit(self) -> None:
        detail = self.detail.detail
        if detail is None:
            return
        memory = detail.memory
        self.dialog = TextEditDialog(
            tr("Edit memory #{id}").format(id=memory.id),
            tr("Saving makes a new version; the old text stays in the history."),
            memory.text,
            tr("Save new version"),
            self,
        )
        self.dialog.accepted.connect(lambda: self._save_edit(memory.id, self.dialog.text()))
        self.dialog.open()

    def _save_edit(self, memory_id: int, text: str) -> None:
        self.ctx.runner.write(self.ctx.engine.edit_memory, memory_id, text)

    def ask_forget(self) -> None:
        detail = self.detail.detail
        if detail is None:
            return
        memory = detail.memory
        self.dialog = ConfirmDialog(
            tr("Forget memory #{id}?").format(id=memory.id),
            tr(
                "Its text is removed everywhere. A fingerprint stays so that it is not "
                "learned again. This cannot be undone."
            ),
            one_line(memory.text, 300),
            tr("Forget"),
            self,
        )
        self.dialog.accepted.connect(lambda: self._forget(memory.id))
        self.dialog.open()

    def _forget(self, memory_id: int) -> None:
        self.ctx.runner.write(self.ctx.engine.forget, memory_id)

    def dispute(self) -> None:
        """A superseded memory back as a conflict with its successor, opened in review."""
        detail = self.detail.detail
        if detail is None:
            return
        self.ctx.runner.write(
            self.ctx.engine.dispute_supersede,
            detail.memory.id,
            on_result=lambda c: self.ctx.nav.page_requested.emit(
                "conflicts", {"review": True, "conflict": c.id}
            ),
        )
