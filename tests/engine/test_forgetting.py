"""Decay on a manual clock, maintenance (dry run, as-of, real), the archive, restore, keep."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app import Engine, InvalidInput, NotFound
from app.clock import ManualClock
from app.memory.strength import anchor_time, fade_time, strength

DAY = timedelta(days=1)


def candidates(engine: Engine, **kw) -> list[int]:  # type: ignore[no-untyped-def]
    return [c.memory_id for c in engine.maintain("cc", dry_run=True, **kw).candidates]


def test_strength_decays_and_fade_time_agrees() -> None:
    from datetime import UTC, datetime

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    assert strength(t0, t0, 30, 0.5) == 1.0
    assert strength(t0 + 30 * DAY, t0, 30, 0.5) == pytest.approx(0.5)
    assert strength(t0 + 30 * DAY, t0, 30, 1.0) > strength(t0 + 30 * DAY, t0, 30, 0.0)
    assert strength(t0 + 30 * DAY, t0, 30, 0.5, use_count=5) > 0.5
    for importance, uses in [(0.0, 0), (0.5, 0), (1.0, 3), (0.2, 40)]:
        faded = fade_time(t0, 30, importance, uses, 0.1, 30)
        assert strength(faded, t0, 30, importance, uses) == pytest.approx(0.1)
    # short half-life: the idle minimum decides
    assert fade_time(t0, 1, 0.5, 0, 0.1, 30) == t0 + 30 * DAY
    assert anchor_time("2026-01-01T00:00:00.000000Z", None, "2026-02-01T00:00:00.000000Z") == (
        datetime(2026, 2, 1, tzinfo=UTC)
    )


def test_memories_fade_with_time_and_recall_reinforces(cc: Engine, clock: ManualClock) -> None:
    kept = cc.remember("cc", "inkstone uses PostgreSQL 16 in production.", "project_fact")
    lone = cc.remember("cc", "用户的周报每周五发给张总。", "project_fact")
    assert kept.memory and lone.memory
    clock.advance(days=50)
    assert candidates(cc) == []  # half-life 30 days x (0.5 + 0.5): strength 0.31 at 50 days
    # recalled (injected) now: reinforced; the budget leaves the other one out
    block = cc.context("cc", query="PostgreSQL production", budget=50)
    assert block.included_ids == (kept.memory.id,)
    clock.advance(days=55)  # 105 days after writing: strength of the other 0.09
    assert candidates(cc) == [lone.memory.id]
    report = cc.maintain("cc", dry_run=True)
    [c] = report.candidates
    assert c.strength < 0.1 and c.text == "用户的周报每周五发给张总。"
    assert (report.threshold, report.idle_days) == (0.1, 30.0)


def test_reported_use_reinforces_and_slows_decay(cc: Engine, clock: ManualClock) -> None:
    m = cc.remember("cc", "Run make check before pushing.", "lesson").memory
    assert m is not None
    clock.advance(days=20)
    cc.report_used("cc", "turn-1", [m.id])
    clock.advance(days=101)  # 101 days after the use: faded without the use bonus
    assert candidates(cc) == []  # one use stretches the half-life by 17 %
    clock.advance(days=20)
    assert candidates(cc) == [m.id]


def test_dry_run_lists_and_real_run_archives(cc: Engine, clock: ManualClock) -> None:
    weak = cc.remember("cc", "查过：京都10月初白天约24℃。", "task_outcome", importance=0.1).memory
    strong = cc.remember("cc", "王芳对花生过敏。", "project_fact", importance=1.0).memory
    assert weak and strong
    clock.advance(days=80)
    dry = cc.maintain("cc", dry_run=True)
    assert [c.memory_id for c in dry.candidates] == [weak.id] and dry.archived_ids == ()
    assert cc.memory(weak.id).memory.status == "active"
    real = cc.maintain("cc")
    assert real.archived_ids == (weak.id,)
    archived = cc.memory(weak.id).memory
    assert archived.status == "archived" and archived.archived_at == clock.now()
    assert cc.audit(action="memory.archive")[0].object_ids == (weak.id,)
    assert cc.maintain("cc").archived_ids == ()  # nothing left to archive


def test_each_maintenance_run_is_listed_with_what_it_archived(
    cc: Engine, clock: ManualClock
) -> None:
    """What the desktop app's archive timeline shows: one row per run, the latest first."""
    first = cc.remember("cc", "查过：京都10月初白天约24℃。", "task_outcome", importance=0.1).memory
    clock.advance(days=80)
    cc.maintain("cc")
    second = cc.remember("cc", "Checked: the Kyoto hotel has no gym.", "task_outcome",
                         importance=0.1).memory  # fmt: skip
    third = cc.remember("cc", "Checked: the ryokan serves breakfast at 7.", "task_outcome",
                        importance=0.1).memory  # fmt: skip
    assert first and second and third
    clock.advance(days=80)
    cc.maintain("cc")
    runs = cc.archive_runs()
    assert [(r.agent, r.archived) for r in runs] == [("cc", 2), ("cc", 1)]
    assert runs[0].at == clock.now() and runs[0].at - runs[1].at == 80 * DAY
    cc.restore([first.id])
    assert [r.archived for r in cc.archive_runs("cc")] == [2]


def test_as_of_evaluates_decay_at_another_date(cc: Engine, clock: ManualClock) -> None:
    m = cc.remember("cc", "Sprint demo is on Thursdays.", "project_fact").memory
    assert m is not None
    assert candidates(cc) == []
    assert candidates(cc, as_of=clock.now() + 120 * DAY) == [m.id]
    assert candidates(cc, as_of=clock.now() + 90 * DAY) == []
    assert cc.memory(m.id).memory.status == "active"


def test_a_memory_read_by_id_says_how_strong_it_is_now(cc: Engine, clock: ManualClock) -> None:
    m = cc.remember("cc", "用户的周报每周五发给张总。", "project_fact").memory
    assert m is not None
    assert cc.memory(m.id).memory.strength == 1.0  # just written
    clock.advance(days=30)  # one half-life at importance 0.5
    assert cc.memory(m.id).memory.strength == pytest.approx(0.5, abs=1e-3)
    cc.keep([m.id])
    assert cc.memory(m.id).memory.strength == 1.0  # kept: reinforced now


def test_restore_brings_back_with_history(cc: Engine, clock: ManualClock) -> None:
    m = cc.remember("cc", "inkstone v0.9.0 tagged.", "task_outcome", importance=0.1).memory
    assert m is not None
    cc.edit_memory(m.id, "inkstone v0.9.0 tagged on 2026-10-27.")
    clock.advance(days=80)
    assert cc.maintain("cc").archived_ids == (m.id,)
    [archived] = cc.archived("cc")
    assert archived.id == m.id
    # How far it faded, for the owner deciding on a restore: below the archive threshold.
    assert archived.strength is not None and 0 < archived.strength < 0.1
    assert cc.memory(m.id).memory.strength == archived.strength  # its page says the same
    [back] = cc.restore([m.id])
    assert back.status == "active" and back.archived_at is None
    detail = cc.memory(m.id)
    assert [v.version for v in detail.versions] == [1, 2]
    assert cc.archived("cc") == []
    assert candidates(cc) == []  # reinforced on restore
    assert cc.audit(action="memory.restore")[0].object_ids == (m.id,)
    with pytest.raises(InvalidInput, match="not archived"):
        cc.restore([m.id])


def test_keep_holds_a_fading_memory_back_from_the_archive(cc: Engine, clock: ManualClock) -> None:
    fading = cc.remember("cc", "用户的笔记本是 X1。", "project_fact", importance=0.1).memory
    other = cc.remember("cc", "The demo runs on Fridays.", "project_fact", importance=0.1).memory
    assert fading is not None and other is not None
    clock.advance(days=80)
    assert candidates(cc) == [fading.id, other.id]
    [kept] = cc.keep([fading.id])
    assert kept.status == "active" and kept.id == fading.id
    assert candidates(cc) == [other.id]  # reinforced: no longer fading
    assert cc.maintain("cc").archived_ids == (other.id,)
    assert cc.memory(fading.id).memory.status == "active"
    [row] = cc.audit(action="memory.keep")
    assert row.object_ids == (fading.id,) and row.actor == "owner" and row.agent == "cc"
    # It fades again after another idle spell, like any reinforced memory.
    clock.advance(days=80)
    assert candidates(cc) == [fading.id]
    with pytest.raises(InvalidInput, match=r"archived, not active; .*restore"):
        cc.keep([other.id])
    with pytest.raises(NotFound, match="No memory 999"):
        cc.keep([fading.id, 999])
    assert len(cc.audit(action="memory.keep")) == 1  # a refused batch changes nothing


def test_fading_looks_a_week_ahead_with_todays_strength(cc: Engine, clock: ManualClock) -> None:
    """What maintenance will archive soon, before it does: maintenance runs every few hours
    in the host, so the candidates of this instant are mostly archived already."""
    weak = cc.remember("cc", "Checked: 京都 is 24°C in early October.", "task_outcome",
                       importance=0.1).memory  # fmt: skip
    strong = cc.remember("cc", "用户对花生过敏。", "preference", importance=1.0).memory
    assert weak is not None and strong is not None
    assert cc.fading("cc") == []
    [ahead] = cc.fading("cc", within_days=100)  # never maintained: evaluated on the fly
    assert ahead.memory_id == weak.id and ahead.strength == pytest.approx(1.0)
    clock.set(ahead.fade_at - 3 * DAY)  # three days before it fades
    [soon] = cc.fading("cc")
    assert soon.memory_id == weak.id and soon.fade_at == ahead.fade_at
    assert 0.1 < soon.strength < 0.2  # today's strength: still above the threshold
    assert cc.fading("cc", within_days=1) == []
    assert cc.maintain("cc").archived_ids == ()  # not yet a candidate
    assert [c.memory_id for c in cc.fading("cc")] == [weak.id]  # maintained: indexed
    cc.keep([weak.id])
    assert cc.fading("cc") == []
    with pytest.raises(InvalidInput, match="within_days"):
        cc.fading("cc", within_days=-1)


def test_archived_left_out_of_context_and_found_on_request(cc: Engine, clock: ManualClock) -> None:
    m = cc.remember("cc", "用户喜欢靠窗的座位。", "preference", importance=0.1).memory
    assert m is not None
    clock.advance(days=80)
    cc.maintain("cc")
    block = cc.context("cc", query="靠窗 座位")
    assert m.id not in block.included_ids
    assert (m.id, "archived") in {(d.memory_id, d.reason) for d in block.dropped}
    assert cc.search("cc", "靠窗", mode="fulltext").hits == ()
    found = cc.search("cc", "靠窗", mode="fulltext", status="archived")
    assert [h.id for h in found.hits] == [m.id]


def test_settings_change_moves_the_fade(cc: Engine, clock: ManualClock) -> None:
    m = cc.remember("cc", "Deploys wait for review in the production environment.", "lesson")
    assert m.memory is not None
    clock.advance(days=40)
    assert candidates(cc) == []
    cc.configure_agent("cc", half_life_days=5)
    assert candidates(cc) == [m.memory.id]
    cc.configure_agent("cc", archive_idle_days=60)
    assert candidates(cc) == []
    with pytest.raises(InvalidInput, match="archive_below"):
        cc.configure_agent("cc", archive_below=1.5)
