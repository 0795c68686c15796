"""What an agent's model reads from `context`: the block within its budget, then one line
of manifest as text; as structured content, the block once and ids only."""

from __future__ import annotations

import json

from app import Engine
from app.mcp.server import run_tool
from app.text.tokens import count_tokens

FACTS = [
    "The user prefers tabs for indentation in project {n}",
    "用户希望项目 {n} 的提交信息用中文写",
    "The staging database of project {n} is called stg-{n}",
]


def seeded(engine: Engine) -> None:
    engine.add_agent("A")
    for n in range(12):
        for fact in FACTS:
            engine.remember("A", fact.format(n=n), "project_fact")


def test_the_text_is_the_block_and_a_manifest_line_within_the_budget(engine: Engine) -> None:
    seeded(engine)
    answer = run_tool(engine, "A", "context", {"query": "提交信息 indentation", "budget": 120})
    result = answer.structured_content
    assert result is not None and result["included"] and result["dropped"]
    text = answer.content[0].text
    block, line = text.rsplit("\n\n", 1)
    assert block == result["text"] and "[m" in block
    left_out = ", ".join(
        f"{len(ids)} {r.replace('_', ' ')}" for r, ids in result["dropped"].items()
    )
    assert line == (
        f"({len(result['included'])} memories, {result['tokens_used']}/120 tokens; "
        f"left out: {left_out}; `search` finds more)"
    )
    # The budget holds for what the model reads, give or take the one manifest line.
    assert count_tokens(text) <= 120 + count_tokens(line) + 2


def test_the_structured_result_is_the_manifest_with_ids_only(engine: Engine) -> None:
    """Claude Code gives the model the JSON of the structured result: it holds the block
    once, and ids, never every memory's text again."""
    seeded(engine)
    answer = run_tool(engine, "A", "context", {"query": "提交信息 indentation", "budget": 120})
    result = answer.structured_content
    assert set(result) == {"text", "included", "dropped", "tokens_used", "budget", "recall_id"}
    assert result["included"] and all(f"[m{i}]" in result["text"] for i in result["included"])
    # Ids left out, by reason: every candidate is either in or out, once.
    dropped = result["dropped"]
    assert set(dropped) <= {"over_budget", "below_relevance"} and dropped["over_budget"]
    out = [i for ids in dropped.values() for i in ids]
    assert all(isinstance(i, int) for i in out)
    assert len(set(out) | set(result["included"])) == len(out) + len(result["included"])
    # The JSON a model reads holds the block once, plus a few tokens per id.
    ids = len(out) + len(result["included"])
    cost = count_tokens(json.dumps(result, ensure_ascii=False))
    assert cost <= count_tokens(result["text"]) * 1.1 + 4 * ids + 40, (cost, ids)


def test_with_nothing_to_recall_the_text_says_so(engine: Engine) -> None:
    engine.add_agent("A")
    answer = run_tool(engine, "A", "context", {"query": "部署"})
    result = answer.structured_content
    assert result is not None and result["included"] == [] and result["dropped"] == {}
    assert answer.content[0].text == (
        f"No memories to keep in mind for this turn.\n\n(0 memories, 0/{result['budget']} tokens)"
    )


def test_other_tools_still_answer_the_json_of_their_result(engine: Engine) -> None:
    seeded(engine)
    answer = run_tool(engine, "A", "search", {"query": "staging"})
    assert json.loads(answer.content[0].text) == answer.structured_content
