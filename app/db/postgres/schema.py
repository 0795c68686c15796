"""The tables of a home on PostgreSQL, made from the same SQLModel classes as SQLite's.

The embedded home's DDL is its numbered migrations (`app.db.migrations`); they are
SQLite's dialect (FTS5 tables, triggers, `INTEGER PRIMARY KEY` as the rowid). Here the
tables come from the SQLModel metadata (`app.db.schema`) through SQLAlchemy, with what
the classes do not say written down beside them, so `tests/postgres` can compare the
result with a migrated SQLite database:

- ids are 64-bit (`BIGINT`, `BIGSERIAL` for a table's own id), as SQLite's integers are;
- a column's default is the database's too (`DEFAULT`), not only the ORM's;
- a reference to a row deletes with it (`ON DELETE CASCADE`), except where the
  migrations say otherwise (`_ON_DELETE`), and a few references SQLite has that the
  classes do not declare (`_MISSING_REFERENCES`);
- the secondary indexes of the migrations, by the same names (`_INDEXES`);
- full-text `terms` (a `tsvector`, see `tokens`) on memories and tape entries, GIN-indexed;
- `vectors`: embeddings in the same database as their rows (pgvector), with an HNSW
  index (cosine) for each agent that holds many rows of a kind (`agent_graph_name`,
  built by `app.db.postgres.vectors.build_graph`);
- the migrations' triggers, in PL/pgSQL (`triggers`).
"""

from __future__ import annotations

import hashlib
from functools import cache

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    DefaultClause,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    text,
)
from sqlalchemy.dialects.postgresql import TSVECTOR
from sqlalchemy.sql.schema import ScalarElementColumnDefault
from sqlmodel import SQLModel

import app.db.schema  # noqa: F401  (declares the tables on SQLModel's metadata)
from app.db.postgres import triggers

# References whose row outlives the row it names: the column is emptied, or (a memory's
# successor) the delete is refused while something still points at it.
_ON_DELETE = {
    ("access_requests", "secret_id"): "SET NULL",
    ("conflicts", "merged_id"): "SET NULL",
    ("decisions", "memory_id"): "SET NULL",
    ("decisions", "target_id"): "SET NULL",
    ("memories", "superseded_by"): "NO ACTION",
}
# References the migrations declare and the SQLModel classes leave out.
_MISSING_REFERENCES = (
    ("conflicts", "merged_id", "memories.id"),
    ("decisions", "memory_id", "memories.id"),
    ("decisions", "target_id", "memories.id"),
    ("memories", "superseded_by", "memories.id"),
)
# The migrations' secondary indexes: (name, table, columns, unique, partial condition).
_INDEXES: tuple[tuple[str, str, tuple[str, ...], bool, str | None], ...] = (
    ("tape_by_thread", "tape_entries", ("agent_id", "thread", "seq"), False, None),
    ("tape_by_turn", "tape_entries", ("agent_id", "turn", "seq"), False, None),
    ("tape_by_time", "tape_entries", ("agent_id", "created_at"), False, None),
    ("tape_by_source_key", "tape_entries", ("agent_id", "source_key"), True,
     "source_key IS NOT NULL"),
    ("memories_by_status", "memories", ("agent_id", "status", "id"), False, None),
    ("memories_by_category", "memories", ("agent_id", "category", "status", "id"), False, None),
    ("memories_by_hash", "memories", ("agent_id", "content_hash"), False, None),
    ("memories_by_thread", "memories", ("agent_id", "thread", "status"), False, None),
    ("memories_by_user", "memories", ("agent_id", "user", "status"), False, None),
    ("memories_by_fade", "memories", ("agent_id", "status", "fade_at"), False, None),
    ("memories_by_recall", "memories", ("agent_id", "status", "recall_count", "use_count"),
     False, None),
    ("memories_by_archived", "memories", ("agent_id", "archived_at"), False,
     "archived_at IS NOT NULL"),
    ("memories_recent_by_thread", "memories", ("agent_id", "thread", "updated_at"), False,
     None),
    ("memories_recent_by_user", "memories", ("agent_id", "user", "updated_at"), False, None),
    ("memories_core", "memories", ("agent_id", "importance", "updated_at"), False, None),
    ("memories_by_turn", "memories", ("agent_id", "turn"), False, "turn IS NOT NULL"),
    ("provenance_by_entry", "provenance", ("entry_id",), False, None),
    ("lineage_by_parent", "lineage", ("parent_id",), False, None),
    ("audit_by_agent", "audit", ("agent", "id"), False, None),
    ("embed_queue_by_age", "embed_queue", ("enqueued_at", "kind", "item_id"), False, None),
    ("embed_queue_by_agent", "embed_queue", ("agent_id", "enqueued_at"), False, None),
    ("recalls_by_agent", "recalls", ("agent_id", "at"), False, None),
    ("recall_items_by_memory", "recall_items", ("memory_id",), False, None),
    ("access_requests_by_status", "access_requests", ("status", "id"), False, None),
    ("access_requests_by_agent", "access_requests", ("agent_id", "secret_id", "status"),
     False, None),
    ("grants_by_agent", "grants", ("agent_id", "secret_id", "revoked_at"), False, None),
    ("decisions_by_agent", "decisions", ("agent_id", "at"), False, None),
    ("decisions_by_request_key", "decisions", ("agent_id", "request_key"), True,
     "request_key IS NOT NULL"),
    ("conflicts_by_agent", "conflicts", ("agent_id", "status", "created_at"), False, None),
    ("conflicts_by_memory", "conflicts", ("existing_id",), False, None),
    ("conflicts_by_challenger", "conflicts", ("challenger_id",), False, None),
    ("health_by_agent", "health_snapshots", ("agent_id", "at"), False, None),
    ("index_rows_by_agent", "index_rows", ("model", "kind", "agent_id"), False, None),
    ("skill_evidence_by_memory", "skill_evidence", ("memory_id",), False, None),
    ("insight_proposals_by_agent", "insight_proposals", ("agent_id", "status", "id"), False,
     None),
    ("insight_evidence_by_memory", "insight_evidence", ("memory_id",), False, None),
)  # fmt: skip
# Uniqueness the migrations declare inside CREATE TABLE: (table, columns).
_UNIQUE = (
    ("agents", ("name",)),
    ("tape_entries", ("agent_id", "seq")),
    ("secrets", ("name",)),
    ("skills", ("agent_id", "name")),
)
FULLTEXT_TABLES = ("memories", "tape_entries")  # the tables that carry `terms`

_VECTORS = """
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    item_id BIGINT NOT NULL,
    agent_id BIGINT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    content_hash TEXT NOT NULL,
    embedding vector NOT NULL,
    PRIMARY KEY (model, kind, item_id)
)
"""
# An HNSW index needs a fixed dimension and `vectors` holds every model's: an agent's
# graph is a partial index over the column cast to its model's dimension (a new model's
# are built beside the old one's, as in the embedded index).
_BY_AGENT = "CREATE INDEX IF NOT EXISTS vectors_by_agent ON vectors (model, kind, agent_id)"
# A 512-dimension vector is 2,056 bytes, just past the size at which PostgreSQL moves a
# value out of the row (TOAST): an agent's exact search then fetched every vector from
# the TOAST table, 16 ms for 2,000 rows. MAIN keeps it in the row (a vector too big for a
# page still goes out of line). It applies to rows written from then on.
_IN_THE_ROW = "ALTER TABLE vectors ALTER COLUMN embedding SET STORAGE MAIN"
_STATISTICS = 1000  # `app.recall.terms_column.STATISTICS` (this package does not import it)


@cache
def metadata() -> MetaData:
    """A copy of the SQLModel tables as PostgreSQL should hold them (built once, on first
    use: a home on SQLite never pays for it)."""
    md = MetaData()
    for table in SQLModel.metadata.sorted_tables:
        table.to_metadata(md)
    for table in md.tables.values():
        for column in table.columns:
            if isinstance(column.type, Integer):
                column.type = BigInteger()
            # SQLModel's defaults are applied by the ORM only; the migrations' DEFAULTs
            # also serve the raw INSERTs the hot paths write.
            if isinstance(column.default, ScalarElementColumnDefault) and isinstance(
                column.default.arg, int | float
            ):
                column.server_default = DefaultClause(text(repr(column.default.arg)))
        for fk in table.foreign_keys:
            assert fk.parent.table is table and fk.constraint is not None
            fk.constraint.ondelete = _ON_DELETE.get((table.name, fk.parent.name), "CASCADE")
    for table_name, column_name, target in _MISSING_REFERENCES:
        rule = _ON_DELETE.get((table_name, column_name), "CASCADE")
        md.tables[table_name].append_constraint(
            ForeignKeyConstraint([column_name], [target], ondelete=rule)
        )
    for table_name, unique_columns in _UNIQUE:
        table = md.tables[table_name]
        Index(
            f"{table_name}_unique_{'_'.join(unique_columns)}",
            *(table.c[c] for c in unique_columns),
            unique=True,
        )
    for index_name, table_name, index_columns, unique, where in _INDEXES:
        table = md.tables[table_name]
        Index(
            index_name,
            *(table.c[c] for c in index_columns),
            unique=unique,
            postgresql_where=text(where) if where else None,
        )
    for table_name in FULLTEXT_TABLES:
        table = md.tables[table_name]
        table.append_column(Column("terms", TSVECTOR, nullable=True))
        Index(f"{table_name}_terms", table.c.terms, postgresql_using="gin")
    return md


def create(conn: Connection) -> None:
    """Create every table, index and extension a home needs, inside the caller's
    transaction; what exists already is left as it is."""
    conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    metadata().create_all(conn)
    conn.execute(text(_VECTORS))
    # Each step below is looked up first and taken only when not yet in effect: every
    # open of a home runs this, and each takes a lock on its table that waits for (and
    # then holds off) other hosts, an agent's graph being built among them.
    if conn.execute(text("SELECT to_regclass('vectors_by_agent')")).scalar() is None:
        conn.execute(text(_BY_AGENT))
    if _column(conn, "vectors", "embedding", "attstorage") != "m":
        conn.execute(text(_IN_THE_ROW))
    for table_name in FULLTEXT_TABLES:
        # How many of the column's most common lexemes ANALYZE lists (10 x this): the
        # full-text ranking takes their counts from there (`app.recall.terms_column`).
        if _column(conn, table_name, "terms", "attstattarget") != _STATISTICS:
            conn.execute(
                text(f"ALTER TABLE {table_name} ALTER COLUMN terms SET STATISTICS {_STATISTICS}")
            )
    _drop_model_graphs(conn)
    triggers.create(conn)


def _column(conn: Connection, table: str, column: str, attribute: str) -> object:
    """One `pg_attribute` field of a column (read without locking the table)."""
    return conn.execute(
        text(
            f"SELECT {attribute} FROM pg_attribute "
            "WHERE attrelid = to_regclass(:t) AND attname = :c AND NOT attisdropped"
        ),
        {"t": table, "c": column},
    ).scalar()


def model_literal(model: str) -> str:
    """`model` as a SQL string literal: a partial index's condition cannot be a bound
    parameter, and a query matches the index only when it names the same literal."""
    return "'" + model.replace("'", "''") + "'"


def vector_index_name(model: str) -> str:
    # Model names can be long URLs; PostgreSQL names stop at 63 bytes.
    return "vectors_hnsw_" + hashlib.sha256(model.encode()).hexdigest()[:16]


# The kind's letter in an agent's graph name (names stop at 63 bytes).
KIND_LETTER = {"memory": "m", "tape": "t"}


def agent_graph_name(model: str, kind: str, agent_id: int) -> str:
    """The name of the HNSW index over agent `agent_id`'s `kind` vectors of `model`:
    the model's index name, the kind's letter and the agent's id."""
    return f"{vector_index_name(model)}_{KIND_LETTER[kind]}{int(agent_id)}"


def _drop_model_graphs(conn: Connection) -> None:
    """Drop the graph over every agent's vectors of a model that earlier versions built
    (`vectors_hnsw_` and the model's hash): agents' own graphs replace it, and each
    vector written paid for keeping it."""
    names = conn.execute(
        text(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND tablename = 'vectors' AND indexname ~ '^vectors_hnsw_[0-9a-f]{16}$'"
        )
    ).scalars()
    for name in list(names):
        conn.execute(text(f"DROP INDEX IF EXISTS {name}"))
