"""Queries made of common words: the rarest words pick the rows, every word ranks them."""

from __future__ import annotations

from typing import Any

import pytest

from app import Engine
from app.recall import rare_terms


@pytest.fixture
def split_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make every query of these small homes take the split path, and count its rankings."""
    calls: list[int] = []
    ranked = rare_terms.bm25

    def counting(db: Any, table: str, ids: Any, df: Any, rows: int, *docs: Any) -> dict[int, float]:
        calls.append(len(ids))
        return ranked(db, table, ids, df, rows, *docs)

    monkeypatch.setattr(rare_terms, "POSTINGS_BUDGET", 5)
    monkeypatch.setattr(rare_terms, "bm25", counting)
    return calls


def _seed(engine: Engine) -> dict[str, int]:
    engine.add_agent("a")
    for i in range(12):
        engine.remember("a", f"用户早上开会讨论第{i}号需求。", "project_fact")
        engine.remember("a", f"The user reviewed pull request {i} in the morning.", "project_fact")
    ids = {}
    for key, text in (
        ("zh", "用户早上喝手冲咖啡，不加糖。"),
        ("en", "The user drinks pour-over coffee in the morning."),
    ):
        made = engine.remember("a", text, "preference")
        assert made.memory is not None
        ids[key] = made.memory.id
    return ids


@pytest.mark.parametrize(
    ("lang", "query"),
    [("zh", "用户早上喝什么咖啡"), ("en", "what coffee does the user drink in the morning")],
)
def test_the_best_match_comes_first_when_most_words_are_common(
    engine: Engine, split_calls: list[int], lang: str, query: str
) -> None:
    ids = _seed(engine)
    hits = engine.search("a", query, mode="fulltext").hits
    assert split_calls, "the split path ran"
    assert hits[0].id == ids[lang]


def test_the_split_ranks_like_fts5_when_every_row_is_a_candidate(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _seed(engine)
    query = "user morning coffee 用户 咖啡"
    whole = [h.id for h in engine.search("a", query, mode="fulltext", limit=30).hits]
    monkeypatch.setattr(rare_terms, "POSTINGS_BUDGET", 5)
    monkeypatch.setattr(rare_terms, "POOL", 1000)
    split = [h.id for h in engine.search("a", query, mode="fulltext", limit=30).hits]
    # "coffee" and 咖啡 are the rare words: the split's candidates are the two rows that
    # hold them, ranked over every word as FTS5 ranks them.
    assert set(split) == {ids["zh"], ids["en"]}
    assert split == [i for i in whole if i in split]


def test_tape_search_splits_too(engine: Engine, split_calls: list[int]) -> None:
    engine.add_agent("a")
    rows = [
        {"thread": "t", "kind": "message", "role": "user", "text": f"部署服务到集群第{i}次"}
        for i in range(10)
    ]
    rows.append({"thread": "t", "kind": "message", "role": "user", "text": "部署服务时证书过期了"})
    engine.append("a", rows)
    hits = engine.search("a", "部署服务证书", scope="tape", mode="fulltext").hits
    assert split_calls
    assert hits[0].entry is not None and hits[0].entry.text == "部署服务时证书过期了"
