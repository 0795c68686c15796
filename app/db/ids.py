"""New rows' ids, handed out the way each backend can keep them unique.

The embedded home writes under SQLite's one write lock, so the next ids are the
largest one's successors, in a row. PostgreSQL has several writers at once (threads,
hosts): ids come from the table's own sequence, unique across writers, with gaps where
a transaction rolled back. Nothing may read meaning into an id's neighbours; the
per-agent `seq` is the gap-free order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import text

from app.db.qmark import Qmark

_TABLES = frozenset({"tape_entries", "memories"})


def next_ids(db: Any, table: str, count: int) -> list[int]:
    """`count` ids for new rows of `table`, in ascending order, inside the caller's write
    transaction (`db` its `dbapi`)."""
    if table not in _TABLES:
        raise ValueError(f"ids of {table} are not handed out here")
    if count <= 0:
        return []
    if isinstance(db, Qmark):
        rows = db.execute(
            f"SELECT nextval(pg_get_serial_sequence('{table}', 'id')) FROM generate_series(1, ?)",
            (count,),
        ).fetchall()
        return sorted(int(r[0]) for r in rows)
    first = int(db.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0]) + 1
    return list(range(first, first + count))


def catch_up_sequences(conn: Any, tables: Sequence[str]) -> None:
    """After rows were written with their own ids (an import), make each of `tables`'
    id sequence hand out ids past them, inside the caller's transaction (`conn`, a
    SQLAlchemy connection). SQLite needs nothing: its next id is the largest one's
    successor."""
    if conn.dialect.name != "postgresql":
        return
    for table in tables:
        sequence = conn.execute(
            text("SELECT pg_get_serial_sequence(:t, 'id')"), {"t": table}
        ).scalar()
        if sequence is None:  # its ids are not a sequence's (a secret's is a text)
            continue
        conn.execute(
            text(f"SELECT setval(:s, coalesce(max(id), 0) + 1, false) FROM {table}"),
            {"s": sequence},
        )
