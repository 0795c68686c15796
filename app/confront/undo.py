"""Taking a decision back: an owner who settled a conflict by mistake reopens it, and a
memory the arbiter superseded can be disputed into a conflict with its successor.

Neither rewrites history: the audit keeps the resolution and its reopening, a merged
memory goes to the archive with its lineage, and only the "supersedes" link that the
undone decision made is removed (the successor no longer claims to replace the memory).
"""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session, col, select

from app.confront.conflicts import Conflict, owned, raise_conflict, to_conflict
from app.db import AgentRow, ConflictRow, MemoryRow
from app.errors import InvalidInput, NotFound
from app.events import record
from app.runtime import Runtime


def _unsupersede(s: Session, memory: MemoryRow, successor: int, now: str) -> None:
    """`memory` is active again, reinforced now, and `successor` no longer claims to
    replace it (its "supersedes" link goes; every other link stays)."""
    memory.status, memory.superseded_by = "active", None
    memory.updated_at = memory.last_reinforced_at = now
    s.add(memory)
    s.execute(
        text(
            "DELETE FROM lineage WHERE child_id = :c AND parent_id = :p AND relation = 'supersedes'"
        ),
        {"c": successor, "p": memory.id},
    )


def reopen(rt: Runtime, conflict_id: int, *, actor: str = "owner") -> Conflict:
    """Undo the resolution of conflict `conflict_id`: it is open again, as it was.

    A side the resolution superseded is active again (unless something else has
    superseded or forgotten it since) and its "supersedes" link is removed; a merged
    memory is archived (searchable, `restore` brings it back) and keeps its lineage.
    Audited as `conflict.reopen`. Raises NotFound, InvalidInput for an open conflict."""
    now = rt.now_iso()
    with rt.write() as s:
        row, name = owned(s, conflict_id)
        if row.status != "resolved":
            raise InvalidInput(
                f"Conflict {conflict_id} is open already: settle it with "
                f"`tapemind conflicts resolve {conflict_id} --keep old|new|both|merge`."
            )
        old = s.get(MemoryRow, row.existing_id)
        new = s.get(MemoryRow, row.challenger_id)
        assert old is not None and new is not None
        winner_of = {"old": {new.id: old.id}, "new": {old.id: new.id}}.get(row.resolution or "", {})
        if row.resolution == "merge" and row.merged_id is not None:
            winner_of = {old.id: row.merged_id, new.id: row.merged_id}
        restored: list[int] = []
        for side in (old, new):
            winner = winner_of.get(side.id)
            if winner is None or side.status != "superseded" or side.superseded_by != winner:
                continue
            _unsupersede(s, side, winner, now)
            assert side.id is not None
            restored.append(side.id)
        merged = s.get(MemoryRow, row.merged_id) if row.merged_id is not None else None
        archived = merged is not None and merged.status == "active"
        if merged is not None and archived:
            merged.status, merged.archived_at, merged.updated_at = "archived", now, now
            s.add(merged)
        row.status = "open"
        row.resolution = row.resolved_at = row.resolved_by = None
        row.merged_id = None
        s.add(row)
        s.flush()
        ids = [conflict_id, *restored] + ([merged.id] if merged is not None else [])
        record(
            s,
            now,
            "conflict.reopen",
            agent=name,
            actor=actor,
            ids=ids,
            counts={"restored": len(restored), "archived": int(archived)},
        )
        return to_conflict(s, row, name, rt.clock.now())


def dispute(rt: Runtime, memory_id: int, *, actor: str = "owner") -> Conflict:
    """The owner disputes that superseded memory `memory_id` was replaced: it is active
    again and a conflict opens between it and its successor, to settle like any other
    (the arbiter's supersede is not final either). A memory that lost a conflict the
    owner settled is reopened through that conflict instead.

    Raises NotFound; InvalidInput for a memory that is not superseded."""
    now = rt.now_iso()
    with rt.write() as s:
        row = s.get(MemoryRow, memory_id)
        owner = s.get(AgentRow, row.agent_id) if row is not None else None
        if row is None or owner is None:
            raise NotFound(f"No memory {memory_id}. Find it with `tapemind memory list`.")
        if row.status != "superseded" or row.superseded_by is None:
            raise InvalidInput(
                f"Memory {memory_id} is {row.status}, not superseded; only a memory another "
                "one replaced can be disputed (`tapemind restore` brings archived ones back)."
            )
        settled = s.exec(
            select(ConflictRow.id).where(
                ConflictRow.status == "resolved",
                (col(ConflictRow.existing_id) == memory_id)
                | (col(ConflictRow.challenger_id) == memory_id),
            )
        ).first()
        if settled is not None:
            raise InvalidInput(
                f"Memory {memory_id} lost conflict {settled}, settled by the owner: reopen it "
                f"with `tapemind conflicts reopen {settled}`."
            )
        successor = row.superseded_by
        _unsupersede(s, row, successor, now)
        conflict_id = raise_conflict(
            s,
            now,
            owner,
            memory_id,
            successor,
            f"the owner disputes that {successor} replaces {memory_id}",
            "owner",
            actor,
            code="owner_disputes",
            params={"successor": successor, "target": memory_id},
        )
        s.flush()
        found = s.get(ConflictRow, conflict_id)
        assert found is not None
        return to_conflict(s, found, owner.name, rt.clock.now())
