"""Conflicts: questions between an existing memory and a challenger that a person settles.

The arbiter raises one when a candidate contradicts a memory and it cannot tell which
is right. Both memories stay active meanwhile (an open conflict never blocks writes).
The owner resolves it:
- old: keep the existing memory; the challenger becomes `superseded` by it;
- new: keep the challenger; the existing memory becomes `superseded` by it;
- both: both stay active (they were both true after all);
- merge: a new memory with the owner's text replaces both; it has both as parents
  ("merged"), its provenance is the union of theirs, and both become `superseded`.
Superseding always sets `superseded_by` and a "supersedes" lineage link from the
survivor, so the DAG says who replaced whom. Each resolution is audited.

A misclick is not final: see `conflict_undo` (reopen a resolution, dispute a supersede).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, select

from app.clock import from_iso, from_iso_or_none
from app.confront.arbiter.reasons import params_json, params_of
from app.db import AgentRow, ConflictRow, MemoryRow, dbapi
from app.errors import InvalidInput, NotFound
from app.events import record
from app.models import Memory, TapeEntry
from app.runtime import AgentLike, Runtime, agent_ref, agent_row
from app.vault import echoes

KEEPS = ("old", "new", "both", "merge")
CONFLICT_STATUSES = ("open", "resolved")
# A link already there is kept as it is. ON CONFLICT DO NOTHING rather than SQLite's
# INSERT OR IGNORE: PostgreSQL reads it too.
SUPERSEDES_SQL = (
    "INSERT INTO lineage (child_id, parent_id, relation, created_at) "
    "VALUES (:child, :parent, 'supersedes', :at) ON CONFLICT DO NOTHING"
)


@dataclass(frozen=True)
class ConflictSide:
    """One side of a conflict: the memory as it is now, and the tape entries it came from."""

    memory: Memory
    sources: tuple[TapeEntry, ...]


@dataclass(frozen=True)
class Conflict:
    id: int
    agent: str
    status: str  # open | resolved
    reason: str
    arbiter: str
    created_at: datetime
    age_days: float  # at the time it was read (open) or at resolution (resolved)
    existing: ConflictSide
    challenger: ConflictSide
    resolved_at: datetime | None = None
    resolution: str | None = None  # old | new | both | merge
    merged_id: int | None = None
    # `reason` as a code with parameters (app.confront.arbiter.reasons); None before codes
    reason_code: str | None = None
    reason_params: Mapping[str, object] = field(default_factory=dict)


def raise_conflict(
    s: Session,
    now: str,
    arow: AgentLike,
    existing_id: int,
    challenger_id: int,
    reason: str,
    arbiter: str,
    actor: str,
    *,
    code: str | None = None,
    params: Mapping[str, object] | None = None,
) -> int:
    """Open a conflict inside the caller's transaction; returns its id. `code` and `params`
    are `reason` as a code with parameters (app.confront.arbiter.reasons)."""
    cursor = dbapi(s).execute(
        "INSERT INTO conflicts (agent_id, existing_id, challenger_id, reason, arbiter, status, "
        "created_at, reason_code, reason_params) VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?) "
        "RETURNING id",
        (
            *(arow.id, existing_id, challenger_id, reason[:2000], arbiter, now),
            *(code, params_json(params or {})),
        ),
    )
    conflict_id = int(cursor.fetchone()[0])
    record(
        s,
        now,
        "conflict.open",
        agent=arow.name,
        actor=actor,
        ids=[conflict_id, existing_id, challenger_id],
    )
    return conflict_id


def _side(s: Session, memory_id: int, agent: str) -> ConflictSide:
    from app.memory import to_memory
    from app.tape import source_entries

    row = s.get(MemoryRow, memory_id)
    assert row is not None
    return ConflictSide(to_memory(row, agent), source_entries(s, memory_id, agent))


def to_conflict(s: Session, row: ConflictRow, agent: str, now: datetime) -> Conflict:
    """The row as the frozen Conflict, both sides read (inside the caller's session)."""
    assert row.id is not None
    created = from_iso(row.created_at)
    until = from_iso(row.resolved_at) if row.resolved_at else now
    return Conflict(
        id=row.id,
        agent=agent,
        status=row.status,
        reason=row.reason,
        arbiter=row.arbiter,
        created_at=created,
        age_days=max(0.0, (until - created).total_seconds() / 86400.0),
        existing=_side(s, row.existing_id, agent),
        challenger=_side(s, row.challenger_id, agent),
        resolved_at=from_iso_or_none(row.resolved_at),
        resolution=row.resolution,
        merged_id=row.merged_id,
        reason_code=row.reason_code,
        reason_params=params_of(row.reason_params),
    )


def list_(
    rt: Runtime,
    agent: str | None = None,
    status: str | None = "open",
    *,
    limit: int = 100,
    offset: int = 0,
    settled_first: bool = False,
) -> list[Conflict]:
    """Conflicts, oldest first (the longest-waiting question on top); with
    `settled_first`, the most recently settled first (where a misclick to reopen is).

    `agent` None: every agent's; `status` "open", "resolved" or None for both."""
    if status is not None and status not in CONFLICT_STATUSES:
        raise InvalidInput(f"Unknown conflict status {status!r}: use open or resolved.")
    if limit <= 0 or offset < 0:
        raise InvalidInput("limit must be positive and offset not negative.")
    now = rt.clock.now()
    with rt.read() as s:
        q = select(ConflictRow, AgentRow.name).join(
            AgentRow, col(AgentRow.id) == col(ConflictRow.agent_id)
        )
        if agent is not None:
            q = q.where(ConflictRow.agent_id == agent_row(s, agent).id)
        if status is not None:
            q = q.where(ConflictRow.status == status)
        order = (
            (col(ConflictRow.resolved_at).desc(), col(ConflictRow.id).desc())
            if settled_first
            else (col(ConflictRow.created_at), col(ConflictRow.id))
        )
        rows = s.exec(q.order_by(*order).limit(limit).offset(offset)).all()
        return [to_conflict(s, row, name, now) for row, name in rows]


def count(rt: Runtime, agent: str | None = None, status: str | None = "open") -> int:
    """How many conflicts (`agent` None: every agent's), counted from the index without
    reading them."""
    if status is not None and status not in CONFLICT_STATUSES:
        raise InvalidInput(f"Unknown conflict status {status!r}: use open or resolved.")
    with rt.read_driver() as tx:
        where: list[str] = []
        args: list[Any] = []
        if agent is not None:
            where.append("agent_id = ?")
            args.append(agent_ref(tx, agent).id)
        if status is not None:
            where.append("status = ?")
            args.append(status)
        sql = "SELECT count(*) FROM conflicts" + (" WHERE " + " AND ".join(where) if where else "")
        return int(dbapi(tx).execute(sql, args).fetchone()[0])


def get(rt: Runtime, conflict_id: int) -> Conflict:
    """One conflict with both sides. Raises NotFound."""
    with rt.read() as s:
        row, name = owned(s, conflict_id)
        return to_conflict(s, row, name, rt.clock.now())


def owned(s: Session, conflict_id: int) -> tuple[ConflictRow, str]:
    """The conflict's row and its agent's name. Raises NotFound."""
    row = s.get(ConflictRow, conflict_id)
    owner = s.get(AgentRow, row.agent_id) if row is not None else None
    if row is None or owner is None:
        raise NotFound(
            f"No conflict {conflict_id}. List them with `tapemind conflicts list --agent NAME`."
        )
    return row, owner.name


def _supersede(s: Session, now: str, loser: MemoryRow, winner_id: int) -> None:
    loser.status = "superseded"
    loser.superseded_by = winner_id
    loser.updated_at = now
    s.add(loser)
    s.execute(text(SUPERSEDES_SQL), {"child": winner_id, "parent": loser.id, "at": now})


def _merge(
    rt: Runtime, s: Session, arow: AgentRow, sides: Sequence[MemoryRow], body: str, actor: str
) -> int:
    from app.memory import NewMemory, intake, store_new
    from app.text import memory_hash

    assert arow.id is not None
    body = intake.check_text(echoes.screen(rt, arow.id, arow.name, [body], actor=actor)[0])
    sources: list[int] = []
    for side in sides:
        sources.extend(
            int(r[0])
            for r in s.connection().execute(
                text("SELECT entry_id FROM provenance WHERE memory_id = :m ORDER BY entry_id"),
                {"m": side.id},
            )
        )
    first = sides[0]
    merged = store_new(
        rt,
        s,
        arow,
        NewMemory(
            body=body,
            category=first.category,
            digest=memory_hash(body),
            source_ids=tuple(dict.fromkeys(sources)),
            parent_ids=tuple(m.id for m in sides if m.id is not None),
            importance=max(m.importance for m in sides),
            confidence=max(m.confidence for m in sides),
            thread=first.thread,
            turn=None,
            user=first.user,
            actor=actor,
        ),
        relation="merged",
    )
    return merged.id


def resolve(
    rt: Runtime, conflict_id: int, keep: str, body: str | None = None, *, actor: str = "owner"
) -> Conflict:
    """Settle an open conflict (see the module doc for what each `keep` does).

    Raises InvalidInput for an unknown `keep`, a merge without text, text without
    merge, an already resolved conflict or a kept side that was forgotten; NotFound."""
    if keep not in KEEPS:
        raise InvalidInput(f"--keep must be one of {', '.join(KEEPS)}, not {keep!r}.")
    if keep == "merge" and not (body and body.strip()):
        raise InvalidInput('A merge needs the merged text: --text "…".')
    if keep != "merge" and body:
        raise InvalidInput("--text is only for --keep merge.")
    now = rt.now_iso()
    with rt.write() as s:
        row, name = owned(s, conflict_id)
        if row.status != "open":
            raise InvalidInput(
                f"Conflict {conflict_id} was already resolved ({row.resolution}) on "
                f"{row.resolved_at}. To decide again, reopen it first: "
                f"`tapemind conflicts reopen {conflict_id}`."
            )
        arow = agent_row(s, name)
        old = s.get(MemoryRow, row.existing_id)
        new = s.get(MemoryRow, row.challenger_id)
        assert old is not None and new is not None
        kept = {"old": [old], "new": [new], "both": [old, new], "merge": []}[keep]
        gone = [m.id for m in kept if m.status == "forgotten"]
        if gone:
            raise InvalidInput(
                f"Memory {gone[0]} was forgotten; keep the other side or merge with new text."
            )
        merged_id: int | None = None
        if keep == "old":
            _supersede(s, now, new, old.id)
        elif keep == "new":
            _supersede(s, now, old, new.id)
        elif keep == "merge":
            assert body is not None
            merged_id = _merge(rt, s, arow, [old, new], body, actor)
            for side in (old, new):
                if side.status != "forgotten":
                    _supersede(s, now, side, merged_id)
        for side in kept:
            if side.status in ("archived", "superseded"):
                # the owner chose it: it is current again
                side.status, side.superseded_by, side.archived_at = "active", None, None
                side.last_reinforced_at = now
                s.add(side)
        row.status = "resolved"
        row.resolution = keep
        row.resolved_at = now
        row.resolved_by = actor
        row.merged_id = merged_id
        s.add(row)
        s.flush()
        ids = [conflict_id, old.id, new.id] + ([merged_id] if merged_id else [])
        record(s, now, "conflict.resolve", agent=name, actor=actor, ids=ids)
        return to_conflict(s, row, name, rt.clock.now())


def count_open(s: Session, agent_id: int) -> tuple[int, str | None]:
    """(open conflicts, creation time of the oldest) from the index."""
    found = (
        s.connection()
        .execute(
            text(
                "SELECT count(*), min(created_at) FROM conflicts "
                "WHERE agent_id = :a AND status = 'open'"
            ),
            {"a": agent_id},
        )
        .one()
    )
    return int(found[0]), found[1]
