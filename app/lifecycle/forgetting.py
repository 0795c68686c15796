"""Forgetting: weak, long-idle memories are soft-archived; the owner can restore them.

A memory is an archive candidate when it is active, its strength (`app.memory.strength`)
has fallen below the agent's `archive_below` (default 0.1) AND it has gone
`archive_idle_days` (default 30) without a recall, a reported use or a
reinforcement. Both are measured from the same anchor, so the moment it becomes a
candidate is one time, `fade_at` (`app.memory.strength.fade_time`), stored on the row and
indexed: counting candidates at any date is a range query.

`fade_at` is NULL ("stale") whenever an input changed: database triggers clear it
when a recall, use, reinforcement, importance or the agent's decay settings change
(migration 3), and `refresh` recomputes stale rows in Python, so the formula lives
in one place. Reads never write: `count_candidates` adds the few stale rows it
evaluates itself to the indexed count.

Archived memories keep their text, history, provenance and index entries: `context`
leaves them out (reported as dropped "archived"), search finds them with
`status="archived"`, and `restore` makes them active again, reinforced.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, select

from app.clock import from_iso, to_iso
from app.db import AgentRow, MemoryRow, is_postgres
from app.errors import InvalidInput, NotFound
from app.events import record
from app.memory import anchor_time, fade_days, fade_time, strength, with_strength
from app.models import AgentSettings, Memory
from app.runtime import Runtime, agent_row, settings_of

# How far ahead the owner is shown what is fading (the app's Fading list, `archive fading`).
FADING_DAYS = 7.0
_FADE_INPUTS = (
    "id, created_at, last_recalled_at, last_used_at, last_reinforced_at, importance, use_count"
)


@dataclass(frozen=True)
class ArchiveCandidate:
    memory_id: int
    category: str
    text: str
    importance: float
    strength: float  # at the evaluated date
    last_active_at: datetime  # last recall, use or reinforcement (or creation)
    fade_at: datetime  # when it became (or becomes) a candidate


@dataclass(frozen=True)
class MaintainReport:
    agent: str
    as_of: datetime
    dry_run: bool
    threshold: float
    idle_days: float
    candidates: tuple[ArchiveCandidate, ...]
    archived_ids: tuple[int, ...]  # empty on a dry run


@dataclass(frozen=True)
class ArchiveRun:
    """Memories archived together: one maintenance run of one agent, as it stands now
    (a memory restored since is no longer counted)."""

    agent: str
    at: datetime
    archived: int


def _fade(row: Sequence[object], st: AgentSettings) -> tuple[datetime, datetime]:
    """(anchor, fade time) of a row selected with _FADE_INPUTS."""
    anchor = anchor_time(str(row[1]), *(str(v) if v else None for v in row[2:5]))
    return anchor, fade_time(
        anchor,
        st.half_life_days,
        float(row[5]),  # type: ignore[arg-type]
        int(row[6]),  # type: ignore[call-overload]
        st.archive_below,
        st.archive_idle_days,
    )


_ANCHOR_TIMES = (
    "created_at, coalesce(last_recalled_at, ''), coalesce(last_used_at, ''), "
    "coalesce(last_reinforced_at, '')"
)


def _anchor_sql(s: Session) -> str:
    # The latest of the times: SQLite's max() of several values is PostgreSQL's greatest().
    return f"{'greatest' if is_postgres(s) else 'max'}({_ANCHOR_TIMES})"


def _stale(
    s: Session, agent_id: int, anchored_before: str | None = None, columns: str = _FADE_INPUTS
) -> list[Sequence[object]]:
    """Active rows whose fade time is stale; with `anchored_before`, only those last
    reinforced before it (the others cannot have faded yet, see `count_candidates`)."""
    where = f" AND {_anchor_sql(s)} <= :before" if anchored_before is not None else ""
    return list(
        s.connection().execute(
            text(
                f"SELECT {columns} FROM memories WHERE agent_id = :a AND status = 'active' "
                f"AND fade_at IS NULL{where}"
            ),
            {"a": agent_id, "before": anchored_before},
        )
    )


def refresh(s: Session, arow: AgentRow) -> int:
    """Recompute `fade_at` of the agent's stale active memories (in a write transaction)."""
    st = settings_of(arow)
    rows = _stale(s, arow.id or 0)
    if rows:
        s.connection().execute(
            text("UPDATE memories SET fade_at = :f WHERE id = :id"),
            [{"f": to_iso(_fade(r, st)[1]), "id": r[0]} for r in rows],
        )
    return len(rows)


def count_candidates(s: Session, arow: AgentRow, at: datetime) -> int:
    """Active memories that are archive candidates at `at` (read-only; indexed)."""
    indexed = (
        s.connection()
        .execute(
            text(
                "SELECT count(*) FROM memories WHERE agent_id = :a AND status = 'active' "
                "AND fade_at <= :t"
            ),
            {"a": arow.id, "t": to_iso(at)},
        )
        .scalar()
    )
    # Stale rows are mostly ones a recall or use just reinforced. None can fade sooner
    # than the shortest fade (importance 0, no use) after its anchor: only older anchors
    # need the formula, which keeps this read cheap between maintenance runs.
    st = settings_of(arow)
    soonest = fade_days(st.half_life_days, 0.0, 0, st.archive_below, st.archive_idle_days)
    stale = _stale(s, arow.id or 0, to_iso(at - timedelta(days=soonest)))
    return int(indexed or 0) + sum(1 for r in stale if _fade(r, st)[1] <= at)


def fading(rt: Runtime, agent: str, *, within_days: float = FADING_DAYS) -> list[ArchiveCandidate]:
    """The agent's active memories that are archive candidates now or become ones within
    `within_days`: what maintenance (every few hours, in the host) will archive unless they
    are recalled, used or kept. Soonest first; strength as of now. Read-only."""
    if not 0 <= within_days <= 3650:
        raise InvalidInput("within_days must be between 0 and 3650.")
    now = rt.clock.now()
    with rt.read() as s:
        return _candidates(s, agent_row(s, agent), now + timedelta(days=within_days), now)


def _candidates(
    s: Session, arow: AgentRow, until: datetime, strength_at: datetime
) -> list[ArchiveCandidate]:
    """The active memories that are archive candidates at `until`, soonest first, with
    their strength at `strength_at`: rows whose stored fade time is due by then (indexed),
    and rows whose fade time is stale, evaluated here (as `count_candidates` does)."""
    st = settings_of(arow)
    columns = f"{_FADE_INPUTS}, category, text"
    due = s.connection().execute(
        text(
            f"SELECT {columns} FROM memories WHERE agent_id = :a AND status = 'active' "
            "AND fade_at <= :t"
        ),
        {"a": arow.id, "t": to_iso(until)},
    )
    soonest = fade_days(st.half_life_days, 0.0, 0, st.archive_below, st.archive_idle_days)
    stale = _stale(s, arow.id or 0, to_iso(until - timedelta(days=soonest)), columns)
    out = []
    for r in [*due, *stale]:
        anchor, fades = _fade(r, st)
        if fades > until:
            continue  # a stale row that does not fade by then
        power = strength(strength_at, anchor, st.half_life_days, float(r[5]), int(r[6]))
        out.append(ArchiveCandidate(int(r[0]), r[7], r[8], float(r[5]), power, anchor, fades))
    return sorted(out, key=lambda c: (c.fade_at, c.memory_id))


def maintain(
    rt: Runtime, agent: str, *, as_of: datetime | None = None, dry_run: bool = False
) -> MaintainReport:
    """Soft-archive the agent's archive candidates at `as_of` (default now).

    `as_of` in the future answers "what will have faded by then?"; `dry_run` only
    lists. Archiving sets status archived and archived_at (the real time), audited."""
    now = rt.now_iso()
    at = as_of or rt.clock.now()
    with rt.write() as s:
        arow = agent_row(s, agent)
        st = settings_of(arow)
        refresh(s, arow)
        found = _candidates(s, arow, at, at)
        archived: tuple[int, ...] = ()
        if found and not dry_run:
            archived = tuple(c.memory_id for c in found)
            s.connection().execute(
                text(
                    "UPDATE memories SET status = 'archived', archived_at = :now, "
                    "updated_at = :now WHERE id = :id AND status = 'active'"
                ),
                [{"now": now, "id": i} for i in archived],
            )
            record(
                s,
                now,
                "memory.archive",
                agent=agent,
                actor="system",
                ids=list(archived),
                counts={"archived": len(archived)},
            )
    return MaintainReport(
        agent, at, dry_run, st.archive_below, st.archive_idle_days, tuple(found), archived
    )


def archive_runs(
    rt: Runtime, agent: str | None = None, *, since: datetime | None = None, limit: int = 50
) -> list[ArchiveRun]:
    """When memories were archived and how many each time, the latest first (`agent` None:
    every agent's). Read from the (agent, archived_at) index: a run archives its memories
    at one time."""
    if limit <= 0:
        raise InvalidInput("limit must be a positive number.")
    where = "m.status = 'archived'"
    params: dict[str, Any] = {"limit": limit}
    with rt.read() as s:
        if agent is not None:
            where += " AND m.agent_id = :a"
            params["a"] = agent_row(s, agent).id or 0
        if since is not None:
            where += " AND m.archived_at >= :since"
            params["since"] = to_iso(since)
        rows = s.connection().execute(
            text(
                "SELECT a.name, m.archived_at, count(*) FROM memories m "
                f"JOIN agents a ON a.id = m.agent_id WHERE {where} "
                "GROUP BY m.agent_id, a.name, m.archived_at "
                "ORDER BY m.archived_at DESC LIMIT :limit"
            ),
            params,
        )
        return [ArchiveRun(str(name), from_iso(at), int(n)) for name, at, n in rows]


def archived(rt: Runtime, agent: str, *, limit: int = 50, offset: int = 0) -> list[Memory]:
    """An agent's archived memories, most recently archived first."""
    if limit <= 0 or offset < 0:
        raise InvalidInput("limit must be positive and offset not negative.")
    with rt.read() as s:
        arow = agent_row(s, agent)
        rows = s.exec(
            select(MemoryRow)
            .where(
                MemoryRow.agent_id == arow.id,
                col(MemoryRow.archived_at).is_not(None),
                MemoryRow.status == "archived",
            )
            .order_by(col(MemoryRow.archived_at).desc(), col(MemoryRow.id).desc())
            .limit(min(limit, 1000))
            .offset(offset)
        ).all()
        st, now = settings_of(arow), rt.clock.now()
        return [with_strength(row, agent, st, now) for row in rows]


def restore(rt: Runtime, ids: Iterable[int], *, actor: str = "owner") -> list[Memory]:
    """Make archived memories active again, reinforced now; their history is untouched.

    Raises NotFound for an unknown id, InvalidInput for one that is not archived."""
    return _reinforce(rt, ids, "archived", "memory.restore", "restored", actor)


def keep(rt: Runtime, ids: Iterable[int], *, actor: str = "owner") -> list[Memory]:
    """Keep active memories from fading: reinforced now, as a use would, so they are
    archive candidates again only after another idle spell. For the owner looking at
    what is about to be archived (the app's "Fading" list, `tapemind archive fading`).

    Raises NotFound for an unknown id, InvalidInput for one that is not active."""
    return _reinforce(rt, ids, "active", "memory.keep", "kept", actor)


_NOT_AS_EXPECTED = {
    "archived": "only archived memories can be restored (a superseded one comes back "
    "with `tapemind conflicts dispute ID`, as a conflict with what replaced it)",
    "active": "only active memories can be kept; restore an archived one",
}


def _reinforce(
    rt: Runtime, ids: Iterable[int], status: str, action: str, counted: str, actor: str
) -> list[Memory]:
    """Reinforce memories now that are all `status` (archived ones become active);
    one audit row per agent. Checks every id before changing any."""
    from app.memory import to_memory

    wanted = list(dict.fromkeys(int(i) for i in ids))
    if not wanted:
        raise InvalidInput(f"Give the ids of {status} memories.")
    now = rt.now_iso()
    with rt.write() as s:
        rows = []
        for memory_id in wanted:
            row = s.get(MemoryRow, memory_id)
            if row is None:
                raise NotFound(
                    f"No memory {memory_id}. See `tapemind archive list --agent NAME` and "
                    "`tapemind archive fading --agent NAME`."
                )
            if row.status != status:
                raise InvalidInput(
                    f"Memory {memory_id} is {row.status}, not {status}; {_NOT_AS_EXPECTED[status]}."
                )
            rows.append(row)
        out: list[Memory] = []
        for row in rows:
            row.status = "active"
            row.archived_at = None
            row.last_reinforced_at = now  # a trigger marks its fade time stale
            row.updated_at = now
            s.add(row)
        s.flush()
        by_agent: dict[int, list[int]] = {}
        for row in rows:
            by_agent.setdefault(row.agent_id, []).append(row.id)
        for agent_id, memory_ids in by_agent.items():
            owner = s.get(AgentRow, agent_id)
            assert owner is not None
            record(
                s,
                now,
                action,
                agent=owner.name,
                actor=actor,
                ids=memory_ids,
                counts={counted: len(memory_ids)},
            )
            out.extend(to_memory(r, owner.name) for r in rows if r.agent_id == agent_id)
        return out
