"""The vector store in a process of its own: chromadb never runs in the host.

Why: chromadb's calls hold the GIL for their whole length (measured: a Python thread of
the same process got 1.5 % of its usual turns during an upsert), and after a write failed
on a full disk, the next upsert waited forever on a lock the failed write had left in
`chroma.sqlite3`: the whole host froze with it, readers, the event loop and the signal
handlers that should have stopped it. A damaged HNSW file can also crash the process that
reads it. In a child process a stuck or crashed store costs only the child:

- every call waits at most its own `patience`, then the caller gets a `StoreFault`
  (a search falls back to full-text, the indexer backs off and retries);
- a request older than its `limit` gets the child killed (by the reader thread, whoever
  is waiting), and the next call starts a new child, which opens the index afresh;
- a child that died or was killed is restarted after a pause that doubles with each death
  in a row (1 s, 2 s, … `RESTART_MAX_S`), so a store that crashes on open is not
  restarted in a loop; calls meanwhile are refused at once.

The child is never a fork of the host (the host has threads; a forked copy would inherit
locks some other thread held): on Linux it is forked from multiprocessing's fork server,
a single-threaded process that imported chromadb once (a new store starts in ~0.3 s
instead of ~4 s for a spawned one on the 2-core test machine, which matters for a store
restarted after a fault); elsewhere, and in a frozen build, it is spawned. It is a
daemon: it never outlives a host that exits, and it ends by itself when the host dies
(its end of the pipe closes).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import sys
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.index import vector_child

log = logging.getLogger(__name__)

# Spawning, importing chromadb and opening a large index: added to the first call's limit.
START_LIMIT_S = 120.0
RESTART_MAX_S = 60.0
_POLL_S = 0.25

FAULTS = (
    "disk_full",  # the disk holding the index is full
    "damaged",  # chromadb cannot read its files
    "mismatch",  # the index holds this model's vectors with another dimension
    "invalid",  # a caller's mistake (wrong shapes)
    "failed",  # any other error chromadb raised
    "not_answering",  # the store took longer than the call's limit: it was stopped
    "crashed",  # the store's process died
    "recovering",  # a new store process starts after a pause
    "foreign",  # the index belongs to another home's database
)


class StoreFault(RuntimeError):
    """The vector store could not answer. `fault` is one of `FAULTS`; the message says
    what happened, in words from chromadb and this module only (never row text)."""

    def __init__(self, fault: str, detail: str) -> None:
        super().__init__(detail)
        self.fault = fault
        self.detail = detail


@dataclass
class _Request:
    op: str
    deadline: float
    future: Future[Any] = field(default_factory=Future)


def _context() -> Any:
    """Where store processes come from (see the module's docstring)."""
    import multiprocessing

    if sys.platform.startswith("linux") and not getattr(sys, "frozen", False):
        ctx = multiprocessing.get_context("forkserver")
        # "__main__" too: else each store process imports the program's main module again.
        ctx.set_forkserver_preload(["__main__", "app.index.vector_child", "chromadb"])
        return ctx
    return multiprocessing.get_context("spawn")


class _Child:
    """One store process, its pipe, and the thread that reads its answers."""

    def __init__(self, path: Path) -> None:
        ctx = _context()
        host_end, child_end = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(
            target=vector_child.serve,
            args=(child_end, str(path), vector_child.settings()),
            name="tapemind-vectors",
            daemon=True,
        )
        try:
            self.proc.start()
        except Exception as exc:
            host_end.close()
            child_end.close()
            raise StoreFault("crashed", f"could not start: {type(exc).__name__}: {exc}") from None
        child_end.close()  # ours is the only end left here: EOF reaches us when it dies
        self.conn = host_end
        self.calls = 0
        self.dead: StoreFault | None = None
        self._pending: dict[int, _Request] = {}
        self._lock = threading.Lock()
        self._send = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="tapemind-vectors", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int | None:
        pid: int | None = self.proc.pid
        return pid

    def call(self, rid: int, op: str, args: tuple[Any, ...], patience: float, limit: float) -> Any:
        if self.dead is not None:
            raise self.dead
        self.calls += 1
        request = _Request(op, time.monotonic() + limit)
        with self._lock:
            self._pending[rid] = request
        if not self._send.acquire(timeout=patience):
            raise StoreFault(
                "not_answering", f"the vector store is still busy after {patience:.0f} s"
            )
        try:
            if self.dead is not None:
                raise self.dead
            self.conn.send((rid, op, args))
        except (OSError, ValueError, EOFError) as exc:
            self.kill(StoreFault("crashed", f"its pipe broke ({type(exc).__name__})"))
            raise self.dead or StoreFault("crashed", "its pipe broke") from None
        finally:
            self._send.release()
        try:
            return request.future.result(timeout=patience)
        except FutureTimeout:
            # The request stays pending: the reader kills the store if it outlives its limit.
            if patience >= limit:
                self.kill(StoreFault("not_answering", f"a {op} took longer than {limit:.0f} s"))
            raise StoreFault(
                "not_answering", f"the vector store did not answer a {op} within {patience:.0f} s"
            ) from None

    def _read(self) -> None:
        try:
            while self.dead is None:
                try:
                    ready = self.conn.poll(_POLL_S)
                except (OSError, EOFError, ValueError):
                    ready = False
                    if self.dead is None:
                        self.kill(self._death())
                    return
                if ready:
                    self._answer()
                elif not self.proc.is_alive():
                    self.kill(self._death())
                else:
                    self._watch()
        finally:
            with contextlib.suppress(OSError):
                self.conn.close()

    def _answer(self) -> None:
        try:
            rid, status, *rest = self.conn.recv()
        except Exception:  # EOF, or a truncated answer from a process killed mid-send
            self.kill(self._death())
            return
        with self._lock:
            request = self._pending.pop(rid, None)
        if request is None or request.future.done():
            return
        if status == "ok":
            request.future.set_result(rest[0])
        else:
            request.future.set_exception(StoreFault(str(rest[0]), str(rest[1])))

    def _watch(self) -> None:
        now = time.monotonic()
        with self._lock:
            late = [r for r in self._pending.values() if r.deadline < now]
        if late:
            self.kill(StoreFault("not_answering", f"a {late[0].op} outlived its time limit"))

    def _death(self) -> StoreFault:
        self.proc.join(0.5)
        code = self.proc.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        return StoreFault("crashed", f"the vector store process ended ({how})")

    def kill(self, fault: StoreFault) -> None:
        """End the process now; every waiting call gets `fault`."""
        with self._lock:
            if self.dead is None:
                self.dead = fault
            pending, self._pending = self._pending, {}
        with contextlib.suppress(Exception):
            self.proc.kill()
        for request in pending.values():
            if not request.future.done():
                request.future.set_exception(self.dead)

    def stop(self, timeout: float) -> None:
        """Ask the process to close its index and end; killed if it does not in time."""
        if self.dead is None and self._send.acquire(timeout=timeout):
            try:
                with contextlib.suppress(OSError, ValueError, EOFError):
                    self.conn.send((-1, "stop", ()))
            finally:
                self._send.release()
            self.proc.join(timeout)
        self.kill(StoreFault("recovering", "the vector store was stopped"))
        self.proc.join(timeout)
        self._reader.join(timeout)


class VectorProcess:
    """The host's handle on its vector store process (started on the first call).

    Thread-safe: calls from the query threads and the indexer go out in the order they
    come and the child answers them one by one.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.started = 0  # store processes started by this handle
        self._child: _Child | None = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._deaths = 0  # in a row, without an answer since
        self._restart_at = 0.0
        self.closed = False

    @property
    def deaths(self) -> int:
        """Store processes that died or were stopped in a row, without an answer since."""
        return self._deaths + (1 if self._child is not None and self._child.dead else 0)

    @property
    def pid(self) -> int | None:
        """The running store process's id (None when none runs)."""
        child = self._child
        return child.pid if child is not None and child.dead is None else None

    def _current(self) -> _Child:
        with self._lock:
            if self.closed:
                raise StoreFault("recovering", "the index is closed")
            child = self._child
            if child is not None and child.dead is not None:
                self._deaths += 1
                pause = min(RESTART_MAX_S, 2.0 ** (self._deaths - 1))
                self._restart_at = time.monotonic() + pause
                log.warning(
                    "vector store stopped (%s); a new one starts in %.0f s", child.dead, pause
                )
                child, self._child = None, None
            if child is None:
                if time.monotonic() < self._restart_at:
                    raise StoreFault("recovering", "the vector store restarts in a moment")
                child = self._child = _Child(self.path)
                self.started += 1
            return child

    def prestart(self) -> None:
        """Start the store process now, on a thread of its own, when none runs: its
        imports (chromadb: a second or more of CPU) overlap with the caller's work until
        its first call (embedding, a full-text query). It opens nothing yet."""
        if self._child is not None or self.closed or time.monotonic() < self._restart_at:
            return

        def start() -> None:
            with contextlib.suppress(StoreFault):
                self._current()

        threading.Thread(target=start, name="tapemind-vectors-start", daemon=True).start()

    def call(self, op: str, *args: Any, patience: float, limit: float) -> Any:
        """Run `op` in the store; its result. Raises StoreFault when the store answered
        with an error, did not answer within `patience` seconds, or died."""
        child = self._current()
        if child.calls == 0:
            patience, limit = patience + START_LIMIT_S, limit + START_LIMIT_S
        result = child.call(next(self._ids), op, args, patience, limit)
        self._deaths = 0
        return result

    def drop(self) -> None:
        """Stop the store process (a failed write: the next call opens the index in a
        fresh one, with no lock or half-applied state left from the failure)."""
        with self._lock:
            child, self._child = self._child, None
        if child is not None:
            child.kill(StoreFault("recovering", "the vector store was restarted"))
            child.proc.join(2.0)

    def stop(self, timeout: float = 2.0) -> None:
        """Close the index and end the process (waits at most about 2 x `timeout`)."""
        with self._lock:
            child, self._child = self._child, None
        if child is not None:
            child.stop(timeout)

    def close(self) -> None:
        """`stop`, and refuse calls from now on."""
        self.closed = True
        self.stop()
