"""The indexer: drains `embed_queue` into the vector index, reconciles, and rebuilds.

Run it only in the process that owns the home (the host's job thread, or `tapemind index
run` under the home lock): two chromadb writers corrupt an index.

A run:
1. reconciles, the first time in a process (deep: the ids chromadb holds against the
   ledger `index_rows` and the database) and then every `RECONCILE_EVERY_S` or after an
   event that may have changed the live set (forget, supersede, archive, restore...) with
   cheap SQL: vectors of rows that are gone, forgotten, superseded or erased are deleted;
   live rows the index lacks are queued again;
2. drains the queue oldest first: `EMBED_BATCH` texts per embed call, one chromadb upsert
   per `CHUNK` rows, and only then, in one transaction, the ledger rows are written and
   the queue rows deleted. A kill at any point leaves rows queued (embedded again, upsert
   is idempotent) or vectors the next deep reconcile deletes, never a missing row. (On
   PostgreSQL the vectors are rows of the same database, written in the ledger's own
   transaction: a kill leaves the chunk queued, with none of its vectors.) A
   large backlog is embedded in a child process meanwhile (`offload.py`); this process
   still writes everything;
3. continues a rebuild (a new model): walks every live row by id, embeds it with the new
   model into that model's own collections (the cursor survives a kill), and when done
   switches the home to the new model and drops the old collections. While a rebuild
   runs, the drain embeds queued rows with both models.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.clock import from_iso
from app.db import dbapi
from app.errors import DiskFull
from app.index import chunks, offload, recovery, rows
from app.index.chunks import Chunk, Plan
from app.index.embedders import Embedder, EmbedderError
from app.index.rows import Item
from app.index.service import RETRIEVAL, RetrievalService
from app.index.stall import IndexStall
from app.index.vector_process import StoreFault
from app.runtime import Runtime

log = logging.getLogger(__name__)

CHUNK = 256
RECONCILE_EVERY_S = 300.0


@dataclass(frozen=True)
class IndexerStats:
    """What one indexer run did."""

    model: str
    embedded: int  # rows embedded and written (queue and rebuild)
    deleted: int  # vectors removed (forgotten, superseded, erased, gone)
    requeued: int  # live rows the index lacked, queued again by a reconcile
    rebuilt: int  # rows embedded into the new model by a rebuild
    remaining: int  # rows still queued
    seconds: float
    rows_per_s: float
    reconciled: str | None  # "deep" | "sql" | None
    switched_to: str | None  # the model a finished rebuild switched to
    stalled: str | None = None  # why nothing could be written (a `stall.REASONS` code)
    verified: int = 0  # indexed rows searched for by their own vector (background runs)
    elsewhere: bool = False  # another host of the database was indexing: nothing done here
    graphs: int = 0  # agents' own graphs built (a home on PostgreSQL: `DatabaseIndex.grow`)


def runtime_of_engine(engine_or_rt: Any) -> Runtime:
    if isinstance(engine_or_rt, Runtime):
        return engine_or_rt
    rt = getattr(engine_or_rt, "_rt", None)
    if not isinstance(rt, Runtime):
        raise TypeError("run_indexer_once needs an Engine (opened locally) or its Runtime")
    return rt


def service_of(rt: Runtime) -> RetrievalService:
    service = rt.services.get(RETRIEVAL)
    if not isinstance(service, RetrievalService):
        from app.index.service import attach

        service = attach(rt)
    return service


class IndexerRun:
    """The state of one run: the models written to and the tallies."""

    def __init__(self, rt: Runtime, service: RetrievalService, offload_from: int) -> None:
        self.rt = rt
        self.svc = service
        self.offload_from = offload_from
        with rt.read() as s:
            self.active = service.active(s)
            target = service.target(s)
        self.target_spec = target[0] if target else None
        self.target: Embedder | None = target[1] if target else None
        if self.target is not None and self.target.name == self.active.name:
            self.target_spec, self.target = None, None
        self.embedded = self.deleted = self.requeued = self.rebuilt = 0

    @property
    def models(self) -> list[Embedder]:
        return [self.active, *([self.target] if self.target is not None else [])]

    def remember_dims(self) -> None:
        with self.rt.write() as s:
            dims = rows.get_json(s, rows.META_DIMS) or {}
            new = {m.name: int(m.dim) for m in self.models}
            if any(dims.get(k) != v for k, v in new.items()):
                rows.set_json(s, rows.META_DIMS, {**dims, **new})

    # -- writing vectors -------------------------------------------------------------

    def write(self, items: Sequence[Item], models: Sequence[Embedder]) -> None:
        """Embed `items` with each model (here) and upsert them into its collections."""
        for model in models:
            plan = Plan(model, items, self.svc.known_vector)
            plan.embed_here()
            plan.upsert(self.svc.index(model))

    def delete(self, gone: Sequence[tuple[str, int]]) -> None:
        """Remove vectors from every model's collections (active, target, any other)."""
        for model in self.models:
            index = self.svc.index(model)
            for kind in ("memory", "tape"):
                ids = [i for k, i in gone if k == kind]
                if ids:
                    index.delete(kind, ids)
        self.deleted += len(gone)

    # -- reconcile --------------------------------------------------------------------

    def deep(self) -> None:
        """Compare what chromadb holds with the ledger and the database, by id and model."""
        models = {m.name for m in self.models}
        with self.rt.read() as s:
            ledger_models = set(rows.ledger_models(s))
        for name in set(self.svc.index_models()) | ledger_models:
            if name not in models:
                self.svc.forget_model(name)
                with self.rt.write() as s:
                    rows.drop_ledger(s, name)
        self.svc.prune_segment_dirs()
        for model in self.models:
            index = self.svc.index(model)
            for kind in ("memory", "tape"):
                held = index.ids(kind)
                with self.rt.read() as s:
                    ledger = rows.ledger_ids(s, model.name, kind)
                    extra = sorted(held - ledger)
                    lost = sorted(ledger - held)
                    items = rows.load_items(s, kind, extra + lost)
                dead = [(kind, i) for i in extra if i not in items or not items[i].live]
                again = [
                    (kind, i, items[i].agent_id) for i in extra + lost
                    if i in items and items[i].live
                ]  # fmt: skip
                if dead:
                    index.delete(kind, [i for _, i in dead])
                    self.deleted += len(dead)
                with self.rt.write() as s:
                    if lost:
                        dbapi(s).executemany(
                            "DELETE FROM index_rows WHERE model = ? AND kind = ? AND item_id = ?",
                            [(model.name, kind, i) for i in lost],
                        )
                    rows.requeue(s, again, self.rt.now_iso())
                self.requeued += len(again)
        self.sql(("memory", "tape"))

    def sql(self, kinds: Sequence[str]) -> None:
        """Cheap reconcile through the ledger: stale vectors out, missing rows queued."""
        with self.rt.read() as s:
            dead, changed = rows.stale(s, self.active.name, kinds)
        if dead:
            self.delete(dead)
        with self.rt.write() as s:
            rows.settle(s, [], [], dead, self.rt.now_iso(), dequeue=False)
            rows.requeue(s, changed, self.rt.now_iso())
            self.requeued += len(changed)
            self.requeued += rows.requeue_missing(s, self.active.name, self.rt.now_iso(), kinds)

    def erased(self) -> None:
        ids = list(self.svc.dirty_tape)
        self.svc.dirty_tape.difference_update(ids)
        with self.rt.read() as s:
            items = rows.load_items(s, "tape", ids)
            held = rows.indexed_among(s, "tape", ids)
        # Only rows that have a vector: an erased tool call or event never had one.
        gone = [("tape", i) for i in ids if i in held and (i not in items or not items[i].live)]
        if gone:
            self.delete(gone)
            with self.rt.write() as s:
                rows.settle(s, [], [], gone, self.rt.now_iso(), dequeue=True)

    # -- draining and rebuilding ------------------------------------------------------------

    def read_chunk(self, n: int, skip: set[tuple[str, int]]) -> Chunk | None:
        return chunks.read(self.rt, n, skip)

    def finish(self, chunk: Chunk, plans: Sequence[Plan]) -> None:
        """Write a chunk whose vectors are all filled in, then record it and dequeue it.

        Vectors in the home's database (PostgreSQL) are written in the ledger's own
        transaction. A separate store (chromadb) is written first, outside it: its
        upsert must not hold the home's write lock, and a kill between the two leaves
        vectors the ledger does not know, which the next deep reconcile deletes."""
        names = [m.name for m in self.models]
        if self.svc.vectors_in_database:
            with self.rt.write() as s, self.svc.writing_with(s):
                self._store_chunk(chunk, plans)
                rows.settle(s, names, chunk.live, chunk.gone, self.rt.now_iso(), dequeue=True)
        else:
            self._store_chunk(chunk, plans)
            with self.rt.write() as s:
                rows.settle(s, names, chunk.live, chunk.gone, self.rt.now_iso(), dequeue=True)
        self.embedded += len(chunk.live)

    def _store_chunk(self, chunk: Chunk, plans: Sequence[Plan]) -> None:
        for plan in plans:
            plan.upsert(self.svc.index(plan.model))
        if chunk.gone:
            self.delete(chunk.gone)

    def drain(self, budget: int) -> None:
        proc = self.svc.offload.for_drain(self.rt, self.models, self.offload_from)
        if proc is not None:
            offload.drain(
                proc, self.active, self.svc.offload, budget, self.read_chunk,
                lambda chunk, plan: self.finish(chunk, [plan]), self.svc.known_vector, CHUNK,
            )  # fmt: skip
            return
        while budget > 0:
            chunk = self.read_chunk(min(CHUNK, budget), set())
            if chunk is None:
                return
            plans = [Plan(model, chunk.live, self.svc.known_vector) for model in self.models]
            for plan in plans:
                plan.embed_here()
            self.finish(chunk, plans)
            budget -= len(chunk.keys)

    def rebuild(self, budget: int) -> None:
        if self.target is None:
            return
        with self.rt.read() as s:
            cursor = rows.get_json(s, rows.META_CURSOR) or {}
        done = set(cursor.get("done", []))
        for kind in ("memory", "tape"):
            while kind not in done and budget > 0:
                with self.rt.read() as s:
                    batch = rows.live_after(s, kind, int(cursor.get(kind, 0)), min(CHUNK, budget))
                if batch:
                    self.write(batch, [self.target])
                    cursor[kind] = batch[-1].id
                    self.rebuilt += len(batch)
                    budget -= len(batch)
                else:
                    # Rows added from now on are embedded into both models by the drain.
                    done.add(kind)
                    cursor["done"] = sorted(done)
                with self.rt.write() as s:
                    rows.settle(s, [self.target.name], batch, [], self.rt.now_iso(), dequeue=False)
                    rows.set_json(s, rows.META_CURSOR, cursor)
        if done != {"memory", "tape"}:
            return
        # Every live row has a vector of the new model, and the queue is empty (it was
        # drained first, into both models): switch.
        with self.rt.read() as s:
            queued = rows.queue_batch(s, 1)
        if not queued:
            self.switch()

    def switch(self) -> None:
        assert self.target is not None and self.target_spec is not None
        old, new = self.active, self.target
        with self.rt.write() as s:
            rows.set_meta(s, rows.META_EMBEDDER, self.target_spec)
            rows.set_meta(s, rows.META_TARGET, None)
            rows.set_meta(s, rows.META_CURSOR, None)
        self.svc.switch_to(new)
        self.svc.forget_model(old.name)
        with self.rt.write() as s:
            rows.drop_ledger(s, old.name)
        self.active, self.target, self.target_spec = new, None, None


# How long one run may keep starting agents' graph builds (one build always runs; on
# PostgreSQL 10,000 rows of 512 dimensions take a few seconds).
GROW_BUDGET_S = 5.0


def _grow(svc: RetrievalService, model: Embedder) -> int:
    """Agents' own graphs built for `model` (`DatabaseIndex.grow`); a failure is logged
    by its class name and tried again by the next run: searches meanwhile stay exact."""
    try:
        return int(svc.index(model).grow(GROW_BUDGET_S))
    except StoreFault as fault:
        log.warning("building agents' graphs failed (%s); the next run tries again", fault.fault)
        return 0


def run_indexer_once(
    engine_or_rt: Any,
    max_rows: int | None = None,
    *,
    reconcile: bool | None = None,
    offload_from: int | None = None,
    background: bool = False,
) -> IndexerStats:
    """Drain the embedding queue (and continue a rebuild) in the calling thread.

    Args:
        engine_or_rt: an Engine opened in this process (it must own the home) or its Runtime.
        max_rows: stop after about this many rows (None: until the queue is empty and any
            rebuild is done).
        reconcile: force (True) or skip (False) the reconcile; None: the first run in a
            process reconciles deeply, later runs every RECONCILE_EVERY_S or after events.
        offload_from: queued rows from which a local model embeds in a child process
            while this one writes (`offload.py`); None: `offload.OFFLOAD_FROM`.
        background: a host's run: after a failure it waits (1, 2, 4 … 60 s) before it
            tries again, reports a stall in the stats instead of raising, and verifies
            indexed rows when the queue is empty (`recovery.verify`).

    Returns what was done. A damaged or missing index is rebuilt from the database on
    the way (`recovery.heal`). Raises DiskFull (the disk is full) or IndexStalled (the
    store failed otherwise) when not in the background; nothing is lost either way.
    Safe to call from a background thread; runs in one process are serialised.
    """
    rt = runtime_of_engine(engine_or_rt)
    svc = service_of(rt)
    with svc.writing(wait=not background) as ours:
        if not ours:
            return _nothing_done(rt, svc, elsewhere=True)
        if background and time.monotonic() < svc.retry_at:
            return _stalled_stats(rt, svc, svc.stalls.held)
        try:
            try:
                stats = _run_once(rt, svc, max_rows, reconcile, offload_from, background)
            except StoreFault as exc:
                if not recovery.must_heal(svc, exc):
                    raise
                recovery.heal(rt, svc, exc.fault)
                stats = _run_once(rt, svc, max_rows, reconcile, offload_from, background)
        except (StoreFault, EmbedderError, DiskFull) as exc:
            stall = recovery.stalled(rt, svc, exc)
            if background:
                return _stalled_stats(rt, svc, stall)
            raise recovery.error_for(stall, str(rt.home)) from None
        recovery.recovered(rt, svc)
        return stats


def _nothing_done(
    rt: Runtime, svc: RetrievalService, *, stalled: str | None = None, elsewhere: bool = False
) -> IndexerStats:
    """The stats of a run that wrote nothing: it stalled, or another host was indexing."""
    with rt.read() as s:
        model = svc.active(s).name
        queued = rows.queue_stats(s)
    return IndexerStats(
        model=model, embedded=0, deleted=0, requeued=0, rebuilt=0,
        remaining=int(queued["memory"]) + int(queued["tape"]), seconds=0.0, rows_per_s=0.0,
        reconciled=None, switched_to=None, stalled=stalled, elsewhere=elsewhere,
    )  # fmt: skip


def _stalled_stats(rt: Runtime, svc: RetrievalService, stall: IndexStall | None) -> IndexerStats:
    return _nothing_done(rt, svc, stalled=stall.because if stall else "recovering")


def _load_aside(rt: Runtime, run: IndexerRun, offload_from: int) -> None:
    """Load the models in a thread while the reconcile waits for the vector store to
    start, when this process will embed (rows are queued, fewer than a child takes):
    the two took 1.4 s and 1.2 s one after the other in each CLI write that embeds what
    it wrote. A model that fails to load says so when the drain asks it."""
    if all(getattr(m, "loaded", True) for m in run.models):
        return
    with rt.read() as s:
        queued = rows.queue_stats(s)
    if not 0 < int(queued["memory"]) + int(queued["tape"]) < offload_from:
        return
    for model in run.models:
        if not getattr(model, "loaded", True):
            threading.Thread(
                target=_load_quietly, args=(model,), name="tapemind-model-load", daemon=True
            ).start()


def _load_quietly(model: Embedder) -> None:
    with contextlib.suppress(Exception):
        model.embed_documents(["warm-up"])


def _run_once(
    rt: Runtime,
    svc: RetrievalService,
    max_rows: int | None,
    reconcile: bool | None,
    offload_from: int | None,
    background: bool,
) -> IndexerStats:
    started = time.perf_counter()
    budget = max_rows if max_rows is not None else 1 << 62
    threshold = offload.OFFLOAD_FROM if offload_from is None else offload_from
    run = IndexerRun(rt, svc, threshold)
    if (why := recovery.needs_heal(rt, svc, run.active.name)) is not None:
        recovery.heal(rt, svc, why)
    svc.vectors.prestart()  # its start overlaps with the reconcile's SQL and embedding
    _load_aside(rt, run, threshold)
    run.remember_dims()
    mode: str | None = None
    if reconcile is not False:
        if not svc.reconciled or reconcile:
            mode = "deep"
            run.deep()
            svc.reconciled = True
            svc.memories_due = False
        elif svc.memories_due or time.monotonic() - svc.last_reconcile > RECONCILE_EVERY_S:
            mode = "sql"
            kinds = ("memory", "tape") if not svc.memories_due else ("memory",)
            if time.monotonic() - svc.last_reconcile > RECONCILE_EVERY_S:
                kinds = ("memory", "tape")
            svc.memories_due = False
            run.sql(kinds)
        if mode is not None:
            svc.last_reconcile = time.monotonic()
    if svc.dirty_tape:
        run.erased()
    before = run.embedded
    run.drain(budget)
    run.rebuild(budget - (run.embedded - before))
    switched = run.active.name if run.rebuilt and run.target is None else None
    with rt.read() as s:
        queued = rows.queue_stats(s)
    remaining = int(queued["memory"]) + int(queued["tape"])
    if not remaining:
        svc.offload.stop()  # the backlog is drained: the child's memory goes back
    verified = 0
    if background and not remaining and run.target is None and run.embedded == before:
        verified, _ = recovery.verify(rt, svc, run.active, recovery.VERIFY_BATCH)
    # A host's runs and a whole `index run` build agents' graphs; a command's own small
    # drain of what it just wrote does not (the first look counts every agent's rows).
    grows = (background or max_rows is None) and not remaining and run.target is None
    graphs = _grow(svc, run.active) if grows else 0
    seconds = time.perf_counter() - started
    done = run.embedded + run.rebuilt
    stats = IndexerStats(
        model=run.active.name,
        embedded=done,
        deleted=run.deleted,
        requeued=run.requeued,
        rebuilt=run.rebuilt,
        remaining=remaining,
        seconds=round(seconds, 3),
        rows_per_s=round(done / seconds, 1) if seconds > 0 and done else 0.0,
        reconciled=mode,
        switched_to=switched,
        verified=verified,
        graphs=graphs,
    )
    if done or run.deleted or run.requeued or mode:
        with rt.write() as s:
            rows.set_json(s, rows.META_LAST_RUN, {"at": rt.now_iso(), **stats.__dict__})
    return stats


def age_seconds(rt: Runtime, oldest: str | None) -> float | None:
    if oldest is None:
        return None
    return max(0.0, (rt.clock.now() - from_iso(oldest)).total_seconds())
