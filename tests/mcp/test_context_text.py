"""What an agent's model reads from `context`: the block, within its budget, and one line
of manifest; the whole manifest stays in the structured result."""

from __future__ import annotations

import json
from collections import Counter

from app import Engine
from app.mcp.server import run_tool
from app.tokens import count_tokens

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
    left_out = Counter(d["reason"].replace("_", " ") for d in result["dropped"])
    assert line == (
        f"({len(result['included'])} memories, {result['tokens_used']}/120 tokens; left out: "
        + ", ".join(f"{n} {reason}" for reason, n in left_out.items())
        + "; `search` finds more)"
    )
    # The budget holds for what the model reads, give or take the one manifest line;
    # the JSON of the whole result (every memory's text again, scores, routes) would not.
    assert count_tokens(text) <= 120 + count_tokens(line) + 2
    assert count_tokens(json.dumps(result, ensure_ascii=False)) > 2 * 120


def test_with_nothing_to_recall_the_text_says_so(engine: Engine) -> None:
    engine.add_agent("A")
    answer = run_tool(engine, "A", "context", {"query": "部署"})
    assert answer.content[0].text == (
        "No memories to keep in mind for this turn.\n\n(0 memories, 0/"
        f"{answer.structured_content['budget']} tokens)"
    )


def test_other_tools_still_answer_the_json_of_their_result(engine: Engine) -> None:
    seeded(engine)
    answer = run_tool(engine, "A", "search", {"query": "staging"})
    assert json.loads(answer.content[0].text) == answer.structured_content
