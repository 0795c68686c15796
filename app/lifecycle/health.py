"""Health snapshots: the memory's state at a glance, kept as history for trends.

Every figure comes from an indexed count (migration 3 adds the indexes), so a
snapshot stays cheap at 100,000+ memories:
- memories by status (total, active, archived, superseded, forgotten);
- never_recalled: active memories no `context` call ever injected;
- injected_never_used: active memories injected at least once, never reported used;
- open_conflicts and the oldest one's age;
- unembedded: rows waiting in the embedding queue, and the oldest one's age;
- archive_candidates: active memories that maintenance would archive now;
- tape_entries: the agent's tape length (its highest sequence number);
- recalls and recall_overflows (recalls that dropped memories over the token budget)
  over the last RECENT_DAYS days;
- index_stalled_since / index_stalled_because: the vector index is not keeping up (a full
  disk, a damaged or missing index, a store that stopped answering), home-wide, so the
  same in every agent's snapshot; `index_note(lang)` is the sentence to show.
The snapshot for all agents is the sum of the agents' (ages: the oldest).
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, select

from app.clock import from_iso, to_iso
from app.confront import count_open
from app.db import AgentRow, HealthSnapshotRow
from app.index import current_stall, stall_message
from app.lifecycle.forgetting import count_candidates
from app.runtime import Runtime, agent_row

RECENT_DAYS = 7
# Derived counts, kept by triggers (migration 3): an import rebuilds them as rows arrive.
_COUNTS = (
    "total",
    "active",
    "archived",
    "superseded",
    "forgotten",
    "never_recalled",
    "injected_never_used",
    "open_conflicts",
    "unembedded",
    "archive_candidates",
    "tape_entries",
    "recalls",
    "recall_overflows",
)


@dataclass(frozen=True)
class HealthSnapshot:
    """Counts at one time for one agent (`agent` None: all agents). Ages in days."""

    agent: str | None
    at: datetime
    total: int = 0
    active: int = 0
    archived: int = 0
    superseded: int = 0
    forgotten: int = 0
    never_recalled: int = 0
    injected_never_used: int = 0
    open_conflicts: int = 0
    oldest_conflict_age_days: float | None = None
    unembedded: int = 0
    oldest_unembedded_age_days: float | None = None
    archive_candidates: int = 0
    tape_entries: int = 0
    recalls: int = 0
    recall_overflows: int = 0
    recent_days: int = RECENT_DAYS
    compute_ms: float = 0.0
    # The vector index has not kept up since then, for this reason (a code of
    # `app.index.stall.REASONS`: disk_full, damaged, missing, not_answering, ...).
    index_stalled_since: datetime | None = None
    index_stalled_because: str | None = None

    def index_note(self, lang: str = "en") -> str | None:
        """'Index stalled since … because …' in English ("en") or Chinese ("zh"), for the
        dashboard; None while the index keeps up."""
        if self.index_stalled_since is None or self.index_stalled_because is None:
            return None
        return stall_message(self.index_stalled_because, self.index_stalled_since, lang)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (times as ISO text)."""
        data = dataclasses.asdict(self)
        data["at"] = to_iso(self.at)
        if self.index_stalled_since is not None:
            data["index_stalled_since"] = to_iso(self.index_stalled_since)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HealthSnapshot:
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["at"] = from_iso(values["at"])
        if values.get("index_stalled_since"):
            values["index_stalled_since"] = from_iso(values["index_stalled_since"])
        return cls(**values)


def _age_days(now: datetime, since: str | None) -> float | None:
    if not since:
        return None
    return round(max(0.0, (now - from_iso(since)).total_seconds() / 86400.0), 4)


def _one(s: Session, sql: str, **params: Any) -> Any:
    return s.connection().execute(text(sql), params).one()


def _agent_snapshot(s: Session, arow: AgentRow, now: datetime) -> HealthSnapshot:
    a = arow.id
    by_status: dict[str, int] = {}
    never = unused = 0
    for status, recalled, used, n in s.connection().execute(
        text("SELECT status, recalled, used, n FROM memory_class_counts WHERE agent_id = :a"),
        {"a": a},
    ):
        by_status[status] = by_status.get(status, 0) + int(n)
        if status == "active" and not recalled:
            never += int(n)
        elif status == "active" and not used:
            unused += int(n)
    conflicts, oldest_conflict = count_open(s, a or 0)
    queued, oldest_queued = _one(
        s, "SELECT count(*), min(enqueued_at) FROM embed_queue WHERE agent_id = :a", a=a
    )
    tape = _one(s, "SELECT max(seq) FROM tape_entries WHERE agent_id = :a", a=a)[0]
    since = to_iso(now - timedelta(days=RECENT_DAYS))
    recalls, overflows = _one(
        s,
        "SELECT count(*), coalesce(sum(CASE WHEN over_budget > 0 THEN 1 ELSE 0 END), 0) "
        "FROM recalls WHERE agent_id = :a AND at >= :since",
        a=a,
        since=since,
    )
    return HealthSnapshot(
        agent=arow.name,
        at=now,
        total=sum(by_status.values()),
        active=by_status.get("active", 0),
        archived=by_status.get("archived", 0),
        superseded=by_status.get("superseded", 0),
        forgotten=by_status.get("forgotten", 0),
        never_recalled=int(never),
        injected_never_used=int(unused),
        open_conflicts=conflicts,
        oldest_conflict_age_days=_age_days(now, oldest_conflict),
        unembedded=int(queued),
        oldest_unembedded_age_days=_age_days(now, oldest_queued),
        archive_candidates=count_candidates(s, arow, now),
        tape_entries=int(tape or 0),
        recalls=int(recalls),
        recall_overflows=int(overflows),
    )


def _sum(parts: list[HealthSnapshot], now: datetime) -> HealthSnapshot:
    totals = {k: sum(getattr(p, k) for p in parts) for k in _COUNTS}

    def oldest(name: str) -> float | None:
        ages = [getattr(p, name) for p in parts if getattr(p, name) is not None]
        return max(ages) if ages else None

    return HealthSnapshot(
        agent=None,
        at=now,
        oldest_conflict_age_days=oldest("oldest_conflict_age_days"),
        oldest_unembedded_age_days=oldest("oldest_unembedded_age_days"),
        **totals,
    )


def compute(rt: Runtime, agent: str | None = None) -> HealthSnapshot:
    """The snapshot now for `agent` (None: all agents together). Read-only."""
    started = time.perf_counter()
    now = rt.clock.now()
    with rt.read() as s:
        if agent is not None:
            snap = _agent_snapshot(s, agent_row(s, agent), now)
        else:
            rows = s.exec(select(AgentRow).order_by(col(AgentRow.id))).all()
            snap = _sum([_agent_snapshot(s, r, now) for r in rows], now)
    stall = current_stall(rt)
    if stall is not None:
        snap = dataclasses.replace(
            snap, index_stalled_since=stall.since, index_stalled_because=stall.because
        )
    ms = round((time.perf_counter() - started) * 1000.0, 3)
    return dataclasses.replace(snap, compute_ms=ms)


def save(rt: Runtime, snap: HealthSnapshot) -> None:
    """Store a snapshot in the history."""
    with rt.write() as s:
        agent_id = agent_row(s, snap.agent).id if snap.agent is not None else None
        s.add(
            HealthSnapshotRow(
                agent_id=agent_id, at=to_iso(snap.at), data=json.dumps(snap.to_dict())
            )
        )


def history(
    rt: Runtime, agent: str | None = None, since: datetime | None = None
) -> list[HealthSnapshot]:
    """Stored snapshots of `agent` (None: the all-agents series), oldest first."""
    with rt.read() as s:
        q = select(HealthSnapshotRow.data)
        if agent is not None:
            q = q.where(HealthSnapshotRow.agent_id == agent_row(s, agent).id)
        else:
            q = q.where(col(HealthSnapshotRow.agent_id).is_(None))
        if since is not None:
            q = q.where(HealthSnapshotRow.at >= to_iso(since))
        rows = s.exec(q.order_by(col(HealthSnapshotRow.at), col(HealthSnapshotRow.id))).all()
        return [HealthSnapshot.from_dict(json.loads(d)) for d in rows]
