"""The base of every page: a `loaded` signal after each load, and refresh on demand."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from ..context import AppContext


class Page(QWidget):
    """A page of the main window.

    `loaded` fires each time a load finishes (data shown, or the empty state);
    `has_loaded` says whether the first one has. Screenshots and tests wait on it.
    """

    loaded = Signal()
    name = "page"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.has_loaded = False
        self._stale = True
        self._loading = False

    def refresh(self) -> None:
        """Reload what the page shows (off the GUI thread); ends with `loaded`."""
        self._finish_load()

    def dispose(self) -> None:
        """Release what Qt's parent-child deletion does not (called before deletion)."""

    def open_with(self, args: dict[str, Any]) -> None:
        """Show what a navigation asked for (filters, an entry); default: refresh."""
        self.refresh()

    def changed(self, *_: object) -> None:
        """Something this page shows changed: reload now if visible, else when shown."""
        if self.isVisible():
            self.refresh()
        else:
            self._stale = True

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._stale and not self._loading:
            self.refresh()

    def _start_load(self) -> None:
        self._stale = False
        self._loading = True

    def _finish_load(self, *_: object) -> None:
        self._loading = False
        self.has_loaded = True
        self.loaded.emit()
