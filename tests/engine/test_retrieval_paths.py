"""The fast read paths of search and context: what a user sees must not change.

Full-text takes the best rows from FTS5 alone and filters them afterwards (the pool
grows when the filters keep too few), an agent holding most of a home is not narrowed
by its agent token, context reads its routes through partial indexes and stores its
recall record with plain statements, and the vector query runs on a worker thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import Engine
from app.benchmarks.latency import export_file
from app.benchmarks.synth import SynthMemory
from app.clock import ManualClock
from app.engine import runtime_of
from app.index.service import RetrievalService
from app.index.service import of as retrieval_of

from .index_helpers import EMB

AGENT = "latency-bench"  # the agent export_file writes


def _import(engine: Engine, tmp_path: Path, items: list[SynthMemory]) -> None:
    dump = tmp_path / "bulk.jsonl"
    export_file(dump, items, engine.schema_version)
    engine.import_(dump)


@pytest.fixture
def big(home: Path, clock: ManualClock, tmp_path: Path) -> Iterator[Engine]:
    """One agent with 200 memories that all say "coffee" (most of them many times, as
    facts), a few weak preferences among them, and a second, small agent."""
    engine = Engine.open(home, create=True, clock=clock, embedder=EMB)
    items = [
        SynthMemory(
            "coffee coffee coffee beans roasted dark", "project_fact", "en", f"t{i % 3}", "u1"
        )
        for i in range(190)
    ] + [
        SynthMemory(f"likes a long walk after coffee number {i}", "preference", "en", "t9", "u2")
        for i in range(10)
    ]
    _import(engine, tmp_path, items)
    engine.add_agent("small")
    engine.remember("small", "Small agent drinks coffee with oat milk", "preference")
    try:
        yield engine
    finally:
        engine.close()


def test_a_filter_that_keeps_weak_matches_still_finds_them(big: Engine) -> None:
    # The 190 facts outrank every preference; the first FTS pool holds only facts.
    hits = big.search(AGENT, "coffee", mode="fulltext", category="preference", limit=10)
    assert len(hits.hits) == 10
    assert {h.memory.category for h in hits.hits if h.memory} == {"preference"}
    assert not hits.has_more


def test_paging_past_the_first_pool_returns_every_match_once(big: Engine) -> None:
    seen: list[int] = []
    for offset in range(0, 200, 50):
        page = big.search(AGENT, "coffee", mode="fulltext", limit=50, offset=offset)
        seen.extend(h.id for h in page.hits)
    assert len(seen) == len(set(seen)) == 200


def test_big_and_small_agents_only_find_their_own(big: Engine) -> None:
    small = big.search("small", "coffee", mode="fulltext", limit=50)
    assert [h.memory.agent for h in small.hits if h.memory] == ["small"]
    own = big.search(AGENT, "coffee oat milk", mode="fulltext", limit=200)
    assert len(own.hits) == 200
    assert all(h.memory and h.memory.agent == AGENT for h in own.hits)
    assert not any("oat" in h.text for h in own.hits)


def test_context_routes_and_recall_record(big: Engine, home: Path) -> None:
    block = big.context(AGENT, thread="t9", user="u2", query="walk", budget=400)
    assert block.included, block
    walks = [i for i in block.included if "walk" in i.text]
    assert walks and all("query" in i.routes for i in walks)
    assert any("thread" in i.routes for i in block.included)
    assert block.tokens_used <= 400
    # The record is on disk once context returned: a separate connection sees it.
    with sqlite3.connect(home / "tapemind.db") as db:
        rec = db.execute(
            "SELECT mode, thread, user, query, budget, tokens_used, included, dropped "
            "FROM recalls WHERE id = ?",
            (block.recall_id,),
        ).fetchone()
        items = db.execute(
            "SELECT memory_id, included, reason FROM recall_items WHERE recall_id = ? "
            "ORDER BY rank",
            (block.recall_id,),
        ).fetchall()
        counted = db.execute(
            f"SELECT count(*) FROM memories WHERE recall_count = 1 AND last_recalled_at "
            f"IS NOT NULL AND id IN ({', '.join('?' * len(block.included))})",
            block.included_ids,
        ).fetchone()[0]
    assert rec == (
        "context", "t9", "u2", "walk", 400, block.tokens_used, len(block.included),
        len(block.dropped),
    )  # fmt: skip
    assert [r[0] for r in items if r[1] == 1] == list(block.included_ids)
    assert {r[2] for r in items if r[1] == 0} <= {"over_budget", "below_relevance", "archived"}
    assert counted == len(block.included)


def test_hybrid_results_are_the_same_with_and_without_the_worker(big: Engine) -> None:
    big.run_indexer()
    svc = retrieval_of(runtime_of(big))
    assert isinstance(svc, RetrievalService)
    threaded = big.search(AGENT, "walk after coffee", mode="hybrid", limit=10)
    context = big.context(AGENT, query="walk after coffee")
    svc.begin = lambda *args, **kwargs: None  # type: ignore[method-assign]
    inline = big.search(AGENT, "walk after coffee", mode="hybrid", limit=10)
    assert [(h.id, h.why) for h in threaded.hits] == [(h.id, h.why) for h in inline.hits]
    assert any("semantic" in h.why for h in threaded.hits)
    again = big.context(AGENT, query="walk after coffee")
    assert set(again.included_ids) == set(context.included_ids)


class _Counting:
    """The test embedder, counting query embeddings."""

    def __init__(self) -> None:
        self.queries = 0

    def __getattr__(self, name: str) -> object:
        return getattr(EMB, name)

    def embed_query(self, text: str) -> object:
        self.queries += 1
        return EMB.embed_query(text)


def test_a_search_of_memories_and_tape_embeds_the_query_once(
    home: Path, clock: ManualClock
) -> None:
    counting = _Counting()
    engine = Engine.open(home, create=True, clock=clock, embedder=counting)  # type: ignore[arg-type]
    try:
        engine.add_agent("a")
        engine.append(
            "a", [{"thread": "t", "kind": "message", "role": "user", "text": "tea at noon"}]
        )
        engine.remember("a", "The user drinks green tea at noon", "preference")
        engine.run_indexer()
        for query in ("green tea", "绿茶", "noon tea"):
            before = counting.queries
            found = engine.search("a", query, scope="all", mode="hybrid")
            assert counting.queries == before + 1
            # No word in common and far by meaning (a hashing embedder): nothing found.
            kinds = set() if query == "绿茶" else {"memory", "tape"}
            assert {h.kind for h in found.hits} == kinds
    finally:
        engine.close()
