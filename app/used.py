"""Memories an agent reports it used in a turn (`tapemind used`, the `used` tool)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import update
from sqlmodel import col

from .db.schema import MemoryRow, MemoryUseRow
from .errors import InvalidInput
from .events import record
from .memories import check_parents
from .runtime import Runtime, agent_row


def report_used(rt: Runtime, agent: str, turn: str, memory_ids: Sequence[int]) -> list[int]:
    """The agent used these memories in `turn`: reinforce them, and make them the
    `derived` parents of whatever that turn remembers. Returns the ids recorded."""
    if not turn:
        raise InvalidInput("turn is required: the turn in which the memories were used.")
    now = rt.now_iso()
    with rt.write() as s:
        arow = agent_row(s, agent)
        # Not a parent here: an unknown id is reported as an unknown memory.
        ids = check_parents(
            s, arow, [int(m) for m in memory_ids], what="Memory", code="unknown_memory"
        )
        fresh = []
        for memory_id in ids:
            key = (arow.id, turn, memory_id)
            if s.get(MemoryUseRow, key) is not None:
                continue
            assert arow.id is not None
            s.add(MemoryUseRow(agent_id=arow.id, turn=turn, memory_id=memory_id, reported_at=now))
            fresh.append(memory_id)
        if fresh:
            s.execute(
                update(MemoryRow)
                .where(col(MemoryRow.id).in_(fresh))
                .values(use_count=MemoryRow.use_count + 1, last_used_at=now)
            )
        record(
            s,
            now,
            "memory.use",
            agent=agent,
            actor="agent",
            ids=fresh,
            counts={"memories": len(fresh)},
        )
        return fresh
