"""`tapemind index check [--repair]`: does the vector index hold what the ledger says?

Measured, per kind, for the model queries use:
- every ledger row (`index_rows`) has its vector, and every vector its ledger row;
- the index's model and dimension are the embedder's, and a sample of stored vectors
  is what the model gives for the row's text today ("drifted" otherwise);
- each row is found by its own vector (the whole index, or a sample: `sample`); a row
  the approximate graph misses is "unfindable", and "uncovered" until the exact pass of
  `exact.py` compares it with every query;
- live rows neither indexed nor queued (`unqueued`);
- whether the directory is there, readable, and this home's.

`repair` fixes what it found: a missing, damaged, foreign or mismatched index is rebuilt
from the database (`recovery.heal`); otherwise vectors without a row go, rows without a
vector are queued again (the indexer's deep reconcile), unfindable rows are covered and
drifted and unqueued rows are queued. The host runs a cheap check (a sample) at start.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from app.index import recovery, rows
from app.index.embedders import Embedder
from app.index.indexer import IndexerRun, service_of
from app.index.offload import OFFLOAD_FROM
from app.index.service import AnyIndex, RetrievalService
from app.index.vector_process import StoreFault
from app.index.vectors import KINDS
from app.runtime import Runtime

_SELF_BATCH = 256
DRIFT_SAMPLE = 8  # rows per kind re-embedded to compare with their stored vector
# More unfindable rows than this share of those searched means a damaged graph, not the
# approximate search's misses (0.04 % measured on a clean index of text vectors; a few
# per cent on random vectors, which a graph finds hardest).
DAMAGED_SHARE = 0.5
# Problems that only a rebuild from the database repairs.
REBUILD_FOR = ("missing", "damaged", "foreign", "mismatch", "crashed")


@dataclass(frozen=True)
class KindCheck:
    """What the check found for one kind (memory or tape)."""

    ledger: int  # rows the ledger records as indexed
    vectors: int  # vectors the index holds
    without_vector: int  # ledger rows whose vector is missing
    without_ledger: int  # vectors no ledger row records
    checked: int  # rows searched for by their own vector
    unfindable: int  # of those, rows the approximate graph does not find
    uncovered: int  # of those, rows not yet compared exactly with every query
    drifted: int = 0  # sampled rows whose stored vector is not the model's for their text


@dataclass(frozen=True)
class IndexCheck:
    """The result of `Engine.check_index`: `clean` when nothing needs repair."""

    model: str
    dim: int
    path: str
    problem: str | None  # a `stall.REASONS` code when the index cannot be used
    detail: str
    kinds: Mapping[str, KindCheck]
    unqueued: int  # live rows neither indexed nor queued
    sampled: bool  # `checked` is a sample, not every row
    repaired: Mapping[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return (
            self.problem is None
            and self.unqueued == 0
            and all(
                not (k.without_vector or k.without_ledger or k.uncovered or k.drifted)
                for k in self.kinds.values()
            )
        )

    def summary(self) -> str:
        """One line for a log or a terminal."""
        if self.problem is not None:
            return f"{self.problem}: {self.detail}"
        parts = [
            f"{kind} {k.vectors}/{k.ledger} vectors, {k.without_vector} without vector, "
            f"{k.without_ledger} without row, {k.unfindable} of {k.checked} unfindable "
            f"({k.uncovered} uncovered), {k.drifted} drifted"
            for kind, k in self.kinds.items()
        ]
        return "; ".join(parts) + f"; {self.unqueued} live rows not queued"


def check(rt: Runtime, *, sample: int | None = None, repair: bool = False) -> IndexCheck:
    """Measure the index (every row, or `sample` rows per kind) and, with `repair`,
    fix what was found; the report is then that of a second check after the repair."""
    svc = service_of(rt)
    started = time.perf_counter()
    with svc.writing():  # no indexer run writes meanwhile, here or on another host
        found, unfindable = _measure(rt, svc, sample)
        if repair and not found.clean:
            done = _repair(rt, svc, found, unfindable)
            found, _ = _measure(rt, svc, sample)
            found = _with(found, repaired=done)
    return _with(found, seconds=round(time.perf_counter() - started, 3))


def _with(report: IndexCheck, **changes: object) -> IndexCheck:
    from dataclasses import replace

    return replace(report, **changes)  # type: ignore[arg-type]


Found = dict[str, list[tuple[str, int]]]  # kind -> rows (agent, id) to fix


def _measure(
    rt: Runtime, svc: RetrievalService, sample: int | None
) -> tuple[IndexCheck, dict[str, Found]]:
    with rt.read() as s:
        model = svc.active(s)
        ledger = {kind: rows.ledger_agents(s, model.name, kind) for kind in KINDS}
        unqueued = rows.count_missing(s, model.name)
    empty: dict[str, KindCheck] = {
        k: KindCheck(len(ledger[k]), 0, len(ledger[k]), 0, 0, 0, 0) for k in KINDS
    }
    base = IndexCheck(
        model.name, int(model.dim), svc.location, None, "", empty, unqueued, sample is not None
    )
    if any(ledger.values()) and not svc.vectors.present:
        return _with(base, problem="missing", detail=f"{svc.location} holds no index"), {}
    owner = svc.vectors.owner()
    if owner is not None and svc.vectors.home_id and owner != svc.vectors.home_id:
        detail = f"the index belongs to home {owner}"
        return _with(base, problem="foreign", detail=detail), {}
    kinds: dict[str, KindCheck] = {}
    fix: dict[str, Found] = {"unfindable": {}, "drifted": {}}
    try:
        dims = svc.index_models()
        if model.name in dims and dims[model.name] != int(model.dim):
            detail = f"{model.name} vectors of dimension {dims[model.name]}, not {model.dim}"
            return _with(base, problem="mismatch", detail=detail), {}
        index = svc.index(model)
        for kind in KINDS:
            kinds[kind], fix["unfindable"][kind], fix["drifted"][kind] = _kind(
                rt, index, model, kind, ledger[kind], sample
            )
    except StoreFault as exc:
        return _with(base, problem=exc.fault, detail=exc.detail), {}
    checked = sum(k.checked for k in kinds.values())
    missed = sum(k.unfindable for k in kinds.values())
    report = _with(base, kinds=kinds)
    if checked >= 10 and missed > DAMAGED_SHARE * checked:
        detail = f"{missed} of {checked} rows cannot be found by their own vector"
        return _with(report, problem="damaged", detail=detail), fix
    return report, fix


def _kind(
    rt: Runtime,
    index: AnyIndex,
    model: Embedder,
    kind: str,
    ledger: dict[int, int],
    sample: int | None,
) -> tuple[KindCheck, list[tuple[str, int]], list[tuple[str, int]]]:
    held = index.ids(kind)
    both = sorted(set(ledger) & held)
    chosen = both if sample is None or sample >= len(both) else random.sample(both, sample)
    unfindable: list[tuple[str, int]] = []
    uncovered = 0
    for start in range(0, len(chosen), _SELF_BATCH):
        part = [(str(ledger[i]), i) for i in chosen[start : start + _SELF_BATCH]]
        report = index.self_check(kind, part)
        unfindable.extend(report["unfindable"])
        uncovered += len(report["uncovered"])
    drifted = _drifted(rt, index, model, kind, [(str(ledger[i]), i) for i in both])
    drifted_rows = [(str(ledger[i]), i) for i in drifted]
    result = KindCheck(
        ledger=len(ledger),
        vectors=len(held),
        without_vector=len(set(ledger) - held),
        without_ledger=len(held - set(ledger)),
        checked=len(chosen),
        unfindable=len(unfindable),
        uncovered=uncovered,
        drifted=len(drifted),
    )
    return result, unfindable, drifted_rows


def _drifted(
    rt: Runtime, index: AnyIndex, model: Embedder, kind: str, rows_: list[tuple[str, int]]
) -> list[int]:
    """Sampled rows whose stored vector is not what the model gives for their text."""
    if not rows_:
        return []
    picked = random.sample(rows_, min(DRIFT_SAMPLE, len(rows_)))
    stored = index.vectors(kind, picked)
    with rt.read() as s:
        items = rows.load_items(s, kind, list(stored))
    ids = [i for i in stored if i in items and items[i].live]
    if not ids:
        return []
    fresh = np.asarray(model.embed_documents([items[i].text for i in ids]), dtype=np.float32)
    out = []
    for row, vector in zip(ids, fresh, strict=True):
        old = np.asarray(stored[row], dtype=np.float32)
        norm = float(np.linalg.norm(old) * np.linalg.norm(vector))
        if norm and float(old @ vector) / norm < 0.99:
            out.append(row)
    return out


def _repair(
    rt: Runtime,
    svc: RetrievalService,
    found: IndexCheck,
    fix: dict[str, Found],
) -> dict[str, int]:
    if found.problem in REBUILD_FOR:
        recovery.heal(rt, svc, found.problem or "damaged")
        return {"rebuilt": 1}
    if found.problem is not None:
        return {}  # a full disk or a store that does not answer: nothing to repair here
    run = IndexerRun(rt, svc, OFFLOAD_FROM)
    run.deep()  # vectors without a row go, rows without a vector are queued again
    svc.reconciled = True
    index = svc.index(run.active)
    unfindable = fix.get("unfindable", {})
    covered = sum(index.cover(kind, pairs) for kind, pairs in unfindable.items() if pairs)
    drifted = [(k, i, int(a)) for k, pairs in fix.get("drifted", {}).items() for a, i in pairs]
    with rt.write() as s:
        rows.forget_indexed(s, run.active.name, drifted, rt.now_iso())
        queued = rows.requeue_missing(s, run.active.name, rt.now_iso())
    return {
        "deleted": run.deleted,
        "requeued": run.requeued + queued + len(drifted),
        "covered": covered,
    }
