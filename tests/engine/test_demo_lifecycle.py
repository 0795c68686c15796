"""The demo home's lifecycle part: open conflicts from demo.json, an archive, a year of trends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from app import Engine
from app.clock import ManualClock
from app.demo.seed import load_data, seed

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


def test_demo_seeds_conflicts_archive_and_history(home: Path) -> None:
    counts = seed(home, now=NOW)
    data = load_data()
    expected = sum(len(a["conflicts"]) for a in data["agents"])
    # 39 memories written first, then one challenger per conflict: what the home holds.
    assert counts["conflicts"] == expected and counts["memories"] == 39 + expected
    with Engine.open(home, clock=ManualClock(NOW)) as engine:
        # the curated memories are stored as written: no arbiter merged any of them
        assert all(d.action == "add" for d in engine.decisions("claude-code", limit=1000)
                   if d.arbiter == "seed")  # fmt: skip
        opened = engine.conflicts()
        assert len(opened) == expected
        challengers = {c.challenger.memory.text for c in opened}
        for agent in data["agents"]:
            for c in agent["conflicts"]:
                assert c["challenger"]["text"] in challengers
        assert all(c.challenger.sources and c.existing.sources for c in opened)
        allergy = next(c for c in opened if "花生" in c.challenger.memory.text)
        assert allergy.existing.memory.text == "王芳没有食物过敏。"
        every = engine.health()
        assert every.archived >= 1 and every.archive_candidates >= 1
        assert every.open_conflicts == expected
        for agent in (None, "claude-code", "deepchat"):
            series = engine.health_history(agent)
            assert len(series) == 366
            assert series[-1].at == NOW and series[0].at == NOW - timedelta(days=365)
            assert series[-1].total == engine.health(agent).total
            assert series[0].total < series[-1].total  # the home grew over the year


def test_the_demo_reads_as_one_consistent_history(home: Path) -> None:
    """What a new user checks first: dates a reason cites are the days its evidence shows,
    an agent exists before its tape starts, the audit reads in time order, and no health
    figure of the history counts more memories than there are."""
    import re

    later = NOW + timedelta(days=3, hours=5)  # the data's dates move with the real now
    seed(home, now=later)
    with Engine.open(home, clock=ManualClock(later)) as engine:
        for c in engine.conflicts():
            cited = set(re.findall(r"20\d\d-\d\d-\d\d", c.reason))
            shown = {
                e.created_at.date().isoformat()
                for side in (c.existing, c.challenger)
                for e in side.sources
            } | {side.memory.created_at.date().isoformat() for side in (c.existing, c.challenger)}
            assert cited <= shown, (c.reason, shown)
        for agent in engine.agents():
            first = engine.tape(agent.name, since=datetime(2000, 1, 1, tzinfo=UTC), limit=1)
            assert agent.created_at <= first[0].created_at, agent.name
        times = [a.at for a in engine.audit(limit=10_000)]
        assert times == sorted(times, reverse=True)
        for agent in (None, "claude-code", "deepchat"):
            for snap in engine.health_history(agent):
                assert snap.archive_candidates <= snap.active, (agent, snap.at)
                assert snap.never_recalled <= snap.active, (agent, snap.at)
