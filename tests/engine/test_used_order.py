"""`used` at the end of a turn, as the skill and the tool say: the memories it names become
the parents of what that turn remembered, before or after the report."""

from __future__ import annotations

from app import Engine


def parents(engine: Engine, memory_id: int) -> list[tuple[int, str]]:
    return [(p.memory_id, p.relation) for p in engine.memory(memory_id, agent="A").parents]


def test_used_after_remember_makes_the_same_lineage_as_before(engine: Engine) -> None:
    engine.add_agent("A")
    engine.add_agent("B")
    known = engine.remember("A", "项目用 PostgreSQL 16 作为主数据库。", "project_fact").memory
    assert known is not None
    (entry,) = engine.append(
        "A", [{"thread": "t", "turn": "u1", "role": "user", "text": "升级"}]
    ).ids
    made = engine.remember(
        "A", "The staging database was moved to a new host.", "task_outcome",
        sources=[entry], turn="u1",
    ).memory  # fmt: skip
    assert made is not None and parents(engine, made.id) == []
    # Another agent's memory of the same turn name is not touched.
    other = engine.remember("B", "B's note of its own turn u1.", "lesson", turn="u1").memory
    assert other is not None
    assert engine.report_used("A", "u1", [known.id]) == [known.id]
    assert parents(engine, made.id) == [(known.id, "derived")]
    assert not engine.memory(other.id, agent="B").parents
    # Reported again: nothing new, no duplicate link.
    assert engine.report_used("A", "u1", [known.id]) == []
    assert parents(engine, made.id) == [(known.id, "derived")]


def test_a_memory_used_in_the_turn_that_made_it_makes_no_cycle(engine: Engine) -> None:
    engine.add_agent("A")
    first = engine.remember("A", "Deploys happen on Fridays.", "project_fact", turn="u2").memory
    second = engine.remember("A", "用户每周一早上开例会。", "project_fact", turn="u2").memory
    assert first is not None and second is not None
    engine.report_used("A", "u2", [first.id, second.id])
    # Only the older can be the parent of the newer: never each other's.
    assert parents(engine, second.id) == [(first.id, "derived")]
    assert parents(engine, first.id) == []
