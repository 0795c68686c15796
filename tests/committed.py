"""What a home's database holds, read past the engine: the rows as they are on disk.

Tests that check what was (or was not) written read through a connection of their own,
which sees committed rows only, on whichever backend the home keeps its truth
(`--backend`): the SQLite file, or the PostgreSQL database.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from app import Engine
from app.db import Qmark
from app.engine import runtime_of


def rows(engine: Engine, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run `sql` (qmark parameters) on a fresh connection to `engine`'s database and
    commit it: reads see only what was committed, writes land past the engine."""
    raw = runtime_of(engine).store.engine.raw_connection()
    try:
        conn = raw.driver_connection
        db = conn if isinstance(conn, sqlite3.Connection) else Qmark(conn)
        cursor = db.execute(sql, params)
        out = [tuple(r) for r in cursor.fetchall()] if cursor.description else []
        raw.commit()
        return out
    finally:
        raw.close()


def raw(engine: Engine) -> bytes:
    """Everything the home's database holds, to look for text that must be gone: the
    SQLite file's bytes (and its WAL's), or on PostgreSQL every table's rows as text.
    (PostgreSQL keeps a deleted row's old version on disk until VACUUM reclaims it; what
    this reads is what any connection can see.)"""
    home = engine.home
    if runtime_of(engine).store.is_sqlite:
        files = sorted(p for p in home.iterdir() if p.name.startswith("tapemind.db"))
        return b"".join(p.read_bytes() for p in files)
    tables = rows(
        engine,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
        "AND table_type = 'BASE TABLE'",
    )
    out = [
        str(r[0]).encode()
        for (t,) in tables
        for r in rows(engine, f'SELECT CAST(x AS text) FROM "{t}" x')
    ]
    return b"\n".join(out)
