"""A table view that does not repaint what it shows when rows arrive out of sight.

QTableView answers every row insertion with a delayed `doItemsLayout`, which
updates the scroll bars and then repaints the whole viewport. A lazily paged
table gets a page of rows each time the owner scrolls to its bottom; the page
lands below the last visible row, so that repaint draws the same screen again:
a second full repaint (~3-5 ms of GUI-thread CPU for the memory table) per page.
"""

from __future__ import annotations

import contextlib
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex
from PySide6.QtWidgets import QTableView, QWidget


class AppendingTableView(QTableView):
    """A QTableView whose layout after rows inserted below the visible ones only
    updates the scroll bars. Anything else since the last layout (a reset, a
    sort, rows removed or moved, columns changed, rows inserted at or above the
    last visible row) repaints the viewport as QTableView does."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._appended_out_of_sight = False  # rows only came below the screen since the last layout
        self._full_layout = False  # something else changed since the last layout
        self._watched: QAbstractItemModel | None = None

    def setModel(self, model: QAbstractItemModel | None) -> None:
        if self._watched is not None:
            with contextlib.suppress(RuntimeError):  # the old model may be gone already
                self._watched.rowsInserted.disconnect(self._rows_inserted)
                for signal in self._full_signals(self._watched):
                    signal.disconnect(self._needs_full_layout)
        super().setModel(model)
        self._watched = model
        self._needs_full_layout()
        if model is not None:
            model.rowsInserted.connect(self._rows_inserted)
            for signal in self._full_signals(model):
                signal.connect(self._needs_full_layout)

    @staticmethod
    def _full_signals(model: QAbstractItemModel) -> tuple[Any, ...]:
        return (
            model.modelReset,
            model.layoutChanged,
            model.rowsRemoved,
            model.rowsMoved,
            model.columnsInserted,
            model.columnsRemoved,
            model.columnsMoved,
        )

    def _needs_full_layout(self, *_: object) -> None:
        self._full_layout = True
        self._appended_out_of_sight = False

    def _rows_inserted(
        self, parent: QModelIndex | QPersistentModelIndex, first: int, _last: int
    ) -> None:
        if self._full_layout or parent.isValid():
            return
        # The last row drawn, counted before the insertion; -1 when the rows
        # end above the bottom of the viewport (new rows may then show).
        bottom = self.rowAt(self.viewport().height() - 1)
        if bottom >= 0 and first > bottom:
            self._appended_out_of_sight = True
        else:
            self._needs_full_layout()

    def doItemsLayout(self) -> None:
        quiet = self._appended_out_of_sight and not self._full_layout
        self._appended_out_of_sight = self._full_layout = False
        if quiet and self.isVisible():
            # What QAbstractItemView::doItemsLayout does, without the repaint
            # of rows that did not change: the scroll bars' ranges (the view's
            # delayed layout has already been taken off its timer).
            self.updateGeometries()
            return
        super().doItemsLayout()
