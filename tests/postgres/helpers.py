"""Rows the PostgreSQL tests write: agents, and tape entries made ready as the engine does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, text

from app.models import NewEntry
from app.tape.prepared import Ready, ready

NOW = "2026-11-01T09:00:00.000000Z"


def read(url: str, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
    """The rows `sql` returns from the database at `url`, on a connection of its own."""
    from app.db import postgres

    engine = postgres.engine_for(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql), dict(params or {}))]
    finally:
        engine.dispose()


def prepared(texts: Sequence[str], thread: str = "t1") -> list[Ready]:
    """User messages made ready as the engine makes its own records ready."""
    return [ready(NewEntry(thread, "message", "user", t)) for t in texts]


def add_agent(conn: Connection, name: str) -> int:
    return int(
        conn.execute(
            text(
                "INSERT INTO agents (name, created_at, settings) VALUES (:n, :at, '{}') "
                "RETURNING id"
            ),
            {"n": name, "at": NOW},
        ).scalar_one()
    )


def add_memory(conn: Connection, agent_id: int, body: str, status: str = "active") -> int:
    return int(
        conn.execute(
            text(
                "INSERT INTO memories (agent_id, category, text, content_hash, importance, "
                "confidence, status, version, created_at, updated_at) VALUES "
                "(:a, 'lesson', :t, :h, 0.5, 0.8, :s, 1, :at, :at) RETURNING id"
            ),
            {"a": agent_id, "t": body, "h": f"hash of {body}", "s": status, "at": NOW},
        ).scalar_one()
    )
