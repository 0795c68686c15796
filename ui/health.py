"""Reading the engine's health, whatever this engine version offers (worker side).

With `engine.health` the dashboard shows a HealthSnapshot; before that lands it
shows only what the engine can honestly count (memories by status, tape size)
and marks the rest unavailable. Nothing here touches Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

STATUSES = ("active", "archived", "superseded", "forgotten")
TREND_METRICS = (
    ("active", "Active memories"),
    ("never_recalled", "Never recalled"),
    ("open_conflicts", "Open conflicts"),
    ("unembedded", "Unembedded"),
    ("archived", "Archived"),
    ("archive_candidates", "Archive candidates"),
)
RANGES = (("7 days", 7), ("30 days", 30), ("90 days", 90), ("1 year", 365), ("All", None))


@dataclass(frozen=True)
class HealthView:
    """What the dashboard shows; None means 'not available in this engine'."""

    agents: tuple[str, ...]
    totals: dict[str, int]
    tape_entries: int | None
    never_recalled: int | None = None
    open_conflicts: int | None = None
    oldest_conflict_age_s: float | None = None
    unembedded: int | None = None
    oldest_unembedded_age_s: float | None = None
    archived: int | None = None
    archive_candidates: int | None = None
    pending_requests: int | None = None
    # insights: proposals waiting for review, grown skills whose memories changed
    proposals_waiting: int | None = None
    skills_to_review: int | None = None
    # (timestamp seconds, {metric: value}) per stored snapshot, oldest first
    history: tuple[tuple[float, dict[str, float]], ...] | None = None
    from_snapshot: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _has(engine: Any, name: str) -> bool:
    return callable(getattr(engine, name, None))


def _first(obj: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


def snapshot_totals(snap: Any) -> dict[str, int]:
    """Memories by status: a mapping field, or one field per status."""
    totals = _first(snap, "totals", "by_status", "totals_by_status", default=None)
    if isinstance(totals, dict):
        return {k: int(v) for k, v in totals.items()}
    return {s: int(_first(snap, s, default=0) or 0) for s in STATUSES}


def _age_s(snap: Any, name: str) -> float | None:
    """An age in seconds from `<name>_s` or `<name>_days`."""
    seconds = _first(snap, f"{name}_s")
    if isinstance(seconds, int | float):
        return float(seconds)
    days = _first(snap, f"{name}_days")
    return float(days) * 86400 if isinstance(days, int | float) else None


def snapshot_time(snap: Any) -> datetime | None:
    value = _first(snap, "at", "taken_at", "created_at", "time")
    return value if isinstance(value, datetime) else None


def load(engine: Any, agent: str | None, days: int | None) -> HealthView:
    """Gather the dashboard's numbers for `agent` (None: all agents)."""
    agents = tuple(a.name for a in engine.agents())
    names = [agent] if agent else list(agents)
    pending = None
    if _has(engine, "access_requests"):
        pending = len(engine.access_requests(status="pending"))
    history = _history(engine, agent, days) if _has(engine, "health_history") else None
    waiting = engine.insights_waiting(agent) if _has(engine, "insights_waiting") else None
    insights = (
        {"proposals_waiting": waiting.proposals,
         "skills_to_review": waiting.skills_to_review + waiting.stale_skills}
        if waiting is not None else {}
    )  # fmt: skip
    if _has(engine, "health"):
        snap = engine.health(agent=agent)
        return HealthView(
            agents=agents,
            totals=snapshot_totals(snap),
            tape_entries=_first(snap, "tape_entries"),
            never_recalled=_first(snap, "never_recalled"),
            open_conflicts=_first(snap, "open_conflicts"),
            oldest_conflict_age_s=_age_s(snap, "oldest_conflict_age"),
            unembedded=_first(snap, "unembedded"),
            oldest_unembedded_age_s=_age_s(snap, "oldest_unembedded_age"),
            archived=_first(snap, "archived"),
            archive_candidates=_first(snap, "archive_candidates"),
            pending_requests=pending,
            history=history,
            from_snapshot=True,
            **insights,
        )
    totals = {s: 0 for s in STATUSES}
    tape_entries = 0
    for name in names:
        stats = engine.agent_stats(name)
        tape_entries += int(stats.get("tape_entries", 0))
        for status, n in dict(stats.get("memories", {})).items():
            totals[status] = totals.get(status, 0) + int(n)
    return HealthView(
        agents=agents,
        totals=totals,
        tape_entries=tape_entries,
        archived=totals.get("archived", 0),
        pending_requests=pending,
        history=history,
        **insights,
    )


def _history(
    engine: Any, agent: str | None, days: int | None
) -> tuple[tuple[float, dict[str, float]], ...]:
    since = engine.clock.now() - timedelta(days=days) if days else None
    points = []
    for snap in engine.health_history(agent=agent, since=since):
        at = snapshot_time(snap)
        if at is None:
            continue
        values: dict[str, float] = {}
        totals = snapshot_totals(snap)
        if "active" in totals:
            values["active"] = float(totals["active"])
        for key, _label in TREND_METRICS:
            value = _first(snap, key)
            if isinstance(value, int | float):
                values[key] = float(value)
        points.append((at.timestamp(), values))
    points.sort(key=lambda p: p[0])
    return tuple(points)
