"""Reading memories: one with its sources, lineage and versions; an agent's pages and counts."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.clock import from_iso
from app.db import LineageRow, MemoryRow, MemoryVersionRow, dbapi
from app.errors import InvalidInput
from app.limits import MAX_LIST
from app.memory import intake
from app.memory.records import MEMORY_COLUMNS, memory_of, owned_memory, to_memory
from app.memory.strength import anchor_time, strength
from app.models import STATUSES, AgentSettings, Memory, MemoryDetail, MemoryLink, MemoryVersion
from app.runtime import AgentLike, Runtime, agent_ref, agent_row, settings_of
from app.tape import source_entries


def _links(s: Session, memory_id: int, *, parents: bool) -> tuple[MemoryLink, ...]:
    if parents:
        q = select(LineageRow.parent_id, LineageRow.relation).where(
            LineageRow.child_id == memory_id
        )
    else:
        q = select(LineageRow.child_id, LineageRow.relation).where(
            LineageRow.parent_id == memory_id
        )
    out = []
    for other_id, relation in s.exec(q).all():
        other = s.get(MemoryRow, other_id)
        if other is not None:
            out.append(MemoryLink(other.id, relation, other.category, other.status, other.text))
    return tuple(out)


def detail(rt: Runtime, memory_id: int, agent: str | None = None) -> MemoryDetail:
    """A memory with its source entries, parents, children and versions.

    With `agent`, only that agent's memories are visible."""
    with rt.read() as s:
        row, owner = owned_memory(s, memory_id, agent)
        versions = s.exec(
            select(MemoryVersionRow)
            .where(MemoryVersionRow.memory_id == memory_id)
            .order_by(col(MemoryVersionRow.version))
        ).all()
        # Strength for what can fade (active) or was archived for fading; a superseded
        # memory is history, kept whatever its strength.
        if row.status in ("active", "archived"):
            st = settings_of(agent_row(s, owner))
            memory = with_strength(row, owner, st, rt.clock.now())
        else:
            memory = to_memory(row, owner)
        return MemoryDetail(
            memory=memory,
            sources=source_entries(s, memory_id, owner),
            parents=_links(s, memory_id, parents=True),
            children=_links(s, memory_id, parents=False),
            versions=tuple(
                MemoryVersion(v.version, v.text, from_iso(v.changed_at), v.changed_by, v.reason)
                for v in versions
            ),
        )


def _filters(arow: AgentLike, category: str | None, status: str | None) -> list[Any]:
    if category is not None:
        intake.check_category(category)
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"Unknown status {status!r}: use one of {', '.join(STATUSES)}.")
    conds: list[Any] = [MemoryRow.agent_id == arow.id]
    if category is not None:
        conds.append(MemoryRow.category == category)
    if status is not None:
        conds.append(MemoryRow.status == status)
    return conds


def list_(
    rt: Runtime,
    agent: str,
    *,
    category: str | None = None,
    status: str | None = None,
    limit: int = 50,
    offset: int = 0,
    before_id: int | None = None,
) -> list[Memory]:
    """One page of an agent's memories, newest first (with `before_id`: the ones
    older than that memory, the page after a page that ended with it).

    The indexes are (agent, status, id) and (agent, category, status, id), so
    "newest first across statuses" is one index walk per status, merged; a
    plain ORDER BY would sort every memory of the agent (25 ms at 100k). An
    offset still reads every row before it (390 ms of CPU at offset 99,800);
    `before_id` starts each walk at that id instead."""
    if limit <= 0 or offset < 0:
        raise InvalidInput("limit must be positive and offset not negative.")
    if category is not None:
        intake.check_category(category)
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"Unknown status {status!r}: use one of {', '.join(STATUSES)}.")
    limit = min(limit, MAX_LIST)
    with rt.read() as s:
        arow = agent_ref(s, agent)
        where = "agent_id = ?" + (" AND category = ?" if category is not None else "")
        args: list[Any] = [arow.id] + ([category] if category is not None else [])
        if before_id is not None:
            where += " AND id < ?"
            args.append(int(before_id))
        parts, params = [], []
        for n, one in enumerate([status] if status is not None else STATUSES):
            parts.append(
                f"SELECT * FROM (SELECT {MEMORY_COLUMNS} FROM memories "
                f"WHERE {where} AND status = ? ORDER BY id DESC LIMIT ?) AS status_{n}"
            )
            params += [*args, one, offset + limit]
        rows = (
            dbapi(s)
            .execute(
                " UNION ALL ".join(parts) + " ORDER BY id DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            )
            .fetchall()
        )
        return [memory_of(r, agent) for r in rows]


def waiting(rt: Runtime, agent: str, *, limit: int = 200) -> list[Memory]:
    """The agent's memories in the embed queue, the longest waiting first."""
    if limit <= 0:
        raise InvalidInput("limit must be a positive number.")
    columns = ", ".join(f"m.{c.strip()}" for c in MEMORY_COLUMNS.split(","))
    with rt.read() as s:
        arow = agent_ref(s, agent)
        rows = dbapi(s).execute(
            f"SELECT {columns} FROM embed_queue q JOIN memories m ON m.id = q.item_id "
            "WHERE q.kind = 'memory' AND q.agent_id = ? AND m.agent_id = ? "
            "ORDER BY q.enqueued_at, m.id LIMIT ?",
            (arow.id, arow.id, min(limit, MAX_LIST)),
        )
        return [memory_of(r, agent) for r in rows.fetchall()]


def count(
    rt: Runtime, agent: str, *, category: str | None = None, status: str | None = None
) -> int:
    with rt.read() as s:
        arow = agent_row(s, agent)
        return int(
            s.exec(
                select(func.count()).select_from(MemoryRow).where(*_filters(arow, category, status))
            ).one()
        )


def with_strength(row: MemoryRow, agent: str, st: AgentSettings, now: datetime) -> Memory:
    """The memory of `row` with its strength as of `now`: how far it has faded, what the
    owner weighs before restoring or keeping it."""
    anchor = anchor_time(
        row.created_at, row.last_recalled_at, row.last_used_at, row.last_reinforced_at
    )
    power = strength(now, anchor, st.half_life_days, row.importance, row.use_count)
    return replace(to_memory(row, agent), strength=round(power, 4))
