"""The tray icon: pending secret requests and open conflicts, even with the window closed.

Where the desktop has a system tray (a StatusNotifier host over D-Bus, or an
XEmbed tray), closing the window only hides it: the app keeps serving its
agents, the icon's badge, tooltip and menu keep counting what waits for the
owner, and Quit is in the tray's menu. Without a tray the app works as before
and closing the window quits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon, QWidget

from .i18n import counted, tr
from .icons import app_icon

if TYPE_CHECKING:
    from app import Engine

    from .context import AppContext


def count_pending(engine: Engine) -> tuple[int, int]:
    """(pending secret requests, open conflicts), counted without reading them."""
    return engine.count_access_requests("pending"), engine.count_conflicts(None, "open")


class Tray(QSystemTrayIcon):
    def __init__(self, ctx: AppContext, window: QWidget) -> None:
        super().__init__(app_icon(), window)
        self.ctx = ctx
        self.window = window
        self.counts: tuple[int | None, int | None] = (None, None)  # None: not counted yet
        self.told_still_running = False
        self.menu = QMenu()
        self.open_action = QAction(self.menu)
        self.open_action.triggered.connect(self._raise)
        self.requests_action = QAction(self.menu)
        self.requests_action.triggered.connect(lambda: self._go("vault", {}))
        self.conflicts_action = QAction(self.menu)
        self.conflicts_action.triggered.connect(lambda: self._go("conflicts", {"review": True}))
        self.quit_action = QAction(self.menu)
        self.quit_action.triggered.connect(QApplication.quit)
        self.menu.addAction(self.open_action)
        self.menu.addSeparator()
        self.menu.addAction(self.requests_action)
        self.menu.addAction(self.conflicts_action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.setContextMenu(self.menu)
        self.activated.connect(self._activated)
        for signal in (ctx.bridge.requests_changed, ctx.bridge.conflicts_changed):
            signal.connect(self.refresh)
        self.retranslate()
        self.show()  # counts come with refresh(), once the window's first page has loaded

    @staticmethod
    def available() -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    def refresh(self, *_: object) -> None:
        self.ctx.runner.read(count_pending, self.ctx.engine, on_result=self._show)

    def _show(self, counts: tuple[int, int]) -> None:
        before = self.counts[0] or 0
        self.counts = counts
        self.retranslate()
        requests = counts[0] or 0
        if requests > before and not self.window.isVisible():
            # The window is closed: say so where the owner can see it.
            self.showMessage(
                tr("Secret requested"),
                counted(
                    requests,
                    tr("{n} request waits for your answer."),
                    tr("{n} requests wait for your answer."),
                ),
            )

    def retranslate(self) -> None:
        requests, conflicts = self.counts
        self.open_action.setText(tr("Open Tapemind"))
        self.quit_action.setText(tr("Quit"))
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

    def window_closed(self) -> None:
        """The owner closed the window: the app stays here (said once)."""
        if not self.told_still_running:
            self.told_still_running = True
            self.showMessage(
                tr("Tapemind is still running"),
                tr("Agents can still reach their memories. Open the app or quit from this icon."),
            )

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason != QSystemTrayIcon.ActivationReason.Context:
            self._raise()

    def _raise(self) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()

    def _go(self, page: str, args: dict[str, Any]) -> None:
        self._raise()
        self.ctx.nav.page_requested.emit(page, args)
