"""An owner who misclicked in conflict review can take it back: `reopen` undoes a
resolution and the conflict waits again, with the right memory injected meanwhile."""

from __future__ import annotations

import pytest

from app import Engine, InvalidInput, NotFound

from .test_conflicts import CASES, open_conflict


def injected(engine: Engine, lang: str) -> str:
    return engine.context("cc", query=CASES[lang][0]).text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_reopen_after_keep_old_brings_the_challenger_back(engine: Engine, lang: str) -> None:
    cid, old_id, new_id = open_conflict(engine, lang)
    engine.resolve_conflict(cid, "old")  # the misclick: the owner meant "new"
    assert CASES[lang][1] not in injected(engine, lang)
    c = engine.reopen_conflict(cid)
    assert (c.status, c.resolution, c.resolved_at, c.merged_id) == ("open", None, None, None)
    new = engine.memory(new_id)
    assert (new.memory.status, new.memory.superseded_by) == ("active", None)
    # the resolution's "supersedes" link is gone: the lineage no longer says old replaced it
    assert (new_id, "supersedes") not in {
        (p.memory_id, p.relation) for p in engine.memory(old_id).parents
    }
    assert [x.id for x in engine.conflicts("cc")] == [cid]
    block = injected(engine, lang)
    assert f"disputed by m{old_id}, not settled" in block and CASES[lang][1] in block
    # and now the owner decides as meant
    engine.resolve_conflict(cid, "new")
    assert engine.memory(old_id).memory.status == "superseded"
    assert engine.memory(new_id).memory.status == "active"
    settled = injected(engine, lang)
    assert "disputed" not in settled and CASES[lang][0] not in settled


def test_reopen_after_keep_new_brings_the_old_back(engine: Engine) -> None:
    cid, old_id, new_id = open_conflict(engine, "en")
    engine.resolve_conflict(cid, "new")
    engine.reopen_conflict(cid)
    assert engine.memory(old_id).memory.status == "active"
    assert engine.memory(new_id).memory.status == "active"
    assert engine.health("cc").open_conflicts == 1


def test_reopen_after_merge_archives_the_merged_memory(engine: Engine) -> None:
    cid, old_id, new_id = open_conflict(engine, "zh")
    settled = engine.resolve_conflict(cid, "merge", text="用户以前喜欢猫，现在不喜欢了。")
    merged_id = settled.merged_id
    assert merged_id is not None
    engine.reopen_conflict(cid)
    assert engine.memory(old_id).memory.status == engine.memory(new_id).memory.status == "active"
    merged = engine.memory(merged_id)
    assert merged.memory.status == "archived"  # restorable, with its lineage kept
    assert {p.memory_id for p in merged.parents} >= {old_id, new_id}
    assert "用户以前喜欢猫" not in engine.context("cc", query="猫").text
    assert engine.restore([merged_id])[0].status == "active"


def test_reopen_is_audited_with_ids_only(engine: Engine) -> None:
    cid, _old_id, new_id = open_conflict(engine, "zh")
    engine.resolve_conflict(cid, "old")
    engine.reopen_conflict(cid)
    [event] = engine.audit(action="conflict.reopen")
    assert event.actor == "owner" and event.object_ids == (cid, new_id)
    assert dict(event.counts) == {"restored": 1, "archived": 0}


def test_reopen_leaves_a_memory_forgotten_since(engine: Engine) -> None:
    cid, old_id, _new_id = open_conflict(engine, "en")
    engine.resolve_conflict(cid, "new")
    engine.forget(old_id)
    c = engine.reopen_conflict(cid)
    assert c.status == "open" and engine.memory(old_id).memory.status == "forgotten"
    # the forgotten side cannot win; the other one still can
    with pytest.raises(InvalidInput, match="forgotten"):
        engine.resolve_conflict(cid, "old")
    engine.resolve_conflict(cid, "new")


def test_reopen_says_what_to_do(engine: Engine) -> None:
    cid, _, _ = open_conflict(engine, "en")
    with pytest.raises(InvalidInput, match=r"open already.*conflicts resolve"):
        engine.reopen_conflict(cid)
    with pytest.raises(NotFound, match="conflicts list"):
        engine.reopen_conflict(999)
    engine.resolve_conflict(cid, "both")
    with pytest.raises(InvalidInput, match="conflicts reopen"):
        engine.resolve_conflict(cid, "old")
    assert engine.reopen_conflict(cid).status == "open"


def test_settled_conflicts_newest_first(engine: Engine, clock) -> None:  # type: ignore[no-untyped-def]
    first, _, _ = open_conflict(engine, "en")
    engine.remember("cc", "用户不喜欢狗。", "preference")
    assert engine.remember("cc", "用户喜欢狗。", "preference").decision == "conflict"
    [_, other] = [c.id for c in engine.conflicts("cc")]
    engine.resolve_conflict(other, "both")
    clock.advance(minutes=1)
    engine.resolve_conflict(first, "old")
    assert [c.id for c in engine.settled_conflicts()] == [first, other]
    assert [c.id for c in engine.settled_conflicts("cc", limit=1)] == [first]
    engine.reopen_conflict(first)
    assert [c.id for c in engine.settled_conflicts()] == [other]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_superseded_memory_is_disputed_into_a_conflict(engine: Engine, lang: str) -> None:
    """The arbiter's supersede is not final: the owner brings the replaced memory back
    as a conflict with its successor and settles it like any other."""
    old_text, new_text = {
        "en": (
            "The project deploys with GitHub Actions.",
            "The project now deploys with GitLab CI.",
        ),
        "zh": ("用户喜欢深色主题。", "用户改用浅色主题了。"),
    }[lang]
    engine.add_agent("cc")
    old = engine.remember("cc", old_text, "project_fact").memory
    new = engine.remember("cc", new_text, "project_fact")
    assert old is not None and new.memory is not None and new.decision == "supersede"
    with pytest.raises(InvalidInput, match="conflicts dispute"):
        engine.restore([old.id])
    c = engine.dispute_supersede(old.id)
    assert (c.status, c.arbiter) == ("open", "owner")
    assert (c.existing.memory.id, c.challenger.memory.id) == (old.id, new.memory.id)
    assert c.existing.memory.status == "active" and c.existing.memory.superseded_by is None
    assert f"disputed by m{new.memory.id}" in engine.context("cc", query=old_text).text
    [event] = engine.audit(action="conflict.open")
    assert event.actor == "owner" and event.object_ids == (c.id, old.id, new.memory.id)
    engine.resolve_conflict(c.id, "old")
    assert engine.memory(old.id).memory.status == "active"
    assert engine.memory(new.memory.id).memory.status == "superseded"


def test_dispute_points_a_conflict_loser_at_reopen(engine: Engine) -> None:
    cid, old_id, new_id = open_conflict(engine, "en")
    engine.resolve_conflict(cid, "new")
    with pytest.raises(InvalidInput, match=f"conflicts reopen {cid}"):
        engine.dispute_supersede(old_id)
    with pytest.raises(InvalidInput, match="not superseded"):
        engine.dispute_supersede(new_id)
    with pytest.raises(NotFound):
        engine.dispute_supersede(999)
