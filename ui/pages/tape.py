"""Tape: an agent's threads, their turns, tool calls folded; the tape around an entry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..agent_choice import choose_agent, show_agents
from ..context import AppContext
from ..i18n import counted, tr
from ..widgets import fmt_time, one_line, title_label
from .base import Page

if TYPE_CHECKING:
    from app import Engine, TapeEntry, ThreadSummary

TOOL_KINDS = ("tool_call", "tool_result")
ENTRY_ROLE = Qt.ItemDataRole.UserRole
THREADS_MAX_WIDTH = 320  # the entries keep most of a 1024-pixel window


def load_threads(
    engine: Engine, agent: str | None
) -> tuple[list[str], str | None, list[ThreadSummary]]:
    """Agent names, the agent shown and its threads, newest first (worker side)."""
    names, agent = choose_agent(engine, agent)
    if agent is None:
        return names, None, []
    return names, agent, engine.threads(agent)


def search_tape(engine: Engine, agent: str, query: str) -> list[TapeEntry]:
    """The best tape hits for `query`, as entries, best first (worker side)."""
    result = engine.search(agent, query, scope="tape", limit=50)
    return [h.entry for h in result.hits if h.entry is not None]


class TapePage(Page):
    name = "tape"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.agent: str | None = None
        self.thread_id: str | None = None
        self.anchor: int | None = None
        self.entries: list[TapeEntry] = []
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 16)
        head = QHBoxLayout()
        head.addWidget(title_label(tr("Tape")))
        head.addStretch(1)
        self.search_box = QLineEdit()
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setMinimumWidth(280)
        self.search_box.setPlaceholderText(tr("Search this agent's tape…"))
        self.search_box.returnPressed.connect(self.search)
        head.addWidget(self.search_box)
        head.addWidget(QLabel(tr("Agent")))
        self.agent_box = QComboBox()
        self.agent_box.setMinimumWidth(140)
        self.agent_box.currentIndexChanged.connect(self._agent_picked)
        head.addWidget(self.agent_box)
        root.addLayout(head)

        self.threads = QListWidget()
        self.threads.setMinimumWidth(200)  # widened to its lines by _fit_threads
        # A name too long for the column is elided, never scrolled sideways.
        self.threads.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.threads.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.threads.currentItemChanged.connect(self._thread_picked)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.banner = QLabel("")
        self.banner.setObjectName("muted")
        bar.addWidget(self.banner, 1)
        self.whole_button = QPushButton(tr("Show the whole thread"))
        self.whole_button.clicked.connect(self._whole_thread)
        self.whole_button.hide()
        bar.addWidget(self.whole_button)
        self.filter_box = QLineEdit()
        self.filter_box.setPlaceholderText(tr("Filter this thread…"))
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.setMaximumWidth(260)
        bar.addWidget(self.filter_box)
        rl.addLayout(bar)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels([tr("Time"), tr("Who"), tr("Text")])
        self.tree.setColumnWidth(0, 160)
        self.tree.setColumnWidth(1, 150)
        self.tree.setAlternatingRowColors(True)
        self.tree.currentItemChanged.connect(self._entry_picked)
        self.tree.itemActivated.connect(self._entry_activated)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setPlaceholderText(tr("Pick an entry to read it in full."))
        vsplit = QSplitter(Qt.Orientation.Vertical)
        vsplit.addWidget(self.tree)
        vsplit.addWidget(self.text)
        vsplit.setSizes([480, 160])
        rl.addWidget(vsplit, 1)
        split = QSplitter()
        split.addWidget(self.threads)
        split.addWidget(right)
        split.setSizes([230, 800])
        # The entries take what the window gains or loses; the thread list keeps its width.
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setCollapsible(0, False)
        self.split = split
        root.addWidget(split, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(250)
        self._debounce.timeout.connect(self._apply_filter)
        self.filter_box.textChanged.connect(self._debounce.start)
        ctx.bridge.tape_changed.connect(self.changed)
        ctx.bridge.agents_changed.connect(self.changed)

    # -- navigation ----------------------------------------------------------------

    def open_with(self, args: dict[str, Any]) -> None:
        """`agent` and `entry`: show the tape around that entry."""
        if args.get("agent"):
            self.agent = args["agent"]
        self.anchor = int(args["entry"]) if args.get("entry") is not None else None
        self.thread_id = None
        self.refresh()

    def refresh(self, *_: object) -> None:
        self._start_load()
        self.ctx.runner.read(
            load_threads,
            self.ctx.engine,
            self.agent,
            on_result=self._threads_loaded,
            on_error=self._finish_load,
        )

    def _threads_loaded(self, result: tuple[list[str], str | None, list[ThreadSummary]]) -> None:
        names, agent, rows = result
        self.agent = agent
        show_agents(self.agent_box, names, agent)
        self.threads.blockSignals(True)
        self.threads.clear()
        for row in rows:
            item = QListWidgetItem(
                f"{row.name}\n{counted(row.entries, tr('{n} entry'), tr('{n} entries'))} · "
                f"{fmt_time(row.last_at)}"
            )
            item.setData(ENTRY_ROLE, row.name)
            self.threads.addItem(item)
        self.threads.blockSignals(False)
        self._fit_threads()
        if agent is None:
            self._show_entries([])
            return
        if self.anchor is not None:
            self._load_around(self.anchor)
            return
        names_ = [r.name for r in rows]
        if self.thread_id not in names_:
            self.thread_id = names_[0] if names_ else None
        self._select_thread_item(self.thread_id)
        self._load_thread()

    def _fit_threads(self) -> None:
        """Widen the thread list to its lines (count and time read whole, in either
        language), up to THREADS_MAX_WIDTH; longer thread names are elided."""
        metrics = self.threads.fontMetrics()
        lines = [
            line
            for i in range(self.threads.count())
            for line in self.threads.item(i).text().split("\n")
        ]
        widest = max((metrics.horizontalAdvance(line) for line in lines), default=0)
        # the frame, the item's padding in the style sheet, and a vertical scroll bar
        chrome = (
            2 * self.threads.frameWidth() + 32 + self.threads.verticalScrollBar().sizeHint().width()
        )
        width = max(200, min(widest + chrome, THREADS_MAX_WIDTH))
        self.threads.setMinimumWidth(width)
        sizes = self.split.sizes()
        if sizes and sizes[0] < width:
            self.split.setSizes([width, max(0, sum(sizes) - width)])

    def search(self) -> None:
        """Hybrid search over this agent's tape; the hits replace the thread view."""
        query = self.search_box.text().strip()
        if not query or self.agent is None:
            return
        self.anchor = None
        self._start_load()
        self.ctx.runner.read(
            search_tape,
            self.ctx.engine,
            self.agent,
            query,
            on_result=self._show_hits,
            on_error=self._finish_load,
        )

    def _show_hits(self, entries: list[Any]) -> None:
        self.threads.clearSelection()
        self.thread_id = None
        self._show_entries(entries)
        self.banner.setText(
            counted(
                len(entries),
                tr("{n} entry matches “{query}”"),
                tr("{n} entries match “{query}”"),
                query=self.search_box.text(),
            )
        )
        self.whole_button.hide()

    def _select_thread_item(self, thread: str | None) -> None:
        self.threads.blockSignals(True)
        for i in range(self.threads.count()):
            if self.threads.item(i).data(ENTRY_ROLE) == thread:
                self.threads.setCurrentRow(i)
        self.threads.blockSignals(False)

    def _agent_picked(self) -> None:
        self.agent = self.agent_box.currentData()
        self.thread_id = None
        self.anchor = None
        self.refresh()

    def _thread_picked(self, item: QListWidgetItem | None, _prev: Any = None) -> None:
        if item is None:
            return
        self.thread_id = item.data(ENTRY_ROLE)
        self.anchor = None
        self._start_load()
        self._load_thread()

    def _whole_thread(self) -> None:
        self.anchor = None
        self._start_load()
        self._load_thread()

    def _load_thread(self) -> None:
        if self.agent is None or self.thread_id is None:
            self._show_entries([])
            return
        self.ctx.runner.read(
            self.ctx.engine.tape,
            self.agent,
            thread=self.thread_id,
            limit=1000,
            on_result=self._show_entries,
            on_error=self._finish_load,
        )

    def _load_around(self, entry_id: int) -> None:
        self.ctx.runner.read(
            self.ctx.engine.tape,
            self.agent,
            around=entry_id,
            limit=40,
            on_result=self._show_entries,
            on_error=self._finish_load,
        )

    # -- drawing ---------------------------------------------------------------------

    def _show_entries(self, entries: list[Any]) -> None:
        self.entries = entries
        self.tree.clear()
        anchor_item: QTreeWidgetItem | None = None
        turns: dict[Any, QTreeWidgetItem] = {}
        folds: dict[Any, QTreeWidgetItem] = {}
        several_threads = len({e.thread for e in entries}) > 1  # search hits
        for e in entries:
            key = (e.thread, e.turn)
            turn_item = turns.get(key)
            if turn_item is None:
                label = tr("Turn {turn}").format(turn=e.turn) if e.turn else tr("No turn")
                if several_threads:
                    label = f"{e.thread} · {label}"
                turn_item = QTreeWidgetItem([fmt_time(e.created_at), "", label])
                font = QFont(turn_item.font(0))
                font.setBold(True)
                for col in range(3):
                    turn_item.setFont(col, font)
                self.tree.addTopLevelItem(turn_item)
                turn_item.setExpanded(True)
                turns[key] = turn_item
            parent = turn_item
            if e.kind in TOOL_KINDS:
                fold = folds.get(key)
                if fold is None:
                    fold = QTreeWidgetItem(["", tr("tools"), ""])
                    turn_item.addChild(fold)
                    folds[key] = fold
                parent = fold
            who = tr(e.role) if e.kind == "message" else f"{tr(e.role)} · {tr(e.kind)}"
            text = tr("(erased)") if e.erased else one_line(e.text, 200)
            item = QTreeWidgetItem([e.created_at.astimezone().strftime("%H:%M:%S"), who, text])
            item.setData(0, ENTRY_ROLE, e.id)
            item.setToolTip(2, f"#{e.id}")
            parent.addChild(item)
            if e.id == self.anchor:
                anchor_item = item
        for key, fold in folds.items():
            n = fold.childCount()
            fold.setText(
                2,
                counted(
                    n,
                    tr("{n} tool call or result (folded)"),
                    tr("{n} tool calls and results (folded)"),
                ),
            )
            fold.setExpanded(False)
            _ = key
        if self.anchor is not None and entries:
            self.banner.setText(
                tr("Around entry #{id} in thread {thread}").format(
                    id=self.anchor, thread=entries[0].thread
                )
            )
            self.thread_id = entries[0].thread
            self._select_thread_item(self.thread_id)
            self.whole_button.show()
        else:
            count = len(entries)
            self.banner.setText(
                counted(count, tr("{n} entry"), tr("{n} entries"))
                if self.thread_id
                else tr("This agent has no tape yet.")
            )
            self.whole_button.hide()
        if anchor_item is not None:
            self._highlight(anchor_item)
        self._apply_filter()
        self._finish_load()

    def _highlight(self, item: QTreeWidgetItem) -> None:
        brush = QBrush(QColor(255, 200, 60, 90))
        for col in range(3):
            item.setBackground(col, brush)
        parent = item.parent()
        while parent is not None:
            parent.setExpanded(True)
            parent = parent.parent()
        self.tree.setCurrentItem(item)
        self.tree.scrollToItem(item)

    def anchor_item(self) -> QTreeWidgetItem | None:
        """The highlighted entry when showing the tape around one (tests, screenshots)."""
        current = self.tree.currentItem()
        if current is not None and current.data(0, ENTRY_ROLE) == self.anchor:
            return current
        return None

    def _entry_picked(self, item: QTreeWidgetItem | None, _prev: Any = None) -> None:
        if item is None or item.data(0, ENTRY_ROLE) is None:
            return
        entry_id = item.data(0, ENTRY_ROLE)
        e = next((x for x in self.entries if x.id == entry_id), None)
        if e is not None:
            head = f"#{e.id} · {e.thread} · {e.turn or ''} · {tr(e.role)} · {tr(e.kind)}\n\n"
            self.text.setPlainText(head + (tr("(erased)") if e.erased else e.text))

    def _entry_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        """Enter or double-click on an entry: the tape around it, in its thread."""
        entry_id = item.data(0, ENTRY_ROLE)
        if entry_id is not None and entry_id != self.anchor:
            self.open_with({"agent": self.agent, "entry": entry_id})

    def _apply_filter(self) -> None:
        needle = self.filter_box.text().strip().casefold()
        for turn in _children(self.tree.invisibleRootItem()):
            any_visible = False
            for child in _children(turn):
                leaves = _children(child) or [child]
                visible = False
                for leaf in leaves:
                    match = not needle or self._matches(leaf, needle)
                    leaf.setHidden(not match)
                    visible = visible or match
                child.setHidden(not visible)
                if needle and visible and child.childCount():
                    child.setExpanded(True)
                any_visible = any_visible or visible
            turn.setHidden(not any_visible)

    def _matches(self, item: QTreeWidgetItem, needle: str) -> bool:
        entry_id = item.data(0, ENTRY_ROLE)
        e = next((x for x in self.entries if x.id == entry_id), None)
        return e is not None and needle in e.text.casefold()


def _children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    return [c for k in range(item.childCount()) if (c := item.child(k)) is not None]
