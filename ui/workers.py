"""Run engine calls off the GUI thread (superqt-style runnables with signals).

Reads go to a small pool; writes go to a one-thread pool so they reach the
engine in the order the owner made them. Each job's signals object is created
on the GUI thread, so its signals are queued back to the GUI thread: only the
result slots (bound methods of widgets) touch widgets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot


class WorkerSignals(QObject):
    """What a job reports: started, returned(result), errored(exception), finished."""

    started = Signal()
    returned = Signal(object)
    errored = Signal(object)
    finished = Signal()


class Worker(QRunnable):
    """One call `fn(*args, **kwargs)` on a pool thread."""

    def __init__(
        self, fn: Callable[..., Any], *args: Any, parent: QObject | None = None, **kwargs: Any
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the Runner owns it until `finished`
        # Parented (C++-owned) so that dropping the last Python reference on a
        # pool thread never destroys a GUI-thread QObject there; the Runner
        # deletes it with deleteLater on the GUI thread once `run` has returned.
        self.signals = WorkerSignals(parent)
        self.done = threading.Event()
        self._call = (fn, args, kwargs)

    def run(self) -> None:
        fn, args, kwargs = self._call
        self.signals.started.emit()
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:  # reported to the GUI, never raised into Qt
            self.signals.errored.emit(exc)
        else:
            self.signals.returned.emit(result)
        finally:
            self.signals.finished.emit()
            self.done.set()


class Runner(QObject):
    """The app's two pools. `failed` carries every error message for the status bar."""

    failed = Signal(str)
    busy_changed = Signal(int)

    def __init__(self, parent: QObject | None = None, read_threads: int = 2) -> None:
        super().__init__(parent)
        self.reads = QThreadPool(self)
        self.reads.setMaxThreadCount(read_threads)
        self.writes = QThreadPool(self)
        self.writes.setMaxThreadCount(1)
        self._active: dict[QObject, tuple[Worker, Any, Any]] = {}

    @property
    def pending(self) -> int:
        return len(self._active)

    def read(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[Any], None] | None = None,
        **kwargs: Any,
    ) -> Worker:
        """Run a read on the read pool; `on_result` gets its value on the GUI thread."""
        return self._start(self.reads, fn, args, kwargs, on_result, on_error)

    def write(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[Any], None] | None = None,
        **kwargs: Any,
    ) -> Worker:
        """Run a mutation on the one-thread write pool (in submission order)."""
        return self._start(self.writes, fn, args, kwargs, on_result, on_error)

    def _start(
        self,
        pool: QThreadPool,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        on_result: Callable[[Any], None] | None,
        on_error: Callable[[Any], None] | None,
    ) -> Worker:
        worker = Worker(fn, *args, parent=self, **kwargs)
        # Connected to the Runner's own slots (the Runner lives on the GUI thread),
        # so delivery is queued to the GUI thread whatever the callbacks are.
        worker.signals.returned.connect(self._returned)
        worker.signals.errored.connect(self._errored)
        worker.signals.finished.connect(self._finished)
        self._active[worker.signals] = (worker, on_result, on_error)
        self.busy_changed.emit(len(self._active))
        pool.start(worker)
        return worker

    def _job(self) -> tuple[Worker, Any, Any] | None:
        return self._active.get(self.sender())

    @Slot(object)
    def _returned(self, result: object) -> None:
        job = self._job()
        if job is not None and job[1] is not None:
            _deliver(job[1], result)

    @Slot(object)
    def _errored(self, exc: object) -> None:
        job = self._job()
        if job is not None and job[2] is not None:
            _deliver(job[2], exc)
        self.failed.emit(str(exc))

    @Slot()
    def _finished(self) -> None:
        job = self._active.pop(self.sender(), None)
        if job is not None:
            job[0].done.wait(5.0)  # set right after `finished` is emitted
            job[0].signals.deleteLater()
        self.busy_changed.emit(len(self._active))

    def wait(self, msecs: int = 10000) -> bool:
        """Block until both pools are idle (at shutdown)."""
        ok = self.writes.waitForDone(msecs)
        return self.reads.waitForDone(msecs) and ok


def _deliver(callback: Callable[[Any], None], value: object) -> None:
    try:
        callback(value)
    except RuntimeError as exc:
        # The widget that asked was closed (e.g. rebuilt on a language switch).
        if "already deleted" not in str(exc):
            raise
