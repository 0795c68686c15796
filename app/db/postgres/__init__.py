"""A home's database on PostgreSQL with pgvector, for memory shared by several hosts.

- `connect`: an engine on a `postgresql://` URL (psycopg 3, the `postgresql` extra).
- `schema`: the tables (from the SQLModel classes), their indexes, full-text `terms`
  columns (GIN) and the `vectors` table with an HNSW index per model.

This is the storage layer only: the engine above it still speaks SQLite (see "Storage
backends" in ARCHITECTURE.md for what remains to port).
"""

from app.db.postgres.connect import engine_for
from app.db.postgres.schema import FULLTEXT_TABLES, create, ensure_vector_index, metadata

__all__ = [
    "FULLTEXT_TABLES",
    "create",
    "engine_for",
    "ensure_vector_index",
    "metadata",
]
