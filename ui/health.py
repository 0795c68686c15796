"""The dashboard's numbers, read on a worker thread: a health snapshot now, the stored
history for the trends, and what maintenance did lately. Nothing here touches Qt."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app import ArchiveRun, Engine, HealthSnapshot, InsightsWaiting

# The trends, one small plot each: (HealthSnapshot field, title). Each has its own
# scale, so a count that moves between 0 and 3 reads as well as one near 40.
TREND_METRICS = (
    ("active", "Active memories"),
    ("never_recalled", "Never recalled"),
    ("open_conflicts", "Open conflicts"),
    ("unembedded", "Unembedded"),
    ("archived", "Archived"),
    ("archive_candidates", "Archive candidates"),
)
RANGES = (("7 days", 7), ("30 days", 30), ("90 days", 90), ("1 year", 365), ("All", None))
MAINTENANCE_SHOWN = 50  # maintenance runs marked on the trends, at most
ONE_PASS = timedelta(minutes=2)  # agents archived this close together: one maintenance pass


@dataclass(frozen=True)
class MaintenancePass:
    """One maintenance pass over the agents: when, and what it archived of whom."""

    at: datetime
    archived: int
    by_agent: tuple[tuple[str, int], ...]


def passes(runs: Sequence[ArchiveRun]) -> tuple[MaintenancePass, ...]:
    """The engine's archive runs (one per agent), oldest first, as maintenance passes."""
    out: list[MaintenancePass] = []
    for run in sorted(runs, key=lambda r: r.at):
        last = out[-1] if out else None
        if last is not None and run.at - last.at <= ONE_PASS:
            out[-1] = MaintenancePass(
                last.at, last.archived + run.archived, (*last.by_agent, (run.agent, run.archived))
            )
        else:
            out.append(MaintenancePass(run.at, run.archived, ((run.agent, run.archived),)))
    return tuple(out)


@dataclass(frozen=True)
class HealthView:
    """What the dashboard shows for one agent or all of them."""

    agents: tuple[str, ...]
    now: HealthSnapshot
    pending_requests: int
    # (timestamp seconds, {metric: value}) per stored snapshot, oldest first
    history: tuple[tuple[float, dict[str, float]], ...]
    insights: InsightsWaiting | None = None  # proposed skills and grown ones to look at
    maintenance: tuple[MaintenancePass, ...] = ()  # maintenance passes in the range, oldest first
    stored: int = 0  # snapshots stored in the range (the history adds the figures now)


def _point(snap: HealthSnapshot) -> tuple[float, dict[str, float]]:
    values = {
        "active": snap.active,
        "never_recalled": snap.never_recalled,
        "open_conflicts": snap.open_conflicts,
        "unembedded": snap.unembedded,
        "archived": snap.archived,
        "archive_candidates": snap.archive_candidates,
    }
    return snap.at.timestamp(), {key: float(values[key]) for key, _ in TREND_METRICS}


def load(engine: Engine, agent: str | None, days: int | None) -> HealthView:
    """Gather the dashboard's numbers for `agent` (None: all agents)."""
    agents = tuple(a.name for a in engine.agents())
    since = engine.clock.now() - timedelta(days=days) if days else None
    now = engine.health(agent=agent)
    stored = [_point(s) for s in engine.health_history(agent=agent, since=since)]
    history = sorted(stored, key=lambda point: point[0])
    if not history or history[-1][0] < now.at.timestamp():
        # The trend ends where the cards are: a change since the last stored snapshot
        # (maintenance archived some memories at start) shows at once.
        history.append(_point(now))
    return HealthView(
        agents=agents,
        now=now,
        pending_requests=engine.count_access_requests("pending"),
        history=tuple(history),
        stored=len(stored),
        insights=engine.insights_waiting(agent),
        maintenance=passes(engine.archive_runs(agent, since=since, limit=MAINTENANCE_SHOWN)),
    )
