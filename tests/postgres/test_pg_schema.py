"""A home's schema on PostgreSQL: pgvector is there, and the tables say what SQLite's do."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, inspect, text

from app.db import Store, postgres
from app.db.postgres.schema import vector_index_name
from app.errors import InvalidInput
from tests.postgres.helpers import add_agent

_RULES = {"a": "NO ACTION", "c": "CASCADE", "n": "SET NULL", "r": "RESTRICT", "d": "SET DEFAULT"}


@pytest.fixture(scope="module")
def sqlite_home(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    """A SQLite database with every migration applied: what the schema must match."""
    path = tmp_path_factory.mktemp("sqlite") / "tapemind.db"
    store = Store.open_sqlite(path)
    store.upgrade("2026-11-01T09:00:00Z")
    store.close()
    return sqlite3.connect(path)


def _sqlite_tables(db: sqlite3.Connection) -> dict[str, set[tuple[str, bool, str | None]]]:
    """Each table's columns: (name, NOT NULL, default)."""
    names = [
        r[0]
        for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not r[0].startswith("sqlite_") and "_fts" not in r[0]
    ]
    return {
        n: {(c[1], bool(c[3] or c[5]), c[4]) for c in db.execute(f"PRAGMA table_info({n})")}
        for n in names
    }


def test_pgvector_builds_an_hnsw_cosine_index(pg_url: str) -> None:
    engine = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        conn.execute(text("CREATE EXTENSION vector"))
        conn.execute(text("CREATE TABLE v (id int PRIMARY KEY, e vector(3))"))
        conn.execute(text("INSERT INTO v VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0,0,1]')"))
        conn.execute(text("CREATE INDEX ON v USING hnsw (e vector_cosine_ops)"))
        conn.execute(text("SET LOCAL enable_seqscan = off"))
        best = conn.execute(text("SELECT id FROM v ORDER BY e <=> '[0.1,0.9,0]' LIMIT 1"))
        assert best.scalar_one() == 2
    engine.dispose()


def test_the_tables_and_columns_are_sqlites_plus_terms(
    pg: Engine, sqlite_home: sqlite3.Connection
) -> None:
    found = inspect(pg)
    with warnings.catch_warnings():  # SQLAlchemy has no type for pgvector's `vector`
        warnings.simplefilter("ignore")
        tables = {
            t: {
                (c["name"], not c["nullable"], _default(c["default"])) for c in found.get_columns(t)
            }
            for t in found.get_table_names()
            if t != "vectors"
        }
    expected = _sqlite_tables(sqlite_home)
    for name in postgres.FULLTEXT_TABLES:
        expected[name] = expected[name] | {("terms", False, None)}
    assert tables == expected


def _default(clause: str | None) -> str | None:
    # A BIGSERIAL id's default is its sequence: SQLite's rowid, which has no DEFAULT.
    return None if clause is None or clause.startswith("nextval(") else clause


def test_every_index_of_the_migrations_exists(pg: Engine, sqlite_home: sqlite3.Connection) -> None:
    wanted = {
        r[0]
        for r in sqlite_home.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        )
    }
    with pg.connect() as conn:
        held = {r[0] for r in conn.execute(text("SELECT indexname FROM pg_indexes"))}
    assert wanted - held == set()
    assert {"tape_entries_terms", "memories_terms"} <= held


def test_references_delete_as_in_sqlite(pg: Engine, sqlite_home: sqlite3.Connection) -> None:
    expected = {
        (table, r[3], r[2], r[6])
        for table in _sqlite_tables(sqlite_home)
        for r in sqlite_home.execute(f"PRAGMA foreign_key_list({table})")
    }
    with pg.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT c.conrelid::regclass::text, a.attname, c.confrelid::regclass::text, "
                "c.confdeltype FROM pg_constraint c JOIN pg_attribute a "
                "ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] "
                "WHERE c.contype = 'f' AND c.conrelid::regclass::text <> 'vectors'"
            )
        ).all()
    assert {(t, col, ref, _RULES[rule]) for t, col, ref, rule in rows} == expected


def test_ids_are_64_bit_and_the_tape_is_unique_per_agent_and_seq(pg: Engine) -> None:
    with pg.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO agents (id, name, created_at, settings) "
                "VALUES (9223372036854775807, 'big', 'now', '{}')"
            )
        )
    with pg.connect() as conn:
        unique = conn.execute(
            text("SELECT indexdef FROM pg_indexes WHERE tablename = 'tape_entries'")
        ).scalars()
        assert any("UNIQUE" in d and "(agent_id, seq)" in d for d in unique)


def test_creating_twice_changes_nothing(pg: Engine, tmp_path: Path) -> None:
    with pg.connect() as conn:
        before = set(conn.execute(text("SELECT indexname FROM pg_indexes")).scalars())
    with pg.begin() as conn:
        postgres.create(conn)
    with pg.connect() as conn:
        assert set(conn.execute(text("SELECT indexname FROM pg_indexes")).scalars()) == before


def test_the_graph_over_every_agents_vectors_is_dropped(pg: Engine) -> None:
    """Earlier versions kept one graph per model over every agent's vectors; agents'
    own graphs replace it, and every vector written paid for keeping it."""
    old = vector_index_name("usem3")
    with pg.begin() as conn:
        conn.execute(
            text(
                f"CREATE INDEX {old} ON vectors USING hnsw "
                "((embedding::vector(512)) vector_cosine_ops) WHERE model = 'usem3'"
            )
        )
    with pg.begin() as conn:
        postgres.create(conn)
    with pg.connect() as conn:
        names = set(conn.execute(text("SELECT indexname FROM pg_indexes")).scalars())
    assert old not in names and "vectors_by_agent" in names


def test_a_url_that_is_not_postgresql_is_refused() -> None:
    with pytest.raises(InvalidInput, match="Not a PostgreSQL database URL"):
        postgres.engine_for("sqlite:///tapemind.db")
    assert postgres.engine_for("postgres://u@h/db").url.drivername == "postgresql+psycopg"


def test_a_second_vector_write_does_not_lock_the_table(pg: Engine, pg_url: str) -> None:
    with pg.begin() as conn:
        agent = conn.execute(
            text(
                "INSERT INTO agents (name, created_at, settings) VALUES ('a', 'now', '{}') "
                "RETURNING id"
            )
        ).scalar_one()
        postgres.put(conn, "m", "memory", agent, [(1, "h", [1.0, 0.0])])
    other = postgres.engine_for(pg_url)
    with pg.begin() as first, other.begin() as second:
        postgres.put(first, "m", "memory", agent, [(2, "h", [0.0, 1.0])])
        second.execute(text("SET LOCAL lock_timeout = '2s'"))
        postgres.put(second, "m", "memory", agent, [(3, "h", [1.0, 1.0])])  # no wait
    other.dispose()


def test_a_512_dimension_vector_is_kept_in_its_row(pg: Engine) -> None:
    """Not moved out to the TOAST table, which an agent's exact search would read once
    per row."""
    from app.db.postgres import vectors

    with pg.begin() as conn:
        agent = add_agent(conn, "a")
        vectors.put(conn, "usem3", "memory", agent, [(1, "", [0.03] * 512)])
    with pg.begin() as conn:
        toast = conn.execute(
            text(
                "SELECT pg_relation_size(reltoastrelid) FROM pg_class "
                "WHERE relname = 'vectors' AND reltoastrelid <> 0"
            )
        ).scalar()
        assert toast in (None, 0)
        stored = conn.execute(text("SELECT vector_dims(embedding) FROM vectors"))
        assert stored.scalar_one() == 512


def test_opening_an_up_to_date_home_takes_no_lock_other_hosts_hold(pg: Engine) -> None:
    """Every open runs the upgrade. On a database already up to date it must neither wait
    for an agent's graph being built, a VACUUM or an ANALYZE (they hold SHARE UPDATE
    EXCLUSIVE on their table for as long as they run) nor hold off another host's
    transaction mid-write."""
    with pg.connect() as builder, pg.connect() as writer:
        builder.execute(
            text("LOCK TABLE vectors, memories, tape_entries IN SHARE UPDATE EXCLUSIVE MODE")
        )
        writer.execute(text("LOCK TABLE memories, agents, tape_entries IN ROW EXCLUSIVE MODE"))
        with pg.begin() as conn:
            conn.execute(text("SET LOCAL lock_timeout = '2s'"))
            postgres.create(conn)  # raised LockNotAvailable when each step ran again
        builder.rollback()
        writer.rollback()
