"""The vector index of a home: the retrieval service, the indexer, status and rebuild.

- `attach(rt)` registers `RetrievalService` as `rt.services["retrieval"]` (at Engine.open).
- `run_indexer_once(engine, max_rows)` drains the queue; `indexer_job()` is the host's job.
- `status(rt)` / `rebuild(rt, model)` back `tapemind index status|rebuild`.
"""

from app.index.control import IndexStatus, RebuildProgress, rebuild, status
from app.index.indexer import IndexerStats, indexer_job, indexer_loop, run_indexer_once
from app.index.service import IndexNotReady, RetrievalService, attach

__all__ = [
    "IndexNotReady",
    "IndexStatus",
    "IndexerStats",
    "RebuildProgress",
    "RetrievalService",
    "attach",
    "indexer_job",
    "indexer_loop",
    "rebuild",
    "run_indexer_once",
    "status",
]
