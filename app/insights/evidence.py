"""What insights read of an agent: its procedural memories, their lineage and their use."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from app.clock import from_iso
from app.db import Tx, dbapi

# Lessons, task outcomes and preferences say how to work; project facts say what is.
PROCEDURAL = ("lesson", "preference", "task_outcome")
# The most recently changed memories an insights run reads: the grouping compares every
# pair, so this bounds its time and memory (2,000 memories: 4M pairs, ~30 MB).
MAX_POOL = 2000


@dataclass(frozen=True)
class PoolMemory:
    id: int
    category: str
    text: str
    thread: str | None
    turn: str | None
    created_at: datetime
    version: int


@dataclass
class Pool:
    """An agent's candidate memories with the links between them.

    `uses[i]` is the set of turns in which memory i was reported used; `lineage` holds
    (child, parent) pairs among pool members, excluding "supersedes" (the superseded side
    is not in the pool).
    """

    memories: list[PoolMemory]
    uses: dict[int, set[str]] = field(default_factory=dict)
    lineage: list[tuple[int, int]] = field(default_factory=list)

    @property
    def ids(self) -> list[int]:
        return [m.id for m in self.memories]


def load_pool(s: Tx, agent_id: int, limit: int = MAX_POOL) -> Pool:
    """The agent's active procedural memories (the `limit` most recently changed), with
    their use turns and their lineage among themselves."""
    db = dbapi(s)
    marks = ", ".join("?" * len(PROCEDURAL))
    rows = db.execute(
        "SELECT id, category, text, thread, turn, created_at, version FROM memories "
        f"WHERE agent_id = ? AND status = 'active' AND category IN ({marks}) "
        "ORDER BY updated_at DESC, id DESC LIMIT ?",
        (agent_id, *PROCEDURAL, limit),
    ).fetchall()
    memories = sorted(
        (PoolMemory(r[0], r[1], r[2], r[3], r[4], from_iso(r[5]), r[6]) for r in rows),
        key=lambda m: m.id,
    )
    pool = Pool(memories)
    ids = {m.id for m in memories}
    if not ids:
        return pool
    uses: dict[int, set[str]] = defaultdict(set)
    for memory_id, turn in db.execute(
        "SELECT memory_id, turn FROM memory_uses WHERE agent_id = ?", (agent_id,)
    ):
        if memory_id in ids:
            uses[int(memory_id)].add(str(turn))
    pool.uses = dict(uses)
    for child, parent in db.execute(
        "SELECT l.child_id, l.parent_id FROM lineage l JOIN memories m ON m.id = l.child_id "
        "WHERE m.agent_id = ? AND l.relation != 'supersedes'",
        (agent_id,),
    ):
        if child in ids and parent in ids and child != parent:
            pool.lineage.append((int(child), int(parent)))
    return pool
