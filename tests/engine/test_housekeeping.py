"""What the host schedules: maintenance of every agent with stored health snapshots;
and lifecycle state survives export and import."""

from __future__ import annotations

from pathlib import Path

from app import Engine
from app.clock import ManualClock
from app.host.background import maintain_all


def test_maintain_all_archives_and_snapshots_every_agent(
    engine: Engine, clock: ManualClock
) -> None:
    for name in ("cc", "dc"):
        engine.add_agent(name)
        engine.remember(name, f"{name}: 查过的天气，下周就没用了。", "task_outcome", importance=0.1)
    clock.advance(days=90)
    reports = maintain_all(engine)
    assert sorted(reports) == ["cc", "dc"]
    assert all(len(r.archived_ids) == 1 for r in reports.values())
    assert engine.health_history("cc")[-1].archived == 1
    assert engine.health_history()[-1].archived == 2  # the all-agents series too
    maintain_all(engine)
    assert len(engine.health_history("dc")) == 2


def test_lifecycle_state_survives_export_and_import(
    engine: Engine, clock: ManualClock, tmp_path: Path
) -> None:
    engine.add_agent("cc")
    engine.remember("cc", "用户喜欢猫。", "preference")
    conflict = engine.remember("cc", "用户不喜欢猫。", "preference")
    assert conflict.conflict_id is not None
    engine.health("cc", save=True)
    out = tmp_path / "home.jsonl"
    engine.export(out)
    with Engine.open(tmp_path / "copy", create=True, clock=clock) as copy:
        copy.import_(out)
        [c] = copy.conflicts("cc")
        assert c.challenger.memory.text == "用户不喜欢猫。"
        assert [d.action for d in copy.decisions("cc")] == ["conflict", "add"]
        assert len(copy.health_history("cc")) == 1
        # full-text neighbours work in the imported home (its index was rebuilt)
        again = copy.remember("cc", "用户喜欢狗。", "preference")
        assert again.decision == "conflict"
        assert again.target_id in (c.existing.memory.id, c.challenger.memory.id)
        assert copy.health("cc").open_conflicts == 2
