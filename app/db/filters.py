"""Which rows a search may return: the filters of a search, as SQL conditions.

Shared by full-text search (`app.recall`) and the vector index (`app.index`), which
apply the same filters to the rows they rank. qmark parameters, for the sqlite3 driver.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from app.clock import to_iso


class AgentLike(Protocol):
    """The agent whose rows are searched (an agent row or reference)."""

    @property
    def id(self) -> int | None: ...


@dataclass(frozen=True)
class Filters:
    category: str | None = None
    statuses: tuple[str, ...] = ("active",)
    thread: str | None = None
    since: datetime | None = None
    until: datetime | None = None


def memory_conditions(arow: AgentLike, f: Filters) -> tuple[str, list[Any]]:
    """SQL conditions on `memories m` for the filters, with their qmark parameters."""
    sql = [f"m.agent_id = ? AND m.status IN ({', '.join(repr(s) for s in f.statuses)})"]
    params: list[Any] = [arow.id]
    if f.category:
        sql.append("m.category = ?")
        params.append(f.category)
    if f.thread:
        sql.append("m.thread = ?")
        params.append(f.thread)
    if f.since:
        sql.append("m.created_at >= ?")
        params.append(to_iso(f.since))
    if f.until:
        sql.append("m.created_at <= ?")
        params.append(to_iso(f.until))
    return " AND ".join(sql), params


def tape_conditions(arow: AgentLike, f: Filters) -> tuple[str, list[Any]]:
    """SQL conditions on `tape_entries e` for the filters, with their qmark parameters."""
    sql = ["e.agent_id = ? AND e.erased_at IS NULL"]
    params: list[Any] = [arow.id]
    if f.thread:
        sql.append("e.thread = ?")
        params.append(f.thread)
    if f.since:
        sql.append("e.created_at >= ?")
        params.append(to_iso(f.since))
    if f.until:
        sql.append("e.created_at <= ?")
        params.append(to_iso(f.until))
    return " AND ".join(sql), params
