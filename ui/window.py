"""The main window: a sidebar of pages, a stack, menus, the status bar and the tray."""

from __future__ import annotations

import gc
import importlib
from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QStackedWidget,
    QWidget,
)

from . import i18n, theme
from .approval import ApprovalWatcher
from .context import AppContext
from .i18n import tr
from .icons import app_icon, page_icon
from .pages.base import Page
from .tray import Tray

# name, label, and where its class lives: a page's module is imported and the
# page built the first time it is shown (or asked for), so the first paint
# pays for one page, not seven.
PAGES: tuple[tuple[str, str, str], ...] = (
    ("dashboard", "Dashboard", "dashboard:DashboardPage"),
    ("memories", "Memories", "memories:MemoriesPage"),
    ("conflicts", "Conflicts", "conflicts:ConflictsPage"),
    ("insights", "Insights", "insights:InsightsPage"),
    ("archive", "Archive", "archive:ArchivePage"),
    ("tape", "Tape", "tape:TapePage"),
    ("vault", "Vault", "vault:VaultPage"),
    ("agents", "Agents", "agents:AgentsPage"),
)
PAGE_NAMES = tuple(p[0] for p in PAGES)
PREBUILD_PAUSE_MS = 150  # between pages built in the background after the first paint


def page_class(name: str) -> type[Page]:
    where = next(p[2] for p in PAGES if p[0] == name)
    module, cls = where.split(":")
    page: object = getattr(importlib.import_module(f".pages.{module}", __package__), cls)
    assert isinstance(page, type) and issubclass(page, Page)
    return page


class Pages(dict[str, Page]):
    """The window's pages by name; a page is built when first asked for."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.window = window

    def __missing__(self, name: str) -> Page:
        if name not in PAGE_NAMES:
            raise KeyError(name)
        page = page_class(name)(self.window.ctx)
        self[name] = page
        self.window.stack.addWidget(page)
        return page


class MainWindow(QMainWindow):
    """Pages are rebuilt on a language switch so every label is retranslated."""

    language_changed = Signal(str)
    page_changed = Signal(str)

    def __init__(
        self, ctx: AppContext, page: str = "dashboard", tray: bool = True, prompts: bool = True
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self.setWindowIcon(app_icon())
        self.resize(1200, 780)
        self.setMinimumSize(QSize(900, 600))
        self.pages: dict[str, Page] = Pages(self)
        self._prebuild = QTimer(self)  # a child: it dies with the window
        self._prebuild.setSingleShot(True)
        self._prebuild.setInterval(PREBUILD_PAUSE_MS)
        self._prebuild.timeout.connect(self._prebuild_next)
        self._build(page)
        ctx.nav.page_requested.connect(self.open_page)
        ctx.nav.notice.connect(self._show_notice)
        self.waiting_count = 0
        ctx.runner.failed.connect(self._show_error)
        # How many secret requests wait, beside the status bar's messages (a click opens
        # the Vault page, where they are answered).
        self.waiting = QLabel("")
        self.waiting.setObjectName("waitingRequests")
        self.waiting.setTextFormat(Qt.TextFormat.RichText)
        self.waiting.linkActivated.connect(lambda _href: self.open_page("vault", {}))
        self.waiting.hide()
        self.statusBar().addPermanentWidget(self.waiting)
        self.tray = Tray(ctx, self) if tray and Tray.available() else None
        app = QApplication.instance()
        if self.tray is not None and isinstance(app, QApplication):
            # With a tray the app outlives its window: Quit (menu, tray, Ctrl+Q) ends it.
            app.setQuitOnLastWindowClosed(False)
        # Approval prompts pop up on their own; screenshots and most tests go without.
        self.approvals = ApprovalWatcher(ctx, self) if prompts else None
        if self.approvals is not None:
            self.approvals.waiting.connect(self._show_waiting)
        # Their first look at the engine waits for the first page's data: the
        # first paint does not share the workers with them.
        first = self.current_page()

        def first_loaded() -> None:
            first.loaded.disconnect(first_loaded)
            if self.tray is not None:
                self.tray.refresh()
            if self.approvals is not None:
                self.approvals.check()
            self._prebuild.start()

        first.loaded.connect(first_loaded)

    # -- building ---------------------------------------------------------------

    def _build(self, page: str) -> None:
        # The platform appends the application's display name to a window title that
        # differs from it ("Tapemind 记忆磁带 — Tapemind"): the two are the same words.
        QApplication.setApplicationDisplayName(tr("Tapemind"))
        self.setWindowTitle(tr("Tapemind"))
        central = QWidget()
        lay = QHBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setFixedWidth(190)
        self.sidebar.setIconSize(QSize(18, 18))
        self.stack = QStackedWidget()
        old = self.pages
        self.pages = Pages(self)
        for name, label, _where in PAGES:
            item = QListWidgetItem(page_icon(name), tr(label))
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.sidebar.addItem(item)
        self.sidebar.currentRowChanged.connect(self._on_row)
        lay.addWidget(self.sidebar)
        lay.addWidget(self.stack, 1)
        for widget in old.values():
            widget.dispose()
        self.setCentralWidget(central)  # deletes the previous pages (deleteLater)
        for widget in old.values():
            widget.deleteLater()
        if old:
            QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            gc.collect()  # here, on the GUI thread, not later on a worker thread
        self._build_menus()
        self.open_page(page, {})

    def _build_menus(self) -> None:
        bar = self.menuBar()
        bar.clear()
        app_menu = bar.addMenu(tr("&File"))
        refresh = QAction(tr("Refresh"), self)
        refresh.setShortcut("F5")
        refresh.triggered.connect(lambda: self.current_page().refresh())
        app_menu.addAction(refresh)
        quit_action = QAction(tr("Quit"), self)
        quit_action.setShortcut("Ctrl+Q")
        quit_action.triggered.connect(QApplication.quit)
        app_menu.addAction(quit_action)

        view = bar.addMenu(tr("&View"))
        lang_menu = view.addMenu(tr("Language"))
        group = QActionGroup(self)
        self.language_actions: dict[str, QAction] = {}
        for code, label in (("en", "English"), ("zh", "中文")):
            act = QAction(label, self, checkable=True)
            act.setChecked(i18n.current_language() == code)
            act.triggered.connect(lambda _=False, c=code: self.set_language(c))
            group.addAction(act)
            lang_menu.addAction(act)
            self.language_actions[code] = act
        theme_menu = view.addMenu(tr("Appearance"))
        tgroup = QActionGroup(self)
        for code, label in (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark")):
            act = QAction(tr(label), self, checkable=True)
            act.setChecked(code == (self._theme_setting() or "system"))
            act.triggered.connect(lambda _=False, c=code: self.set_theme(c))
            tgroup.addAction(act)
            theme_menu.addAction(act)
        for i, (name, label, _cls) in enumerate(PAGES):
            act = QAction(tr(label), self)
            act.setShortcut(f"Ctrl+{i + 1}")
            act.triggered.connect(lambda _=False, n=name: self.open_page(n, {}))
            self.addAction(act)

    def _prebuild_next(self) -> None:
        """Build the next page not built yet, one per pause, so that switching to
        it later is instant (a page loads its data only when shown)."""
        missing = [name for name in PAGE_NAMES if name not in self.pages]
        if missing:
            _ = self.pages[missing[0]]
            if len(missing) > 1:
                self._prebuild.start()
            else:
                # Start-up is over: what it built (modules, the engine, the pages)
                # lives as long as the app. Out of the cycle collector's reach, the
                # first full collection no longer scans it: that one paused the GUI
                # thread 120-140 ms while the memory table scrolled (when the app
                # does not serve the home; its host does the same when it does).
                gc.freeze()

    # -- navigation -------------------------------------------------------------

    def current_page(self) -> Page:
        widget = self.stack.currentWidget()
        assert isinstance(widget, Page)
        return widget

    def open_page(self, name: str, args: dict[str, Any]) -> Page:
        """Show page `name`; `args` (filters, an entry to show) go to the page."""
        page = self.pages[name]
        row = PAGE_NAMES.index(name)
        if self.sidebar.currentRow() != row:
            self.sidebar.blockSignals(True)
            self.sidebar.setCurrentRow(row)
            self.sidebar.blockSignals(False)
        if args:
            page.open_with(args)  # first: its load then replaces the one showing would start
        self.stack.setCurrentWidget(page)
        self.page_changed.emit(name)
        return page

    def _on_row(self, row: int) -> None:
        if row >= 0:
            self.open_page(PAGE_NAMES[row], {})

    # -- language, theme ---------------------------------------------------------

    def set_language(self, lang: str) -> None:
        """Switch language and rebuild the pages (each label is translated at build)."""
        current = self.stack.currentWidget()
        name = next((n for n, p in self.pages.items() if p is current), "dashboard")
        i18n.install_language(lang)
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        theme.apply_fonts(app, i18n.current_language())
        self._build(name)
        self._prebuild.start()
        if self.tray is not None:
            self.tray.retranslate()
        self._show_waiting(self.waiting_count)
        self.language_changed.emit(i18n.current_language())

    @staticmethod
    def _theme_setting() -> str | None:
        app = QApplication.instance()
        return str(app.property("tapemind_theme") or "") or None if app is not None else None

    def set_theme(self, scheme: str) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        app.setProperty("tapemind_theme", scheme)
        theme.apply_theme(app, scheme)
        current = self.stack.currentWidget()
        name = next((n for n, p in self.pages.items() if p is current), "dashboard")
        self._build(name)  # plots take their colours at build
        self._prebuild.start()
        self._show_waiting(self.waiting_count)

    def _show_error(self, message: str) -> None:
        self.statusBar().showMessage(message, 10000)

    def _show_notice(self, message: str) -> None:
        self.statusBar().showMessage(message, 20000)

    def _show_waiting(self, n: int) -> None:
        self.waiting_count = n
        if not n:
            self.waiting.hide()
            return
        said = (
            tr("{n} secret requests wait for your answer")
            if n > 1
            else tr("A secret request waits for your answer")
        )
        link = theme.colors(theme.current_scheme())["link"]
        self.waiting.setText(
            f"{said.format(n=n)} · <a href='vault' style='color:{link}'>{tr('Answer…')}</a>"
        )
        self.waiting.show()

    def dispose(self) -> None:
        """Release the pages' resources before the window is destroyed."""
        for page in self.pages.values():
            page.dispose()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.tray is not None and self.tray.isVisible():
            # Closing the window hides it; the app keeps serving its agents and the
            # tray keeps counting requests and conflicts.
            event.ignore()
            self.hide()
            self.tray.window_closed()
            return
        super().closeEvent(event)
