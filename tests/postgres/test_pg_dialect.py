"""The engine's raw SQL that one text serves on both backends, run on PostgreSQL.

Each statement is the engine's own constant, not a copy: the quoted "user" column, and
ON CONFLICT DO NOTHING where SQLite's INSERT OR IGNORE was. The driver statements are
qmark SQL (sqlite3's); psycopg binds `%s`, the one thing the port changes in them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import IntegrityError

from app.confront import conflicts, decisions, offer
from app.db import KEYWORD_COLUMNS
from app.db.postgres import metadata
from app.lifecycle import scrub
from app.memory import used
from app.memory.records import INSERT_MEMORY_SQL, MEMORY_COLUMNS, memory_of
from app.recall import context, routes
from app.tape.ledger import ENTRY_COLUMNS, INSERT_ENTRY_SQL, entry_of
from app.transfer import mirror
from tests.postgres.helpers import NOW, add_agent

PERSON = "ada lovelace"


def run(conn: Connection, sql: str, params: Sequence[Any] = ()) -> Any:
    """A qmark statement of the engine's driver fast path, bound the way psycopg does."""
    assert "%" not in sql  # nothing a `%s` could be confused with
    return conn.exec_driver_sql(sql.replace("?", "%s"), tuple(params))


def _entry(conn: Connection, agent_id: int, entry_id: int, body: str, user: str | None) -> None:
    run(
        conn,
        INSERT_ENTRY_SQL,
        (entry_id, agent_id, entry_id, "t1", "turn-1", user, "message", "user", body,
         f"hash of {body}", '{"call": "remember"}', None, NOW),
    )  # fmt: skip


def _memory(conn: Connection, agent_id: int, memory_id: int, body: str, user: str | None) -> None:
    run(
        conn,
        INSERT_MEMORY_SQL,
        (memory_id, agent_id, "lesson", body, f"hash of {body}", 0.5, 0.8, "t1", "turn-1",
         user, NOW, NOW),
    )  # fmt: skip


def test_a_bare_user_is_the_role_on_postgresql(pg: Engine) -> None:
    # Why the column is quoted: unquoted, PostgreSQL answers with current_user, no error.
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        _entry(conn, agent, 1, "tea at four", PERSON)
        role = conn.execute(text("SELECT current_user")).scalar_one()
        bare = conn.execute(text("SELECT user FROM tape_entries")).scalar_one()
        quoted = conn.execute(text('SELECT "user" FROM tape_entries')).scalar_one()
    assert (bare, quoted) == (role, PERSON)


def test_keyword_columns_cover_every_column_postgresql_reserves(pg: Engine) -> None:
    with pg.connect() as conn:
        reserved = set(
            conn.execute(text("SELECT word FROM pg_get_keywords() WHERE catcode IN ('R', 'T')"))
            .scalars()
            .all()
        )
    columns = {c.name for table in metadata().tables.values() for c in table.columns}
    assert columns & reserved == KEYWORD_COLUMNS


def test_tape_entries_read_back_with_their_user(pg: Engine) -> None:
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        _entry(conn, agent, 1, "tea at four", PERSON)
        row = run(conn, f"SELECT {ENTRY_COLUMNS} FROM tape_entries WHERE id = ?", (1,)).one()
        source = run(conn, offer.SOURCE_SQL, (1, agent)).one()
        thread = conn.execute(text(mirror.THREAD_SQL), {"a": agent, "t": "t1"}).one()
    entry = entry_of(row, "ada")
    assert (entry.user, entry.text, entry.meta) == (PERSON, "tea at four", {"call": "remember"})
    assert tuple(source) == (1, "t1", "turn-1", PERSON)
    assert thread._mapping["user"] == PERSON


def test_memories_read_back_and_are_found_by_user(pg: Engine) -> None:
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        _memory(conn, agent, 1, "ada takes tea at four", PERSON)
        _memory(conn, agent, 2, "the build runs on two cores", None)
        row = run(conn, f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ?", (1,)).one()
        found = run(conn, routes._RECENT_SQL["user"], (agent, PERSON, 10)).scalars().all()
        candidate = run(
            conn, f"SELECT {context._CANDIDATE_COLUMNS} FROM memories WHERE id = ?", (1,)
        ).one()
        mirrored = conn.execute(text(mirror.MEMORIES_SQL), {"a": agent}).all()
    memory = memory_of(row, "ada")
    assert (memory.user, memory.status, memory.version) == (PERSON, "active", 1)
    assert found == [1]
    assert context._Candidate._make(candidate).user == PERSON
    assert [(m._mapping["id"], m._mapping["user"]) for m in mirrored] == [(1, PERSON), (2, None)]


def test_a_recall_row_keeps_its_user(pg: Engine) -> None:
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        run(
            conn,
            context.INSERT_RECALL_SQL,
            (agent, NOW, "t1", PERSON, "tea", 800, 120, 3, 1, 0, 4.5),
        )
        stored = conn.execute(text('SELECT mode, thread, "user", query FROM recalls')).one()
    assert tuple(stored) == ("context", "t1", PERSON, "tea")


def test_scrub_rewrites_the_user_label(pg: Engine) -> None:
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        _entry(conn, agent, 1, "key sk-1", "sk-1")
        _memory(conn, agent, 1, "key sk-1", "sk-1")
        run(
            conn,
            context.INSERT_RECALL_SQL,
            (agent, NOW, "t1", "sk-1", "sk-1", 800, 0, 0, 0, 0, 1.0),
        )
        entries = run(conn, scrub.ENTRIES_SQL, (0, scrub.BATCH)).all()
        memories = run(conn, scrub.MEMORIES_SQL, (0, scrub.BATCH)).all()
        assert [r[-1] for r in entries + memories] == ["sk-1", "sk-1"]
        marked = "[secret]"
        cur = run(
            conn,
            scrub.REWRITE_ENTRY_SQL,
            (marked, "h2", None, "t1", "turn-1", marked, 1, "hash of key sk-1"),
        )
        assert cur.rowcount == 1
        cur = run(
            conn,
            scrub.REWRITE_MEMORY_SQL,
            (marked, "h2", "t1", "turn-1", marked, 1, "hash of key sk-1"),
        )
        assert cur.rowcount == 1
        for table, key, columns in scrub.OWNER_TEXTS:
            rows = run(conn, scrub.owner_texts_sql(table, key, columns), (0, scrub.BATCH)).all()
            for row_id, *texts in rows:
                new = [marked if t else t for t in texts]
                run(conn, scrub.owner_texts_update(table, key, columns), (*new, row_id))
        labels = conn.execute(
            text(
                'SELECT (SELECT "user" FROM tape_entries), (SELECT "user" FROM memories), '
                '(SELECT "user" FROM recalls)'
            )
        ).one()
    assert tuple(labels) == (marked, marked, marked)


def _links(conn: Connection) -> list[tuple[Any, ...]]:
    rows = conn.execute(text("SELECT child_id, parent_id, relation FROM lineage ORDER BY 1, 2, 3"))
    return [tuple(r) for r in rows]


def test_lineage_links_are_written_once(pg: Engine) -> None:
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        for memory_id in (1, 2, 3):
            _memory(conn, agent, memory_id, f"memory {memory_id}", None)
        # A link already there is skipped, with no error and no row counted.
        counts = [run(conn, used.DERIVED_SQL, (2, 1, NOW)).rowcount for _ in range(2)]
        assert counts == [1, 0]
        for _ in range(2):
            run(conn, decisions.SUPERSEDES_SQL, (3, 1, NOW))
            conn.execute(text(conflicts.SUPERSEDES_SQL), {"child": 3, "parent": 2, "at": NOW})
        # The same two memories in another relation are another link.
        run(conn, decisions.SUPERSEDES_SQL, (2, 1, NOW))
        assert _links(conn) == [
            (2, 1, "derived"),
            (2, 1, "supersedes"),
            (3, 1, "supersedes"),
            (3, 2, "supersedes"),
        ]


def test_a_link_to_a_missing_memory_is_still_refused(pg: Engine) -> None:
    # DO NOTHING covers only uniqueness, as OR IGNORE does for a foreign key.
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        _memory(conn, agent, 1, "memory 1", None)
    with pytest.raises(IntegrityError, match="foreign key"), pg.begin() as conn:
        run(conn, used.DERIVED_SQL, (1, 99, NOW))
