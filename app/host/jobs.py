"""Background jobs of the host: the indexer, maintenance, health snapshots.

A job is a function run every `interval_s` seconds (or once, at start, when the
interval is None) on one background thread
(jobs never run at the same time, so they need no locking among themselves).
A failing run is logged and counted; the job runs again at its next time.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)


@dataclass
class Job:
    name: str
    interval_s: float | None  # None: once
    fn: Callable[[Any], object]
    next_at: float = 0.0
    runs: int = 0
    failures: int = 0
    last_error: str | None = None
    last_duration_s: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


@dataclass(frozen=True)
class JobStatus:
    name: str
    interval_s: float | None
    runs: int
    failures: int
    last_error: str | None
    last_duration_s: float | None


class Jobs:
    """A tiny scheduler: `add(name, interval_s, fn)`; `fn(engine)` runs on one thread."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def stopping(self) -> threading.Event:
        """Set once the jobs are asked to stop: a job that loops checks it."""
        return self._stop

    def add(self, name: str, interval_s: float | None, fn: Callable[[Any], object]) -> None:
        """Run `fn(engine)` now-ish and then every `interval_s` seconds (None: only this
        once). Replaces a job of the same name."""
        if interval_s is not None and interval_s <= 0:
            raise ValueError("interval_s must be positive")
        with self._lock:
            self._jobs[name] = Job(name, interval_s, fn, next_at=time.monotonic())
        self._wake.set()

    def remove(self, name: str) -> None:
        with self._lock:
            self._jobs.pop(name, None)

    def status(self) -> list[JobStatus]:
        with self._lock:
            return [
                JobStatus(j.name, j.interval_s, j.runs, j.failures, j.last_error, j.last_duration_s)
                for j in self._jobs.values()
            ]

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="tapemind-jobs", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 3.0) -> None:
        """Stop after the running job; wait for it at most `timeout` seconds (the thread
        is a daemon: a job stuck in a call does not keep the process alive)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                due = sorted(self._jobs.values(), key=lambda j: j.next_at)
            now = time.monotonic()
            if due and due[0].next_at <= now:
                self._run(due[0])
                continue
            wait = min(due[0].next_at - now, 3600.0) if due else 3600.0
            self._wake.wait(timeout=max(0.01, wait))
            self._wake.clear()

    def _run(self, job: Job) -> None:
        started = time.monotonic()
        try:
            job.fn(self._engine)
            job.last_error = None
        except Exception as exc:
            job.failures += 1
            # The type only: a message could carry text from the home.
            job.last_error = type(exc).__name__
            log.exception("host job %s failed", job.name)
        finally:
            job.runs += 1
            job.last_duration_s = time.monotonic() - started
            interval = job.interval_s
            job.next_at = math.inf if interval is None else time.monotonic() + interval
