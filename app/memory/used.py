"""Memories an agent reports it used in a turn (`tapemind used`, the `used` tool)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import update
from sqlmodel import Session, col

from app.db import MemoryRow, MemoryUseRow, dbapi
from app.errors import InvalidInput
from app.events import record
from app.limits import MAX_USED
from app.memory.records import check_parents
from app.runtime import Runtime, agent_ref, agent_row
from app.tape import label
from app.vault import echoes

# A link already there is kept as it is (and not counted). ON CONFLICT DO NOTHING rather
# than SQLite's INSERT OR IGNORE: PostgreSQL reads it too.
DERIVED_SQL = (
    "INSERT INTO lineage (child_id, parent_id, relation, created_at) "
    "VALUES (?, ?, 'derived', ?) ON CONFLICT DO NOTHING"
)


def report_used(rt: Runtime, agent: str, turn: str, memory_ids: Sequence[int]) -> list[int]:
    """The agent used these memories in `turn`: reinforce them, and make them the
    `derived` parents of whatever that turn remembers. Returns the ids recorded."""
    if not turn:
        raise InvalidInput("turn is required: the turn in which the memories were used.")
    turn = label(turn, "turn", "used", required=True) or turn
    if len(memory_ids) > MAX_USED:
        raise InvalidInput(f"Report at most {MAX_USED} memories at once.")
    with rt.read_driver() as s:
        before = agent_ref(s, agent)
    echoes.check_writes(agent, before.secret_echoes)
    # The turn is stored: a value of the vault in it is refused like one in an entry.
    (turn,) = echoes.screen(rt, before.id, agent, [turn], actor="agent")
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
        linked = 0
        if fresh:
            s.execute(
                update(MemoryRow)
                .where(col(MemoryRow.id).in_(fresh))
                .values(use_count=MemoryRow.use_count + 1, last_used_at=now)
            )
            linked = _link_earlier_children(s, arow.id, turn, fresh, now)
        record(
            s,
            now,
            "memory.use",
            agent=agent,
            actor="agent",
            ids=fresh,
            counts={"memories": len(fresh), **({"derived": linked} if linked else {})},
        )
        return fresh


def _link_earlier_children(
    s: Session, agent_id: int | None, turn: str, used: list[int], now: str
) -> int:
    """Make `used` the `derived` parents of what this turn already remembered.

    Agents are told to report use at the end of a turn, after `remember`; a memory made
    before the report would otherwise never get the parents the report names. Only an
    older memory can be a parent (a smaller id), so no report makes a cycle."""
    db = dbapi(s)
    children = [
        int(row[0])
        for row in db.execute(  # index memories_by_turn (migration 10)
            "SELECT id FROM memories WHERE agent_id = ? AND turn = ?", (agent_id, turn)
        ).fetchall()
    ]
    links = [(c, p, now) for c in children for p in used if p < c]
    if not links:
        return 0
    # The rows written (a link already held is not): sqlite3 and psycopg both sum an
    # executemany's rowcount.
    return int(db.executemany(DERIVED_SQL, links).rowcount)
