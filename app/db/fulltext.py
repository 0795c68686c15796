"""The full-text tables (SQLite FTS5) of a home: rebuilding them and purging old tokens.

What goes into them is `app.text.terms.index_tokens`: English stems, Chinese characters
and bigrams, and the agent's token.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import text

from app.db.qmark import Qmark
from app.text import index_tokens, text_terms, token_string

FTS_TABLES = ("memory_fts", "tape_fts")
# The rows each full-text table indexes: (table, text column, which rows).
_SOURCES = {
    "memory_fts": ("memories", "text", "status != 'forgotten'"),
    "tape_fts": ("tape_entries", "content", "erased_at IS NULL"),
}
REBUILD_BATCH = 5_000


def rebuild(conn: Any) -> None:
    """Recreate both full-text tables from the rows they index, `REBUILD_BATCH` rows
    at a time (a big tape never sits in memory whole). `conn` is a SQLAlchemy
    connection inside the caller's transaction: an import, or a migration when the
    token rules change."""
    postgres = conn.dialect.name == "postgresql"
    for fts, (table, column, where) in _SOURCES.items():
        if postgres:  # the terms are a column of each row: every row gets them anew
            conn.execute(text(f"UPDATE {table} SET terms = NULL WHERE terms IS NOT NULL"))
        else:
            conn.execute(text(f"DELETE FROM {fts}"))
        last = 0
        while True:
            rows = conn.execute(
                text(
                    f"SELECT id, agent_id, {column} FROM {table} WHERE {where} AND id > :last "
                    "ORDER BY id LIMIT :n"
                ),
                {"last": last, "n": REBUILD_BATCH},
            ).all()
            if not rows:
                break
            if postgres:
                db = Qmark(conn.connection.driver_connection)
                put_terms(db, fts, [(i, agent, text_terms(body)) for i, agent, body in rows])
            else:
                batch = [{"id": i, "tokens": index_tokens(body, agent)} for i, agent, body in rows]
                conn.execute(
                    text(f"INSERT INTO {fts} (rowid, tokens) VALUES (:id, :tokens)"), batch
                )
            last = rows[-1][0]


def purge(db: Any, table: str) -> None:
    """Rewrite the full-text index `table` so the tokens of deleted rows are gone.

    An FTS5 delete only records a tombstone; the words stay in the index
    segments until they are merged. Forget and erase promise the text is gone,
    so they merge everything ('optimize'): about 0.8 s per 200k tape entries on
    the 2-core test machine, paid only by those rare owner actions.
    """
    if table not in FTS_TABLES:
        raise ValueError(f"not a full-text table: {table}")
    if isinstance(db, Qmark):
        # PostgreSQL's terms are a column of the row: the old value goes with the old
        # row version, which only a VACUUM reclaims (see "Storage backends").
        return
    db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


# What the engine writes into full-text search, said once for both backends: SQLite's
# FTS5 tables (rows keyed by the indexed row's id), or on PostgreSQL the indexed table's
# own `terms` column (`app.db.postgres.tokens`). `db` is a transaction's `dbapi`.
_BASE = {fts: table for fts, (table, _, _) in _SOURCES.items()}


def put_terms(
    db: Any, fts: str, rows: Sequence[tuple[int, int, Sequence[str]]], *, replace: bool = False
) -> None:
    """Index `rows`, each (row id, agent id, its full-text terms), in `fts`; `replace`
    when a row may be indexed already (a rewritten text, an id used before)."""
    if fts not in FTS_TABLES:
        raise ValueError(f"not a full-text table: {fts}")
    if isinstance(db, Qmark):
        from app.db.postgres.tokens import tsvector_literal

        db.executemany(
            f"UPDATE {_BASE[fts]} SET terms = CAST(? AS tsvector) WHERE id = ?",
            [(tsvector_literal(terms, agent), i) for i, agent, terms in rows],
        )
        return
    if replace:
        db.executemany(f"DELETE FROM {fts} WHERE rowid = ?", [(i,) for i, _, _ in rows])
    db.executemany(
        f"INSERT INTO {fts} (rowid, tokens) VALUES (?, ?)",
        [(i, token_string(terms, agent)) for i, agent, terms in rows],
    )


def drop_terms(db: Any, fts: str, ids: Sequence[int]) -> None:
    """Take rows `ids` out of `fts` (erased, forgotten, or about to be rewritten)."""
    if fts not in FTS_TABLES:
        raise ValueError(f"not a full-text table: {fts}")
    if isinstance(db, Qmark):
        db.executemany(f"UPDATE {_BASE[fts]} SET terms = NULL WHERE id = ?", [(i,) for i in ids])
    else:
        db.executemany(f"DELETE FROM {fts} WHERE rowid = ?", [(i,) for i in ids])


def drop_agent_terms(db: Any, agent_id: int) -> None:
    """Take every row of agent `agent_id` out of full-text search, before its rows are
    deleted: FTS5 rows know no agent and would outlive them. On PostgreSQL the terms are
    columns of those rows and go with them."""
    if isinstance(db, Qmark):
        return
    for fts, table in _BASE.items():
        db.execute(
            f"DELETE FROM {fts} WHERE rowid IN (SELECT id FROM {table} WHERE agent_id = ?)",
            (agent_id,),
        )


def tsquery(
    groups: Sequence[tuple[str, ...]], agent_id: int | None, *, any_term: bool = True
) -> str | None:
    """The `tsquery` text a PostgreSQL home searches its `terms` with: `groups` of token
    variants (each group's OR'ed; the groups OR'ed, or AND'ed unless `any_term`), for one
    agent's rows unless `agent_id` is None; None when there is no term."""
    from app.db.postgres.tokens import tsquery_literal  # a home on SQLite never loads it

    return tsquery_literal(groups, agent_id, any_term=any_term)
