"""Index status and model changes, for `Engine.index_status()` and `Engine.rebuild_index()`.

Neither opens chromadb for status: counts come from the ledger (`index_rows`) and the
queue, so `tapemind index status` is instant even at 100k rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.errors import InvalidInput
from app.index import rows
from app.index.indexer import age_seconds, service_of
from app.index.service import EMBEDDER
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
        path=str(svc.path),
        indexed=indexed,
        unembedded={"memory": queued["memory"], "tape": queued["tape"]},
        unembedded_total=int(queued["memory"]) + int(queued["tape"]),
        oldest_unembedded_age_s=age_seconds(rt, queued["oldest"]),
        rebuilding=progress,
        last_run=last,
    )


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
    embedder = svc.make(spec)
    try:
        embedder.embed_query("probe")  # fail now, not in the background
    except Exception as exc:
        raise InvalidInput(f"The embedder {spec!r} cannot embed: {exc}") from None
    if embedder.name == current.name:
        with svc.writer_lock:
            svc.forget_model(current.name)
            with rt.write() as s:
                rows.drop_ledger(s, current.name)
                rows.set_meta(s, rows.META_TARGET, None)
                rows.set_meta(s, rows.META_CURSOR, None)
                rows.requeue_missing(s, current.name, rt.now_iso())
                if model and rt.services.get(EMBEDDER) is None:
                    rows.set_meta(s, rows.META_EMBEDDER, spec)
        return status(rt)
    with svc.writer_lock, rt.write() as s:
        rows.set_meta(s, rows.META_TARGET, spec)
        rows.set_json(s, rows.META_CURSOR, {"memory": 0, "tape": 0, "done": []})
    return status(rt)
