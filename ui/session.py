"""One open home in the app: engine, pools, bridge, window; and page screenshots."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from .bridge import EngineBridge
from .context import AppContext, Navigator
from .passphrase import PassphrasePrompt
from .window import MainWindow
from .workers import Runner

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app import Engine

SCREENSHOT_TIMEOUT_MS = 30000


class Session:
    """Owns what the app opened; `close()` waits for workers and closes the engine."""

    def __init__(
        self,
        engine: Engine,
        page: str = "dashboard",
        tray: bool = True,
        prompts: bool | None = None,
    ) -> None:
        self.engine = engine
        self.runner = Runner()
        self.bridge = EngineBridge(engine)
        self.ctx = AppContext(engine, self.runner, self.bridge, Navigator())
        prompts = tray if prompts is None else prompts
        self.window = MainWindow(self.ctx, page=page, tray=tray, prompts=prompts)
        self.passphrase = PassphrasePrompt(self.window)
        engine.use_passphrase_prompt(self.passphrase.provider if prompts else None)

    def wait_loaded(self, timeout_ms: int = SCREENSHOT_TIMEOUT_MS) -> bool:
        """Run the event loop until the current page has loaded and no job is running."""
        loop = QEventLoop()
        page = self.window.current_page()

        def check(*_: object) -> None:
            if page.has_loaded and self.runner.pending == 0:
                loop.quit()

        page.loaded.connect(check)
        self.runner.busy_changed.connect(check)
        timer = QTimer()
        timer.setSingleShot(True)
        timer.timeout.connect(loop.quit)
        timer.start(timeout_ms)
        check()
        if page.has_loaded and self.runner.pending == 0:
            ok = True
        else:
            loop.exec()
            ok = page.has_loaded and self.runner.pending == 0
        page.loaded.disconnect(check)
        self.runner.busy_changed.disconnect(check)
        QApplication.processEvents()
        return ok

    def screenshot(
        self, path: Path, width: int = 1280, height: int = 820, review: bool = False
    ) -> bool:
        """Render the current page once loaded and save it; False if it never loaded.

        `review`: the picture is of the page's review dialog (conflicts, insights; sized width x
        height) that the Conflicts or Insights page opened; False if it has none open.
        """
        self.window.resize(width, height)
        self.window.show()
        if not self.wait_loaded():
            return False
        widget: QWidget = self.window
        if review:
            from .pages.conflicts import ConflictsPage
            from .pages.insights import InsightsPage

            page = self.window.current_page()
            if not isinstance(page, ConflictsPage | InsightsPage) or page.review is None:
                return False
            widget = page.review
            widget.resize(width, height)
            QApplication.processEvents()
        path.parent.mkdir(parents=True, exist_ok=True)
        return bool(widget.grab().save(str(path)))

    def close(self) -> None:
        """Stop listening, let running jobs finish, destroy the widgets, close the engine.

        Qt objects are destroyed here, on the GUI thread, rather than left to
        Python's garbage collector, which may run on a worker thread: a QObject
        destroyed off its thread leaves dangling timers behind.
        """
        self.bridge.close()
        self.runner.wait()
        QApplication.sendPostedEvents()  # deliver the last results before teardown
        if self.window.tray is not None:
            self.window.tray.hide()  # then close() really closes the window
        self.window.close()
        self.window.dispose()
        for obj in (self.window, self.bridge, self.runner):
            if shiboken6.isValid(obj):
                shiboken6.delete(obj)
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()  # collect Qt wrappers in cycles now, on the GUI thread
        self.engine.close()
