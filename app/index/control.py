"""Index status and model changes, for `Engine.index_status()` and `Engine.rebuild_index()`.

Neither opens chromadb for status: counts come from the ledger (`index_rows`) and the
queue, so `tapemind index status` is instant even at 100k rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.clock import from_iso
from app.errors import InvalidInput
from app.index import recovery, rows
from app.index.indexer import age_seconds, service_of
from app.index.service import EMBEDDER, RetrievalService
from app.index.stall import IndexStall
from app.runtime import Runtime


@dataclass(frozen=True)
class RebuildProgress:
    """A model change under way: rows of the new model so far, of how many."""

    model: str
    spec: str
    done: Mapping[str, int]
    total: Mapping[str, int]


@dataclass(frozen=True)
class IndexStatus:
    """The vector index of a home at a glance."""

    model: str  # the model queries use
    spec: str  # the home's embedder setting (an injected embedder overrides it)
    injected: bool
    dim: int | None
    path: str
    indexed: Mapping[str, int]  # vectors held per kind (memory, tape)
    unembedded: Mapping[str, int]  # rows queued per kind
    unembedded_total: int
    oldest_unembedded_age_s: float | None
    rebuilding: RebuildProgress | None
    last_run: Mapping[str, Any] | None
    # Why the index is not keeping up, since when (None: it is): a full disk, a damaged,
    # missing or foreign index, a store that stopped answering. `stalled.message("zh")`.
    stalled: IndexStall | None = None
    healed: Mapping[str, Any] | None = None  # the last rebuild after damage: {at, because}


def current_stall(rt: Runtime) -> IndexStall | None:
    """Why the index is not keeping up, since when (None: it is), without opening it:
    what the indexer or a search recorded, or what the directory shows."""
    svc = service_of(rt)
    with rt.read() as s:
        recorded = svc.stalls.current(s)
        indexed = rows.indexed_counts(s, svc.active(s).name)
    return _stall(rt, svc, recorded, indexed)


def status(rt: Runtime) -> IndexStatus:
    svc = service_of(rt)
    with rt.read() as s:
        spec = svc.spec(s)
        active = svc.active(s)
        target = rows.get_meta(s, rows.META_TARGET)
        dims = rows.get_json(s, rows.META_DIMS) or {}
        indexed = rows.indexed_counts(s, active.name)
        queued = rows.queue_stats(s)
        last = rows.get_json(s, rows.META_LAST_RUN)
        healed = rows.get_json(s, rows.META_HEALED)
        stalled = _stall(rt, svc, svc.stalls.current(s), indexed)
        progress = None
        if target:
            name = svc.make(target).name
            progress = RebuildProgress(
                model=name,
                spec=target,
                done=rows.indexed_counts(s, name),
                total=rows.live_counts(s),
            )
    dim = dims.get(active.name)
    if dim is None and isinstance(getattr(type(active), "dim", None), int):
        dim = int(active.dim)  # a class constant: no model load, no network
    return IndexStatus(
        model=active.name,
        spec=spec,
        injected=rt.services.get(EMBEDDER) is not None,
        dim=dim,
        path=svc.location,
        indexed=indexed,
        unembedded={"memory": queued["memory"], "tape": queued["tape"]},
        unembedded_total=int(queued["memory"]) + int(queued["tape"]),
        oldest_unembedded_age_s=age_seconds(rt, queued["oldest"]),
        rebuilding=progress,
        last_run=last,
        stalled=stalled,
        healed=healed,
    )


def _stall(
    rt: Runtime, svc: RetrievalService, recorded: IndexStall | None, indexed: Mapping[str, int]
) -> IndexStall | None:
    """The recorded stall, or one the directory shows without opening the index: vectors
    recorded but no index to hold them, or an index of another home."""
    if recorded is not None:
        return recorded
    if (indexed["memory"] or indexed["tape"]) and not svc.vectors.present:
        return IndexStall(_changed_at(svc), "missing", f"{svc.location} holds no index")
    seen = svc.vectors.probe()
    if seen is not None:
        return IndexStall(_changed_at(svc), seen[0], seen[1])
    return None


def _changed_at(svc: RetrievalService) -> Any:
    """When the index directory last changed (for a stall nothing recorded)."""
    from datetime import UTC, datetime

    for path in (svc.path, svc.path.parent):
        try:
            return datetime.fromtimestamp(path.stat().st_mtime, UTC)
        except OSError:
            continue
    return from_iso("1970-01-01T00:00:00Z")


def rebuild(rt: Runtime, model: str | None = None) -> IndexStatus:
    """Re-embed every row, with `model` (an embedder spec) or the current one.

    A new model gets its own collections and is built in the background by the indexer;
    queries keep the old model until the new one holds every row, then the old one is
    dropped. The same model is dropped and rebuilt from the queue (queries fall back to
    full-text until it is back). Raises InvalidInput for an unknown or unusable model.
    """
    svc = service_of(rt)
    with rt.read() as s:
        current = svc.active(s)
    spec = (model or "").strip() or None
    if spec is None:
        with rt.read() as s:
            spec = svc.spec(s)
        embedder = current  # the model queries use now (an injected one included)
    else:
        embedder = svc.make(spec)
    try:
        embedder.embed_query("probe")  # fail now, not in the background
    except Exception as exc:
        raise InvalidInput(f"The embedder {spec!r} cannot embed: {exc}") from None
    if embedder.name == current.name:
        with svc.writing():
            # Whatever state the directory is in (truncated, deleted, written over): it
            # goes, and the indexer embeds every row again from the database.
            svc.vectors.reset()
            with rt.write() as s:
                for name in rows.ledger_models(s):
                    rows.drop_ledger(s, name)
                rows.set_meta(s, rows.META_TARGET, None)
                rows.set_meta(s, rows.META_CURSOR, None)
                rows.requeue_missing(s, current.name, rt.now_iso())
                if model and rt.services.get(EMBEDDER) is None:
                    rows.set_meta(s, rows.META_EMBEDDER, spec)
            svc.reconciled = True  # an empty index: nothing to reconcile
            svc.verify_cursor.clear()
            recovery.recovered(rt, svc)
        return status(rt)
    with svc.writing(), rt.write() as s:
        rows.set_meta(s, rows.META_TARGET, spec)
        rows.set_json(s, rows.META_CURSOR, {"memory": 0, "tape": 0, "done": []})
    return status(rt)
