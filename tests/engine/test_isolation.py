"""Agents are isolated: nothing of agent B is reachable through agent A's calls."""

from __future__ import annotations

import pytest

from app import Engine, NotFound

B_TEXTS = ("B 的秘密计划：周五发布", "B's private plan: ship on Friday")


@pytest.fixture
def two(engine: Engine) -> dict[str, list[int]]:
    engine.add_agent("a")
    engine.add_agent("b")
    a_entries = engine.append(
        "a", [{"thread": "shared", "turn": "u1", "role": "user", "text": "A's own entry"}]
    ).ids
    b_entries = engine.append(
        "b",
        [{"thread": "shared", "turn": "u1", "role": "user", "text": t} for t in B_TEXTS],
    ).ids
    a_mem = engine.remember("a", "A prefers tea", "preference", sources=a_entries).memory
    b_mem = engine.remember("b", B_TEXTS[0], "project_fact", sources=b_entries[:1]).memory
    assert a_mem is not None and b_mem is not None
    return {
        "a_entries": list(a_entries),
        "b_entries": list(b_entries),
        "a_mem": [a_mem.id],
        "b_mem": [b_mem.id],
    }


def _no_b_text(values: object) -> None:
    text = repr(values)
    for t in B_TEXTS:
        assert t not in text


def test_reads_of_a_never_show_b(engine: Engine, two: dict[str, list[int]]) -> None:
    tape = engine.tape("a", thread="shared", turn="u1")
    assert [e.id for e in tape] == two["a_entries"]
    _no_b_text(tape)
    assert [m.id for m in engine.memories("a")] == two["a_mem"]
    assert engine.count_memories("a") == 1
    _no_b_text(engine.memories("a", limit=1000))
    assert engine.agent_stats("a").tape_entries == 1
    assert {e.agent for e in engine.audit(agent="a")} == {"a"}


def test_b_ids_are_not_found_through_a(engine: Engine, two: dict[str, list[int]]) -> None:
    for entry_id in two["b_entries"]:
        with pytest.raises(NotFound):
            engine.tape("a", around=entry_id)
        with pytest.raises(NotFound):
            engine.entry(entry_id, agent="a")
    with pytest.raises(NotFound) as caught:
        engine.memory(two["b_mem"][0], agent="a")
    _no_b_text(str(caught.value))
    # The owner's unscoped view still finds it, under B.
    assert engine.memory(two["b_mem"][0]).memory.agent == "b"


def test_a_cannot_cite_or_use_b(engine: Engine, two: dict[str, list[int]]) -> None:
    before = engine.count_memories("a")
    # Another agent's ids are not found: to A, B's tape and memories do not exist.
    with pytest.raises(NotFound) as caught:
        engine.remember("a", "A learned from B", "lesson", sources=[two["b_entries"][0]])
    assert caught.value.code == "unknown_source"
    with pytest.raises(NotFound) as caught:
        engine.remember(
            "a", "A builds on B", "lesson", sources=two["a_entries"], parents=two["b_mem"]
        )
    assert caught.value.code == "unknown_parent"
    with pytest.raises(NotFound):
        engine.report_used("a", "u1", two["b_mem"])
    b_memory = engine.memory(two["b_mem"][0]).memory
    assert b_memory.use_count == 0
    assert engine.count_memories("a") == before
    assert engine.tape("a") == engine.tape("a", thread="shared")  # nothing appended by refusals


def test_same_text_in_b_is_not_a_duplicate_for_a(engine: Engine, two: dict[str, list[int]]) -> None:
    result = engine.remember("a", B_TEXTS[0], "project_fact", sources=two["a_entries"])
    assert result.decision == "add"
    assert result.memory is not None and result.memory.agent == "a"
    engine.forget(two["b_mem"][0])  # B forgetting it does not tombstone it for A
    again = engine.remember("a", B_TEXTS[0] + "!", "project_fact", sources=two["a_entries"])
    assert again.decision == "duplicate"


def test_used_in_a_turn_does_not_leak_lineage_from_b(
    engine: Engine, two: dict[str, list[int]]
) -> None:
    engine.report_used("b", "u1", two["b_mem"])
    result = engine.remember(
        "a", "A's turn u1 conclusion", "task_outcome", sources=two["a_entries"], turn="u1"
    )
    assert result.memory is not None
    assert engine.memory(result.memory.id).parents == ()


def test_removing_b_leaves_a_whole(engine: Engine, two: dict[str, list[int]]) -> None:
    engine.remove_agent("b")
    assert [e.id for e in engine.tape("a")] == two["a_entries"]
    assert [m.id for m in engine.memories("a")] == two["a_mem"]
    with pytest.raises(NotFound):
        engine.memory(two["b_mem"][0])
