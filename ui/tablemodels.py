"""Table models over lists of frozen rows, with lazy paging for long lists.

Models never call the engine: a lazy model asks for a page with the
`page_requested` signal, and its page fills it from a worker's result slot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)

from .i18n import tr

SORT_ROLE = Qt.ItemDataRole.UserRole
ROW_ROLE = Qt.ItemDataRole.UserRole + 1
Index = QModelIndex | QPersistentModelIndex
DISPLAY = Qt.ItemDataRole.DisplayRole
_OTHER_ROLES = frozenset(
    {SORT_ROLE, ROW_ROLE, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.TextAlignmentRole}
)


@dataclass(frozen=True)
class Column:
    """A column: its (English) header, how to show a row, how to sort it."""

    header: str
    display: Callable[[Any], str]
    sort: Callable[[Any], Any] | None = None
    align_right: bool = False
    tooltip: Callable[[Any], str] | None = None


class RowsModel(QAbstractTableModel):
    """A read-only table over a list of frozen dataclasses."""

    def __init__(self, columns: Sequence[Column], parent: Any = None) -> None:
        super().__init__(parent)
        self.columns = list(columns)
        self.rows: list[Any] = []
        self._display: dict[int, tuple[str, ...]] = {}

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Views ask for a dozen roles per visible cell on every paint: answer the
        # display role from a per-row cache and turn other roles away early.
        if role == DISPLAY:
            r = index.row()
            cached = self._display.get(r)
            if cached is None:
                if r >= len(self.rows):
                    return None
                row = self.rows[r]
                cached = tuple(col.display(row) for col in self.columns)
                self._display[r] = cached
            return cached[index.column()]
        if role not in _OTHER_ROLES or index.row() >= len(self.rows):
            return None
        row = self.rows[index.row()]
        col = self.columns[index.column()]
        if role == SORT_ROLE:
            return col.sort(row) if col.sort else col.display(row)
        if role == ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.ToolTipRole:
            return col.tooltip(row) if col.tooltip is not None else None
        if col.align_right:  # TextAlignmentRole
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return tr(self.columns[section].header)
        return None

    def set_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self._display.clear()
        self.endResetModel()

    def row_at(self, row: int) -> Any:
        return self.rows[row]

    def find(self, predicate: Callable[[Any], bool]) -> int:
        return next((i for i, r in enumerate(self.rows) if predicate(r)), -1)


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
        self.beginResetModel()
        self.generation += 1
        self.rows = []
        self._display.clear()
        self.total = total
        self._loading = False
        self.endResetModel()

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._loading and len(self.rows) < self.total

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        self._loading = True
        self.page_requested.emit(self.generation, len(self.rows), self.page_size)

    def add_page(self, generation: int, rows: Sequence[Any]) -> bool:
        """Append a fetched page; False if it belongs to an older generation."""
        if generation != self.generation:
            return False
        self._loading = False
        if not rows:
            self.total = len(self.rows)  # the list shrank under us
            return True
        first = len(self.rows)
        self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        self.rows.extend(rows)
        self.endInsertRows()
        return True

    def page_failed(self, generation: int) -> None:
        if generation == self.generation:
            self._loading = False

    def replace_row(self, predicate: Callable[[Any], bool], row: Any) -> None:
        i = self.find(predicate)
        if i >= 0:
            self.rows[i] = row
            self._display.pop(i, None)
            self.dataChanged.emit(self.index(i, 0), self.index(i, len(self.columns) - 1))


class RowFilterProxy(QSortFilterProxyModel):
    """Sorts by SORT_ROLE and keeps rows for which every predicate holds."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
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
        row = model.rows[source_row] if isinstance(model, RowsModel) else None
        return row is None or all(p(row) for p in self._predicates.values())

    def row_at(self, proxy_row: int) -> Any:
        return self.data(self.index(proxy_row, 0), ROW_ROLE)
