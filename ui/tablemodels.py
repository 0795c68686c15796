"""Table models over lists of frozen rows, with lazy paging for long lists.

The cells live in Qt (a QStandardItemModel filled once per row): painting and
scrolling a table never calls back into Python, which is what keeps a table
of a hundred thousand memories smooth (a Python `data()` was asked a dozen
roles per visible cell on every repaint). Python runs only when rows arrive,
when a filter changes and when the owner sorts by a column.

Models never call the engine: a lazy model asks for a page with the
`page_requested` signal, and its page fills it from a worker's result slot.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QStandardItem, QStandardItemModel

from .i18n import tr

Index = QModelIndex | QPersistentModelIndex
FREEZE_AFTER_ROWS = 2000  # a lazy list this long keeps its rows out of the cycle collector
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _prototype(alignment: Qt.AlignmentFlag | None = None) -> QStandardItem:
    item = QStandardItem()
    if alignment is not None:
        item.setTextAlignment(alignment)
    return item


# Every cell is a clone of one of these (read-only; cloned on worker threads too).
_LEFT = _prototype()
_RIGHT = _prototype(RIGHT)


@dataclass(frozen=True)
class Column:
    """A column: its (English) header, how to show a row, how to sort it."""

    header: str
    display: Callable[[Any], str]
    sort: Callable[[Any], Any] | None = None
    align_right: bool = False
    tooltip: Callable[[Any], str] | None = None

    def sort_key(self, row: Any) -> Any:
        return self.sort(row) if self.sort is not None else self.display(row).casefold()


class RowsModel(QStandardItemModel):
    """A read-only table over a list of frozen dataclasses (`rows`, in model order).

    Views over it should set NoEditTriggers: the cells are plain items.
    """

    def __init__(self, columns: Sequence[Column], parent: Any = None) -> None:
        super().__init__(0, len(columns), parent)
        self.columns = list(columns)
        self.rows: list[Any] = []
        self.setHorizontalHeaderLabels([tr(c.header) for c in self.columns])

    def prepare(self, rows: Sequence[Any]) -> list[list[QStandardItem]]:
        """The cells of `rows`. Plain items, not QObjects: a worker thread may make
        them, so that formatting a page of rows costs the GUI thread nothing."""
        return [self._items(row) for row in rows]

    def _items(self, row: Any) -> list[QStandardItem]:
        items = []
        for col in self.columns:
            # A copy that C++ makes (clone) is a plain QStandardItem. An item
            # constructed from Python is a PySide wrapper: the first data() call
            # on each one, made while a row is painted for the first time, takes
            # the GIL to look for a Python override, so a paint could wait for a
            # worker thread holding it.
            item = (_RIGHT if col.align_right else _LEFT).clone()
            # Only the item's own setters: QStandardItem.setData mis-counts
            # references in this PySide6 and crashes the interpreter.
            item.setText(col.display(row))
            if col.tooltip is not None:
                item.setToolTip(col.tooltip(row))
            items.append(item)
        return items

    def _fill(self, first: int, cells: Sequence[list[QStandardItem]]) -> None:
        """Put `cells` at rows first… (the rows exist); views hear nothing."""
        self.blockSignals(True)  # one signal for the views afterwards, not one per cell
        try:
            for i, items in enumerate(cells, first):
                for c, item in enumerate(items):
                    self.setItem(i, c, item)
        finally:
            self.blockSignals(False)

    def set_rows(self, rows: Sequence[Any]) -> None:
        rows = list(rows)
        self.beginResetModel()
        self.blockSignals(True)
        self.setRowCount(0)
        self.setRowCount(len(rows))
        self.blockSignals(False)
        self.rows = rows
        self._fill(0, self.prepare(rows))
        self.endResetModel()

    def row_at(self, row: int) -> Any:
        return self.rows[row]

    def find(self, predicate: Callable[[Any], bool]) -> int:
        return next((i for i, r in enumerate(self.rows) if predicate(r)), -1)

    def replace_row(self, predicate: Callable[[Any], bool], row: Any) -> None:
        i = self.find(predicate)
        if i >= 0:
            self.rows[i] = row
            for c, item in enumerate(self._items(row)):
                self.setItem(i, c, item)


class LazyRowsModel(RowsModel):
    """Rows fetched page by page as the view scrolls (canFetchMore / fetchMore).

    `reset(total)` starts over (new filters); `page_requested(generation, offset,
    limit)` asks the owner for a page, answered with `add_page(generation, rows)`.
    Pages of an older generation (filters changed meanwhile) are dropped.
    """

    page_requested = Signal(int, int, int)

    def __init__(self, columns: Sequence[Column], page_size: int = 200, parent: Any = None):
        super().__init__(columns, parent)
        self.page_size = page_size
        self.total = 0
        self.generation = 0
        self._loading = False

    def reset(self, total: int) -> None:
        self.generation += 1
        self.total = total
        self._loading = False
        self.set_rows([])

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._loading and len(self.rows) < self.total

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        self._loading = True
        self.page_requested.emit(self.generation, len(self.rows), self.page_size)

    def add_page(
        self,
        generation: int,
        rows: Sequence[Any],
        cells: Sequence[list[QStandardItem]] | None = None,
    ) -> bool:
        """Append a fetched page (with its `cells` if a worker prepared them);
        False if it belongs to an older generation."""
        if generation != self.generation:
            return False
        self._loading = False
        if not rows:
            self.total = len(self.rows)  # the list shrank under us
            return True
        # The rows first (filters and sorting read them), then one insertion and
        # one change for the views.
        first = len(self.rows)
        self.rows.extend(rows)
        self.insertRows(first, len(rows))
        self._fill(first, cells if cells is not None else self.prepare(rows))
        last = self.index(first + len(rows) - 1, len(self.columns) - 1)
        self.dataChanged.emit(self.index(first, 0), last)
        if len(self.rows) >= FREEZE_AFTER_ROWS:
            # A long list's rows and cells (each item's PySide wrapper stays alive
            # with the model: one per cell) live until the next reset. Out of the
            # cycle collector's reach they cost nothing; left in, its full passes
            # scanned them all: scrolling to the end of 100k memories made 7 full
            # passes of 120-380 ms, on whichever thread allocated last, holding the
            # GIL the GUI thread needs. Reference counting still frees them on
            # reset (a probe found 5 unreachable objects frozen over that scroll).
            gc.freeze()
        return True

    def page_failed(self, generation: int) -> None:
        if generation == self.generation:
            self._loading = False


class RowFilterProxy(QSortFilterProxyModel):
    """Sorts by the columns' sort keys and keeps rows for which every predicate holds.

    Both run in Python, but only when rows arrive, a filter changes or the owner
    sorts: never while the view paints or scrolls.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._predicates: dict[str, Callable[[Any], bool]] = {}

    def set_predicate(self, name: str, predicate: Callable[[Any], bool] | None) -> None:
        modern = hasattr(self, "beginFilterChange")  # Qt >= 6.10 deprecates invalidateFilter
        if modern:
            self.beginFilterChange()
        if predicate is None:
            self._predicates.pop(name, None)
        else:
            self._predicates[name] = predicate
        if modern:
            self.endFilterChange()
        else:
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        if not self._predicates:
            return True
        model = self.sourceModel()
        if not isinstance(model, RowsModel) or source_row >= len(model.rows):
            return True  # a row being appended: its value is not in `rows` yet
        row = model.rows[source_row]
        return all(p(row) for p in self._predicates.values())

    def lessThan(self, left: Index, right: Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, RowsModel)
        column = model.columns[left.column()]
        a, b = model.rows[left.row()], model.rows[right.row()]
        return bool(column.sort_key(a) < column.sort_key(b))

    def row_at(self, proxy_row: int) -> Any:
        source = self.mapToSource(self.index(proxy_row, 0))
        model = self.sourceModel()
        assert isinstance(model, RowsModel)
        return model.rows[source.row()] if source.isValid() else None
