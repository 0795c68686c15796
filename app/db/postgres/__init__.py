"""A home's database on PostgreSQL with pgvector, for memory shared by several hosts.

- `connect`: an engine on a `postgresql://` URL (psycopg 3, the `postgresql` extra).
- `schema`: the tables (from the SQLModel classes), their indexes, full-text `terms`
  columns (GIN) and the `vectors` table with an HNSW index per large agent.
- `tokens`: the engine's own full-text tokens as `tsvector` / `tsquery` values.
- `sequence`: gap-free per-agent sequence numbers under concurrent writers (row locks).
- `tape`: the storage half of an append; `fulltext`: search over `terms`;
  `vectors`: embeddings and nearest neighbours; `locks`: one writer at a time and each
  background job once across hosts; `upgrade`: the schema
  brought up to date; `triggers`: the migrations' triggers (class counts, stale fade
  times) in PL/pgSQL.

The engine opens a home on it with `tapemind init --database URL` (`app.db.store`); its
vector index is `vectors` (`app.index.database`), and every host that opens the database
serves it at once (see "Storage backends" in ARCHITECTURE.md).
"""

from app.db.postgres import vectors
from app.db.postgres.connect import engine_for
from app.db.postgres.fulltext import search
from app.db.postgres.locks import hold_job, hold_writer, job_key, release_job, try_job
from app.db.postgres.schema import FULLTEXT_TABLES, create, metadata
from app.db.postgres.sequence import reserve
from app.db.postgres.tape import StoredEntry, insert_entries
from app.db.postgres.tokens import tsquery_literal, tsvector_literal
from app.db.postgres.vectors import build_graph, nearest_in_graph, put, vector_text

__all__ = [
    "FULLTEXT_TABLES",
    "StoredEntry",
    "build_graph",
    "create",
    "engine_for",
    "hold_job",
    "hold_writer",
    "insert_entries",
    "job_key",
    "metadata",
    "nearest_in_graph",
    "put",
    "release_job",
    "reserve",
    "search",
    "try_job",
    "tsquery_literal",
    "tsvector_literal",
    "vector_text",
    "vectors",
]
