"""Conflicts a person settles: list with both sides, resolve each way, audited, lineage right."""

from __future__ import annotations

import pytest

from app import Engine, InvalidInput, NotFound
from app.clock import ManualClock

CASES = {
    "en": ("Likes dark mode.", "Does not like dark mode.", "preference"),
    "zh": ("用户喜欢猫。", "用户不喜欢猫。", "preference"),
}


def open_conflict(engine: Engine, lang: str = "zh") -> tuple[int, int, int]:
    """(conflict id, existing id, challenger id), each side with its own tape entry."""
    old, new, cat = CASES[lang]
    engine.add_agent("cc")
    e1, e2 = engine.append("cc", [
        {"thread": "t1", "turn": "u1", "kind": "message", "role": "user", "text": old},
        {"thread": "t2", "turn": "u2", "kind": "message", "role": "user", "text": new},
    ]).ids  # fmt: skip
    existing = engine.remember("cc", old, cat, sources=[e1]).memory
    result = engine.remember("cc", new, cat, sources=[e2])
    assert existing is not None and result.memory is not None
    assert result.decision == "conflict" and result.conflict_id is not None
    return result.conflict_id, existing.id, result.memory.id


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_list_shows_both_texts_reason_age_and_sources(
    engine: Engine, clock: ManualClock, lang: str
) -> None:
    cid, old_id, new_id = open_conflict(engine, lang)
    clock.advance(days=3)
    [c] = engine.conflicts(agent="cc", status="open")
    assert c.id == cid and c.status == "open" and c.arbiter == "offline"
    assert c.existing.memory.id == old_id and c.challenger.memory.id == new_id
    assert c.existing.memory.text == CASES[lang][0]
    assert c.challenger.memory.text == CASES[lang][1]
    assert [e.text for e in c.existing.sources] == [CASES[lang][0]]
    assert [e.thread for e in c.challenger.sources] == ["t2"]
    assert c.reason and c.age_days == pytest.approx(3.0)
    assert engine.conflicts(agent="cc", status="resolved") == []
    assert engine.conflict(cid) == c


def test_keep_old_retires_the_challenger(engine: Engine) -> None:
    cid, old_id, new_id = open_conflict(engine)
    c = engine.resolve_conflict(cid, "old")
    assert (c.status, c.resolution) == ("resolved", "old")
    assert engine.memory(old_id).memory.status == "active"
    loser = engine.memory(new_id).memory
    assert (loser.status, loser.superseded_by) == ("superseded", old_id)
    assert (new_id, "supersedes") in {
        (p.memory_id, p.relation) for p in engine.memory(old_id).parents
    }
    assert engine.conflicts("cc") == [] and [x.id for x in engine.conflicts("cc", "resolved")] == [
        cid
    ]


def test_keep_new_supersedes_the_old(engine: Engine) -> None:
    cid, old_id, new_id = open_conflict(engine)
    engine.resolve_conflict(cid, "new")
    old = engine.memory(old_id).memory
    assert (old.status, old.superseded_by) == ("superseded", new_id)
    assert engine.memory(new_id).memory.status == "active"
    assert (old_id, "supersedes") in {
        (p.memory_id, p.relation) for p in engine.memory(new_id).parents
    }


def test_keep_both_leaves_both_active(engine: Engine) -> None:
    cid, old_id, new_id = open_conflict(engine)
    c = engine.resolve_conflict(cid, "both")
    assert c.resolution == "both"
    assert engine.memory(old_id).memory.status == engine.memory(new_id).memory.status == "active"


def test_merge_makes_one_memory_from_both(engine: Engine) -> None:
    cid, old_id, new_id = open_conflict(engine)
    c = engine.resolve_conflict(cid, "merge", text="用户以前喜欢猫，现在对猫过敏，不再养猫。")
    assert c.merged_id is not None
    merged = engine.memory(c.merged_id)
    assert merged.memory.status == "active" and merged.memory.text.startswith("用户以前喜欢猫")
    assert {(p.memory_id, p.relation) for p in merged.parents} >= {
        (old_id, "merged"), (new_id, "merged")}  # fmt: skip
    # the merged memory carries both sides' evidence
    assert len(merged.sources) == 2
    for side in (old_id, new_id):
        m = engine.memory(side).memory
        assert (m.status, m.superseded_by) == ("superseded", c.merged_id)


def test_resolutions_are_audited_and_final(engine: Engine) -> None:
    cid, old_id, new_id = open_conflict(engine)
    opened = engine.audit(action="conflict.open")
    assert opened[0].object_ids == (cid, old_id, new_id)
    engine.resolve_conflict(cid, "new")
    [event] = engine.audit(action="conflict.resolve")
    assert event.actor == "owner" and event.object_ids[0] == cid
    with pytest.raises(InvalidInput, match="already resolved"):
        engine.resolve_conflict(cid, "old")


def test_bad_resolutions_say_what_to_do(engine: Engine) -> None:
    cid, _, _ = open_conflict(engine)
    with pytest.raises(InvalidInput, match="merged text"):
        engine.resolve_conflict(cid, "merge")
    with pytest.raises(InvalidInput, match="one of"):
        engine.resolve_conflict(cid, "newest")
    with pytest.raises(InvalidInput, match="only for --keep merge"):
        engine.resolve_conflict(cid, "old", text="x")
    with pytest.raises(NotFound, match="conflicts list"):
        engine.resolve_conflict(999, "old")
    assert engine.conflict(cid).status == "open"


def test_open_conflict_does_not_block_writes(engine: Engine) -> None:
    cid, old_id, _ = open_conflict(engine)
    engine.edit_memory(old_id, "用户喜欢猫，家里养了两只。")
    later = engine.remember("cc", "部署前要先备份数据库。", "lesson")
    assert later.decision == "add"
    assert engine.conflict(cid).existing.memory.text == "用户喜欢猫，家里养了两只。"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_context_marks_both_sides_of_an_open_conflict(engine: Engine, lang: str) -> None:
    """Both stay active while the owner decides: a model reading the block must not take
    two contradicting memories for two facts."""
    cid, old_id, new_id = open_conflict(engine, lang)
    block = engine.context("cc", query=CASES[lang][0])
    lines = {int(line.split("]")[0][4:]): line for line in block.text.splitlines()[1:]}
    assert f"disputed by m{new_id}, not settled" in lines[old_id]
    assert f"disputed by m{old_id}, not settled" in lines[new_id]
    engine.resolve_conflict(cid, "both")  # settled: both hold, neither is marked
    settled = engine.context("cc", query=CASES[lang][0]).text
    assert "disputed" not in settled and CASES[lang][1] in settled
