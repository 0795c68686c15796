"""Health snapshots on a crafted home: every figure, all agents, stored history."""

from __future__ import annotations

from datetime import timedelta

from app import Engine
from app.clock import ManualClock
from app.engine import runtime_of
from app.lifecycle.health import HealthSnapshot


def craft(engine: Engine, clock: ManualClock) -> dict[str, int]:
    """Agent cc: 6 memories written 100 days ago, then one of each thing health counts."""
    engine.add_agent("cc")
    engine.add_agent("dc")
    ids = {}
    texts = {
        "pg": ("inkstone runs PostgreSQL 16 in production.", 0.5),
        "tabs": ("lin wants tabs for indentation in inkstone.", 0.9),
        "weather": ("查过：京都10月初白天约24℃。", 0.1),
        "bmi": ("算过王芳的 BMI 为 24.0。", 0.1),
        "gone": ("A note the owner will forget.", 0.5),
        "cat": ("用户喜欢猫。", 0.5),
    }
    for key, (text, importance) in texts.items():
        m = engine.remember("cc", text, "project_fact", importance=importance).memory
        assert m is not None
        ids[key] = m.id
    engine.append("cc", [{"thread": "x", "kind": "message", "role": "user", "text": "hi there"}])
    engine.remember("dc", "王芳的周报每周五17:00前发给张总。", "project_fact")
    clock.advance(days=100)
    conflict = engine.remember("cc", "用户不喜欢猫。", "preference")  # an open conflict, now
    assert conflict.decision == "conflict"
    ids["cat2"] = conflict.memory.id  # type: ignore[union-attr]
    engine.forget(ids["gone"])
    engine.maintain("cc", as_of=clock.now() - timedelta(days=5))  # archives the two weakest
    clock.advance(days=2)
    block = engine.context("cc", query="PostgreSQL tabs inkstone", budget=60)  # overflows
    assert block.included and any(d.reason == "over_budget" for d in block.dropped)
    engine.report_used("cc", "turn-9", [block.included_ids[0]])
    ids["used"] = block.included_ids[0]
    return ids


def test_health_counts_what_the_owner_should_see(engine: Engine, clock: ManualClock) -> None:
    ids = craft(engine, clock)
    h = engine.health("cc")
    assert isinstance(h, HealthSnapshot) and h.agent == "cc" and h.at == clock.now()
    assert (h.total, h.active, h.archived, h.superseded, h.forgotten) == (7, 4, 2, 0, 1)
    injected = 1
    assert h.never_recalled == h.active - injected
    assert h.injected_never_used == 0  # the one injected was reported used
    assert h.open_conflicts == 1 and h.oldest_conflict_age_days == 2.0
    # nothing drains the embedding queue in this home: 6 memory texts and 1 message wait
    assert h.unembedded == 7 and h.oldest_unembedded_age_days == 102.0
    # pg/tabs/cat are 102 days idle: tabs (importance 0.9) has not faded yet
    assert h.archive_candidates == 2
    faded = [c.memory_id for c in engine.maintain("cc", dry_run=True).candidates]
    assert sorted(faded) == [ids["pg"], ids["cat"]]
    assert h.tape_entries == 8  # 7 remember calls + 1 message
    assert (h.recalls, h.recall_overflows) == (1, 1)
    data = h.to_dict()
    for key in ("never_recalled", "open_conflicts", "unembedded", "archived", "archive_candidates"):
        assert key in data
    assert ids["used"] == ids["tabs"]  # the best-ranked memory took the budget


def test_all_agents_is_the_sum(engine: Engine, clock: ManualClock) -> None:
    craft(engine, clock)
    cc, dc, every = engine.health("cc"), engine.health("dc"), engine.health()
    assert every.agent is None
    for key in ("total", "active", "archived", "unembedded", "tape_entries", "never_recalled"):
        assert getattr(every, key) == getattr(cc, key) + getattr(dc, key)
    assert every.oldest_unembedded_age_days == max(
        cc.oldest_unembedded_age_days or 0, dc.oldest_unembedded_age_days or 0
    )
    assert dc.open_conflicts == 0 and dc.oldest_conflict_age_days is None


def test_snapshots_are_stored_as_history(engine: Engine, clock: ManualClock) -> None:
    engine.add_agent("cc")
    start = clock.now()
    for day in range(3):
        engine.remember("cc", f"第 {day} 天的记录：完成了部署清单第 {day} 项。", "task_outcome")
        engine.health("cc", save=True)
        engine.health(save=True)
        clock.advance(days=1)
    engine.health("cc")  # not saved
    series = engine.health_history("cc")
    assert [s.total for s in series] == [1, 2, 3]
    assert [s.at for s in series] == [start + timedelta(days=d) for d in range(3)]
    assert len(engine.health_history()) == 3 and engine.health_history()[0].agent is None
    since = engine.health_history("cc", since=start + timedelta(hours=12))
    assert [s.total for s in since] == [2, 3]


def test_counts_kept_by_triggers_match_the_rows(engine: Engine, clock: ManualClock) -> None:
    """Every path that changes a memory's class keeps the O(1) counts exact."""
    from sqlalchemy import text

    ids = craft(engine, clock)
    engine.restore([ids["weather"]])
    merged = "用户以前喜欢猫，现在不喜欢。"
    engine.resolve_conflict(engine.conflicts("cc")[0].id, "merge", text=merged)
    engine.context("cc", query="inkstone")
    engine.report_used("cc", "turn-10", [ids["tabs"]])
    engine.add_agent("gone")
    engine.remember("gone", "A memory of an agent that will be removed.", "lesson")
    engine.remove_agent("gone")
    with runtime_of(engine).read() as s:
        rows = s.connection().execute(text(
            "SELECT status, count(*), sum(CASE WHEN recall_count = 0 THEN 1 ELSE 0 END), "
            "sum(CASE WHEN recall_count > 0 AND use_count = 0 THEN 1 ELSE 0 END) FROM memories "
            "WHERE agent_id = (SELECT id FROM agents WHERE name = 'cc') GROUP BY status"
        )).all()  # fmt: skip
    h = engine.health("cc")
    for status, n, never, unused in rows:
        assert getattr(h, status) == n
        if status == "active":
            assert (h.never_recalled, h.injected_never_used) == (never, unused)
    assert h.total == sum(r[1] for r in rows)
    assert engine.health().total == h.total + engine.health("dc").total
