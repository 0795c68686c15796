"""Memories as stored: their rows, their full-text tokens, and storing a new one.

A memory is a small durable conclusion, each traceable to the tape entries it came
from (its provenance) and to the memories it rests on (its lineage). Deciding whether a
candidate is stored at all is `app.confront.offer`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from app.clock import from_iso, from_iso_or_none
from app.db import (
    AgentRow,
    EmbedQueueRow,
    MemoryRow,
    column_list,
    dbapi,
    drop_terms,
    next_ids,
    put_terms,
)
from app.errors import NotFound
from app.events import record
from app.limits import MAX_ID
from app.models import (
    Memory,
)
from app.runtime import AgentLike, Runtime
from app.text import text_terms

# The columns a Memory is made of, in the order `memory_of` reads them.
_MEMORY_FIELDS = (
    "id", "category", "text", "content_hash", "importance", "confidence", "status", "version",
    "thread", "user", "created_at", "updated_at", "recall_count", "use_count",
    "last_recalled_at", "last_used_at", "archived_at", "superseded_by",
)  # fmt: skip
MEMORY_COLUMNS = column_list(_MEMORY_FIELDS)
INSERT_MEMORY_SQL = (
    "INSERT INTO memories (id, agent_id, category, text, content_hash, importance, "
    'confidence, status, version, thread, turn, "user", created_at, updated_at) '
    "VALUES (?, ?, ?, ?, ?, ?, ?, 'active', 1, ?, ?, ?, ?, ?)"
)


def memory_of(r: Sequence[Any], agent: str) -> Memory:
    """A Memory from a row selected with `MEMORY_COLUMNS` (the one row -> Memory converter)."""
    return Memory(
        id=r[0],
        agent=agent,
        category=r[1],
        text=r[2],
        content_hash=r[3],
        importance=r[4],
        confidence=r[5],
        status=r[6],
        version=r[7],
        thread=r[8],
        user=r[9],
        created_at=from_iso(r[10]),
        updated_at=from_iso(r[11]),
        recall_count=r[12],
        use_count=r[13],
        last_recalled_at=from_iso_or_none(r[14]),
        last_used_at=from_iso_or_none(r[15]),
        archived_at=from_iso_or_none(r[16]),
        superseded_by=r[17],
    )


@dataclass(frozen=True)
class NewMemory:
    """A memory about to be stored: what `remember` (and a merge) hands the write path."""

    body: str
    category: str
    digest: str  # memory_hash(body)
    source_ids: tuple[int, ...]
    parent_ids: tuple[int, ...] = ()
    importance: float = 0.5
    confidence: float = 0.8
    thread: str | None = None
    turn: str | None = None
    user: str | None = None
    actor: str = "agent"


def to_memory(row: MemoryRow, agent: str) -> Memory:
    """A Memory from an ORM row (paths that still load rows through the ORM)."""
    return memory_of(tuple(getattr(row, name) for name in _MEMORY_FIELDS), agent)


def owned_memory(s: Session, memory_id: int, agent: str | None) -> tuple[MemoryRow, str]:
    row = s.get(MemoryRow, memory_id)
    owner = s.get(AgentRow, row.agent_id) if row is not None else None
    if row is None or owner is None or (agent is not None and owner.name != agent):
        where = f" of agent {agent!r}" if agent else ""
        raise NotFound(
            f"No memory {memory_id}{where}. Find ids with `tapemind memory list` or search.",
            for_agents=f"No memory {memory_id} of yours. Find ids with `search` or `context`.",
        )
    return row, owner.name


def index_memory_text(s: Session, memory_id: int, body: str, agent_id: int, now: str) -> None:
    """(Re)write a memory's full-text row and queue it for embedding. The delete
    runs for new memories too: ids are max+1, so a stale row may hold the id."""
    db = dbapi(s)
    if body:
        put_terms(db, "memory_fts", [(memory_id, agent_id, text_terms(body))], replace=True)
    else:
        drop_terms(db, "memory_fts", [memory_id])
    db.execute(
        "INSERT INTO embed_queue (kind, item_id, agent_id, enqueued_at) "
        "VALUES ('memory', ?, ?, ?) "
        "ON CONFLICT (kind, item_id) DO UPDATE SET enqueued_at = excluded.enqueued_at",
        (memory_id, agent_id, now),
    )


def unindex_memory(s: Session, memory_id: int) -> None:
    drop_terms(dbapi(s), "memory_fts", [memory_id])
    s.execute(
        EmbedQueueRow.__table__.delete().where(  # type: ignore[attr-defined]
            (EmbedQueueRow.kind == "memory") & (EmbedQueueRow.item_id == memory_id)
        )
    )


def check_parents(
    s: Session,
    arow: AgentLike,
    parents: Sequence[int],
    *,
    what: str = "Parent memory",
    code: str = "unknown_parent",
) -> list[int]:
    db = dbapi(s)
    out: list[int] = []
    for memory_id in dict.fromkeys(int(p) for p in parents):
        found = (
            db.execute(
                "SELECT id FROM memories WHERE id = ? AND agent_id = ?", (memory_id, arow.id)
            ).fetchone()
            if 1 <= memory_id <= MAX_ID
            else None
        )
        if found is None:
            memory_id = memory_id if 1 <= memory_id <= MAX_ID else 0  # never a huge number
            raise NotFound(
                f"{what} {memory_id} is not a memory of agent {arow.name!r} (it does not "
                "exist or belongs to another agent).",
                code=code,
                for_agents=(
                    f"{what} {memory_id} is not one of your memories. Use the ids that "
                    "`context` or `search` gave you ([m<id>]), and call again."
                ),
            )
        out.append(int(found[0]))
    return out


def store_new(
    rt: Runtime, s: Session, arow: AgentLike, new: NewMemory, *, relation: str = "referenced"
) -> Memory:
    """Insert a memory with version 1, provenance and lineage, inside a transaction.

    Memories the agent reported using in `new.turn` become its `derived` parents.
    """
    assert arow.id is not None
    db = dbapi(s)
    now = rt.now_iso()
    (new_id,) = next_ids(db, "memories", 1)
    db.execute(
        INSERT_MEMORY_SQL,
        (
            *(new_id, arow.id, new.category, new.body, new.digest, new.importance),
            *(new.confidence, new.thread, new.turn, new.user, now, now),
        ),
    )
    db.execute(
        "INSERT INTO memory_versions (memory_id, version, text, content_hash, changed_at, "
        "changed_by, reason) VALUES (?, 1, ?, ?, ?, ?, 'created')",
        (new_id, new.body, new.digest, now, new.actor),
    )
    db.executemany(
        "INSERT INTO provenance (memory_id, entry_id) VALUES (?, ?)",
        [(new_id, e) for e in dict.fromkeys(new.source_ids)],
    )
    links = {(p, relation) for p in new.parent_ids}
    if new.turn:
        used = db.execute(
            "SELECT memory_id FROM memory_uses WHERE agent_id = ? AND turn = ?",
            (arow.id, new.turn),
        ).fetchall()
        links.update((m, "derived") for (m,) in used if m != new_id)
    if links:
        db.executemany(
            "INSERT INTO lineage (child_id, parent_id, relation, created_at) VALUES (?, ?, ?, ?)",
            [(new_id, p, r, now) for p, r in sorted(links)],
        )
    index_memory_text(s, new_id, new.body, arow.id, now)
    record(
        s,
        now,
        "memory.add",
        agent=arow.name,
        actor=new.actor,
        ids=[new_id],
        counts={"sources": len(new.source_ids), "parents": len(links)},
    )
    created = from_iso(now)
    return Memory(
        id=new_id,
        agent=arow.name,
        category=new.category,
        text=new.body,
        content_hash=new.digest,
        importance=new.importance,
        confidence=new.confidence,
        status="active",
        version=1,
        thread=new.thread,
        user=new.user,
        created_at=created,
        updated_at=created,
        recall_count=0,
        use_count=0,
        last_recalled_at=None,
        last_used_at=None,
        archived_at=None,
        superseded_by=None,
    )
