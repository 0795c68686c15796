"""The full-text tables (SQLite FTS5) of a home: rebuilding them and purging old tokens.

What goes into them is `app.text.terms.index_tokens`: English stems, Chinese characters
and bigrams, and the agent's token.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from app.text import index_tokens

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
    for fts, (table, column, where) in _SOURCES.items():
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
            batch = [{"id": i, "tokens": index_tokens(body, agent)} for i, agent, body in rows]
            conn.execute(text(f"INSERT INTO {fts} (rowid, tokens) VALUES (:id, :tokens)"), batch)
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
    db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
