"""The tray icon: pending secret requests and open conflicts, even with the window closed."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QWidget

from .i18n import tr
from .icons import app_icon


def count_pending(engine: Any) -> tuple[int | None, int | None]:
    """(pending secret requests, open conflicts); None where the engine lacks the feature."""
    requests = conflicts = None
    if callable(getattr(engine, "access_requests", None)):
        requests = len(engine.access_requests(status="pending"))
    if callable(getattr(engine, "conflicts", None)):
        conflicts = sum(len(engine.conflicts(a.name, status="open")) for a in engine.agents())
    return requests, conflicts


class Tray(QSystemTrayIcon):
    def __init__(self, ctx: Any, window: QWidget) -> None:
        super().__init__(app_icon(), window)
        self.ctx = ctx
        self.window = window
        self.counts: tuple[int | None, int | None] = (None, None)
        self.menu = QMenu()
        self.open_action = QAction(self.menu)
        self.open_action.triggered.connect(self._raise)
        self.conflicts_action = QAction(self.menu)
        self.conflicts_action.triggered.connect(lambda: self._go("conflicts"))
        self.requests_action = QAction(self.menu)
        self.requests_action.triggered.connect(lambda: self._go("vault"))
        for act in (self.open_action, self.requests_action, self.conflicts_action):
            self.menu.addAction(act)
        self.setContextMenu(self.menu)
        self.activated.connect(lambda _reason: self._raise())
        for signal in (ctx.bridge.requests_changed, ctx.bridge.conflicts_changed):
            signal.connect(self.refresh)
        self.retranslate()
        self.show()
        self.refresh()

    @staticmethod
    def available() -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    def refresh(self, *_: object) -> None:
        self.ctx.runner.read(count_pending, self.ctx.engine, on_result=self._show)

    def _show(self, counts: tuple[int | None, int | None]) -> None:
        self.counts = counts
        self.retranslate()

    def retranslate(self) -> None:
        requests, conflicts = self.counts
        self.open_action.setText(tr("Open Tapemind"))
        self.requests_action.setText(
            tr("Pending requests: {n}").format(n="—" if requests is None else requests)
        )
        self.conflicts_action.setText(
            tr("Open conflicts: {n}").format(n="—" if conflicts is None else conflicts)
        )
        self.setToolTip(
            f"{tr('Tapemind')}\n{self.requests_action.text()}\n{self.conflicts_action.text()}"
        )
        self.setIcon(app_icon((requests or 0) + (conflicts or 0)))

    def _raise(self) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()

    def _go(self, page: str) -> None:
        self._raise()
        self.ctx.nav.page_requested.emit(page, {})
