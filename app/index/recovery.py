"""What the indexer does when the vector index fails: heal it, or stall and retry.

- A damaged index (chromadb cannot read its files, or its process crashed
  `HEAL_AFTER_CRASHES` times in a row) or a missing one (the ledger records vectors, the
  directory holds none) is rebuilt from the database (`heal`): the directory is removed
  whatever is in it, the ledger emptied and every live row queued again. Semantic search
  answers from full-text until the rows are embedded again.
- Any other failure (a full disk, a store that stopped answering, an embedder that is
  down) is a stall: recorded with its reason (`stall.py`), the store process dropped so
  the next try opens the index in a fresh one (no lock or half-applied state is left from
  the failure), and the background indexer waits 1, 2, 4 … `BACKOFF_MAX_S` seconds before
  it tries again. Nothing is lost: queue rows are deleted only after their vectors are in.
- Verification (`verify`): in the background, a few hundred rows at a time, the rows the
  indexer wrote are searched for by their own vector; the ones the approximate graph does
  not find are covered by an exact pass from then on (`exact.py`), and ledger rows whose
  vector is missing are queued again.
"""

from __future__ import annotations

import time

from app.errors import DiskFull, TapemindError
from app.index import rows
from app.index.embedders import Embedder, EmbedderError
from app.index.service import RetrievalService
from app.index.stall import IndexStall, IndexStalled
from app.index.vector_process import StoreFault
from app.index.vectors import KINDS
from app.runtime import Runtime

HEAL_AFTER_CRASHES = 3
HEALING = "rebuilding from the database"  # the detail of a stall a heal records
BACKOFF_MAX_S = 60.0
VERIFY_BATCH = 256
# Faults after which the store process is kept: it did not fail, it was refused or paused.
_KEEP_STORE = ("recovering", "foreign", "mismatch", "invalid")


def reason_of(exc: BaseException) -> str:
    """The stall reason of a failed run (a code of `stall.REASONS`)."""
    if isinstance(exc, StoreFault):
        return exc.fault
    if isinstance(exc, DiskFull):
        return "disk_full"
    if isinstance(exc, EmbedderError):
        return "embedder"
    return "failed"


def detail_of(exc: BaseException) -> str:
    if isinstance(exc, StoreFault):
        return exc.detail
    return type(exc).__name__


def must_heal(svc: RetrievalService, exc: StoreFault) -> bool:
    """Whether a failure means the index must be rebuilt from the database."""
    if exc.fault == "damaged":
        return True
    held = svc.stalls.held
    crashes = svc.failures if held is not None and held.because == "crashed" else 0
    return exc.fault == "crashed" and crashes + 1 >= HEAL_AFTER_CRASHES


def needs_heal(rt: Runtime, svc: RetrievalService, model: str) -> str | None:
    """Why the index must be rebuilt before this run writes to it, if it must: the
    ledger records vectors of `model` but the directory holds no index ("missing"), its
    database file is empty or truncated, or a search found it unreadable ("damaged")."""
    with rt.read() as s:
        counts = rows.indexed_counts(s, model)
        recorded = svc.stalls.current(s)
    if not svc.vectors.present:
        return "missing" if counts["memory"] or counts["tape"] else None
    seen = svc.vectors.probe()
    if seen is not None and seen[0] == "damaged":
        return "damaged"
    if recorded is not None and recorded.because == "damaged" and recorded.detail != HEALING:
        return "damaged"
    return None


def heal(rt: Runtime, svc: RetrievalService, because: str) -> None:
    """Rebuild the index from the database: remove the directory whatever state it is
    in, forget every vector the ledger recorded, queue every live row again."""
    svc.vectors.reset()
    with rt.write() as s:
        active = svc.active(s).name
        for model in rows.ledger_models(s):
            rows.drop_ledger(s, model)
        rows.requeue_missing(s, active, rt.now_iso())
        if rows.get_meta(s, rows.META_TARGET):
            rows.set_json(s, rows.META_CURSOR, {"memory": 0, "tape": 0, "done": []})
        rows.set_json(s, rows.META_HEALED, {"at": rt.now_iso(), "because": because})
    svc.verify_cursor.clear()
    svc.reconciled = True  # an empty index: nothing to reconcile
    svc.last_reconcile = time.monotonic()
    svc.stalls.note(rt, because, HEALING)


def stalled(rt: Runtime, svc: RetrievalService, exc: BaseException) -> IndexStall:
    """Record a failed run: the stall, a fresh store for the next try, the next try's time."""
    because = reason_of(exc)
    if isinstance(exc, StoreFault) and because not in _KEEP_STORE:
        svc.vectors.drop()
    svc.failures += 1
    svc.retry_at = time.monotonic() + min(BACKOFF_MAX_S, 2.0 ** (svc.failures - 1))
    return svc.stalls.note(rt, because, detail_of(exc))


def recovered(rt: Runtime, svc: RetrievalService) -> None:
    """A run wrote what it had to: the stall is over."""
    svc.failures = 0
    svc.retry_at = 0.0
    svc.stalls.clear(rt)


def error_for(stall: IndexStall, where: str) -> TapemindError:
    """What `index run` (a person waiting for it) reads about a failed run."""
    if stall.because == "disk_full":
        return DiskFull(
            f"The disk holding the home ({where}) is full: the vector index could not be "
            "written. Nothing was lost: the rows stay queued and are embedded once there is "
            "space. Free some disk space and run `tapemind index run` again (a running host "
            "retries by itself)."
        )
    return IndexStalled(f"{stall.message('en')} ({stall.detail})")


def verify(rt: Runtime, svc: RetrievalService, model: Embedder, budget: int) -> tuple[int, int]:
    """Search for up to `budget` indexed rows by their own vector, continuing where the
    last call of this process stopped; cover the ones the graph misses and queue again
    the ones the index lacks. Returns (rows verified, rows newly covered).

    Each process verifies every row once: which rows a graph misses changes when chromadb
    loads it again (rows added since its last save are inserted anew), so rows covered
    by an earlier process stay covered and this one adds those its graph misses."""
    mine = svc.verify_cursor.setdefault(model.name, {})
    index = svc.index(model)
    done = covered = 0
    for kind in KINDS:
        if done >= budget:
            break
        with rt.read() as s:
            batch = rows.ledger_after(s, model.name, kind, mine.get(kind, 0), budget - done)
        if not batch:
            continue
        report = index.self_check(kind, [(str(a), i) for i, a in batch])
        if report["uncovered"]:
            covered += index.cover(kind, report["uncovered"])
        absent = [(kind, int(i), int(a)) for a, i in report["absent"]]
        if absent:
            with rt.write() as s:
                rows.forget_indexed(s, model.name, absent, rt.now_iso())
        mine[kind] = batch[-1][0]
        done += len(batch)
    return done, covered
