"""The lifecycle part of the demo home: open conflicts, an archive, a year of health history.

Called from `app.demo.seed._extend` once the agents, tapes and memories are seeded:
- each agent's `conflicts` in demo.json (an existing memory's key, a challenger's text
  and sources, the reason) become a stored challenger and an open conflict, raised
  at the time of the challenger's source turn;
- maintenance runs as of two weeks ago, so the memories that had faded by then are
  archived and the ones fading since are archive candidates on the dashboard;
- a year of daily snapshots per agent and for all agents, synthetic but plausible
  (growth, weekly rhythm, archive steps), ends in the real snapshot taken now.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import random
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert

from app.clock import ManualClock, from_iso, to_iso
from app.confront import raise_conflict, store_decision
from app.db import HealthSnapshotRow, TapeEntryRow
from app.demo.times import shift_dates
from app.engine import runtime_of
from app.errors import TapemindError
from app.lifecycle import HealthSnapshot
from app.runtime import agent_row
from app.text import memory_hash

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from app.engine import Engine

HISTORY_DAYS = 365
ARCHIVED_BEFORE = timedelta(days=14)


def seed(
    engine: Engine, clock: ManualClock, data: dict[str, Any], now: datetime, embed: bool = False
) -> dict[str, int]:
    """Seed the lifecycle state; returns counts (conflicts, archived, snapshots, embedded).
    With `embed`, the rows are embedded before the real snapshot that ends the history."""
    shift = now - from_iso(data["now"])
    conflicts = sum(_conflicts(engine, clock, spec, shift) for spec in data["agents"])
    clock.set(now - ARCHIVED_BEFORE)
    archived = sum(len(engine.maintain(spec["name"]).archived_ids) for spec in data["agents"])
    clock.set(now)
    embedded = _embed(engine) if embed else 0
    snapshots = _history(engine, [spec["name"] for spec in data["agents"]], now)
    return {
        "conflicts": conflicts,
        "archived": archived,
        "snapshots": snapshots,
        "embedded": embedded,
    }


def _embed(engine: Engine) -> int:
    """Embed every queued row; 0 when the model cannot load here (the rows then wait for
    a host, as any new row does)."""
    try:
        return int(engine.run_indexer().embedded)
    except TapemindError as exc:
        log.warning("the demo's rows stay unembedded: %s", exc.message)
        return 0


def _conflicts(engine: Engine, clock: ManualClock, spec: dict[str, Any], shift: timedelta) -> int:
    from app.memory import NewMemory, store_new

    rt = runtime_of(engine)
    count = 0
    for c in spec.get("conflicts", []):
        existing = spec["_memory_ids"][c["existing"]]
        challenger = c["challenger"]
        sources = [
            spec["_entry_ids"][(s["thread"], s["turn"], s["index"])] for s in challenger["sources"]
        ]
        with rt.write() as s:
            entry = s.get(TapeEntryRow, sources[0])
            assert entry is not None
            clock.set(from_iso(entry.created_at) + timedelta(minutes=3))
            arow = agent_row(s, spec["name"])
            digest = memory_hash(challenger["text"])
            memory = store_new(
                rt,
                s,
                arow,
                NewMemory(
                    body=challenger["text"],
                    category=challenger["category"],
                    digest=digest,
                    source_ids=tuple(sources),
                    importance=challenger.get("importance", 0.6),
                    confidence=0.8,
                    thread=entry.thread,
                    turn=entry.turn,
                    user=entry.user,
                    actor="agent",
                ),
            )
            reason = shift_dates(c["reason"], shift)
            conflict_id = raise_conflict(
                s, rt.now_iso(), arow, existing, memory.id, reason, "offline", "agent"
            )
            store_decision(
                s,
                rt.now_iso(),
                arow,
                digest,
                challenger["category"],
                "conflict",
                target_id=existing,
                memory_id=memory.id,
                conflict_id=conflict_id,
                arbiter="offline",
                reason=reason,
                neighbours=1,
                actor="agent",
                latency_ms=0.0,
            )
        count += 1
    return count


def _series(final: HealthSnapshot, now: datetime, rng: random.Random) -> list[HealthSnapshot]:
    """Daily snapshots for a year before `final`, growing towards it."""
    out = []
    for back in range(HISTORY_DAYS, 0, -1):
        day = now - timedelta(days=back)
        f = 1.0 - back / (HISTORY_DAYS + 30)  # a home that started a month before the series
        growth = f**1.3

        def grow(value: int, noise: float = 0.03, growth: float = growth) -> int:
            return max(0, round(value * growth * (1 + rng.uniform(-noise, noise))))

        weekday = day.weekday() < 5
        active = grow(final.active)

        def part(
            value: int, low: float, high: float, active: int = active, growth: float = growth
        ) -> int:
            # a share of the active memories: never more than there are
            return min(active, max(0, round(value * growth * rng.uniform(low, high))))

        archived = round(final.archived * max(0.0, f - 0.25) ** 2 / 0.5625)  # archive steps
        out.append(
            dataclasses.replace(
                final,
                at=day,
                total=active + archived + grow(final.superseded) + grow(final.forgotten, 0),
                active=active,
                archived=archived,
                superseded=grow(final.superseded),
                forgotten=grow(final.forgotten, 0),
                never_recalled=part(final.never_recalled, 0.85, 1.15),
                injected_never_used=grow(final.injected_never_used, 0.2),
                open_conflicts=rng.choice((0, 0, 0, 1, 1, 2)) if f > 0.3 else 0,
                oldest_conflict_age_days=None,
                unembedded=rng.choice((0, 0, 1, 2, 3)) if weekday else 0,
                oldest_unembedded_age_days=None,
                archive_candidates=part(final.archive_candidates, 0.2, 1.1),
                tape_entries=grow(final.tape_entries, 0.01),
                recalls=round(rng.uniform(20, 90) * growth) if weekday else rng.randint(0, 12),
                recall_overflows=rng.randint(0, 4) if weekday else 0,
                compute_ms=round(rng.uniform(2, 9), 3),
            )
        )
        if out[-1].open_conflicts:
            out[-1] = dataclasses.replace(
                out[-1], oldest_conflict_age_days=round(rng.uniform(0.2, 12.0), 2)
            )
    return out


def _history(engine: Engine, agents: list[str], now: datetime) -> int:
    rt = runtime_of(engine)
    rows: list[dict[str, Any]] = []
    with rt.read() as s:
        ids: dict[str | None, int | None] = {a: agent_row(s, a).id for a in agents}
    ids[None] = None
    for name, agent_id in ids.items():
        final = engine.health(name)
        rng = random.Random(f"tapemind-demo-{name}")
        for snap in [*_series(final, now, rng), final]:
            rows.append({"agent_id": agent_id, "at": to_iso(snap.at), "data": json.dumps(
                snap.to_dict())})  # fmt: skip
    with rt.write() as s:
        s.execute(insert(HealthSnapshotRow), rows)
    return len(rows)
