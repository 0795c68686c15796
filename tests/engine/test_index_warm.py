"""Warming the vector index at start: each collection's first query loads nothing, and
what a warm-up loaded never hides a later write or another agent's rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app import Engine
from app.clock import ManualClock
from app.engine import runtime_of
from app.index import RETRIEVAL, exact
from app.index.exact import ExactCover
from app.index.vectors import VectorIndex, open_client

from .index_helpers import EMB

DIM = 8


def _unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[VectorIndex]:
    client = open_client(tmp_path / "index")
    vi = VectorIndex(client, "test-8", DIM, ExactCover(tmp_path / "index"))
    try:
        yield vi
    finally:
        vi.close()


def test_warm_holds_each_small_collection_and_a_write_after_it_is_found(
    index: VectorIndex, tmp_path: Path
) -> None:
    index.upsert("tape", [1, 2], np.vstack([_unit(1), _unit(2)]), [7, 7])
    index.upsert("tape", [3], np.vstack([_unit(3)]), [8])
    fresh = VectorIndex(index._client, "test-8", DIM, ExactCover(tmp_path / "index"))
    assert fresh.warm("tape", 10.0) == 0
    assert fresh.warm("memory", 10.0) == 0  # no memory collection: nothing to do
    assert all(fresh._cover.warmed(c.name) for c in fresh._of_kind("tape"))  # type: ignore[union-attr]
    # The warmed vectors answer, each agent from its own collection only.
    assert [i for i, _ in fresh.query("tape", 7, _unit(2), 5)] == [2, 1]
    assert [i for i, _ in fresh.query("tape", 8, _unit(2), 5)] == [3]
    # A row written after the warm-up is found by the next query.
    fresh.upsert("tape", [4], np.vstack([_unit(4)]), [7])
    assert fresh.query("tape", 7, _unit(4), 1)[0][0] == 4
    assert 4 not in {i for i, _ in fresh.query("tape", 8, _unit(4), 5)}


def test_warm_stops_when_the_cache_is_full_and_drops_nothing(
    index: VectorIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    index.upsert("tape", [1, 2], np.vstack([_unit(1), _unit(2)]), [7, 7])
    index.upsert("tape", [3, 4], np.vstack([_unit(3), _unit(4)]), [8, 8])
    assert index.query("tape", 7, _unit(1), 1)[0][0] == 1  # agent 7's vectors held
    monkeypatch.setattr(exact, "CACHE_BYTES", 2 * DIM * 4)  # room for agent 7's only
    assert index.warm("tape", 10.0) == 0
    names = {c.metadata["agent_id"]: c.name for c in index._of_kind("tape")}
    assert index._cover is not None
    assert index._cover.warmed(names["7"]) and not index._cover.warmed(names["8"])
    assert [i for i, _ in index.query("tape", 8, _unit(4), 5)] == [4, 3]


def test_engine_warm_up_then_search_finds_a_later_append(home: Path, clock: ManualClock) -> None:
    engine = Engine.open(home, create=True, clock=clock, embedder=EMB)
    try:
        for agent in ("a", "b"):
            engine.add_agent(agent)
            engine.append(
                agent,
                [{"thread": "t", "kind": "message", "role": "user", "text": f"{agent} plants"}],
            )
        engine.run_indexer()
    finally:
        engine.close()
    engine = Engine.open(home, clock=clock, embedder=EMB)
    try:
        assert engine.warm_up() is True
        service = runtime_of(engine).services.get(RETRIEVAL)
        assert service is not None
        assert service.index(EMB).warm("tape", 10.0) == 0  # the warm-up did it all
        text = "the violin lesson moved to Thursday"
        new = engine.append(
            "a", [{"thread": "t", "kind": "message", "role": "user", "text": text}]
        ).ids[0]
        engine.run_indexer()
        hits = engine.search("a", text, scope="tape", mode="semantic", limit=5).hits
        assert hits[0].id == new
        other = engine.search("b", text, scope="tape", mode="semantic", limit=5).hits
        assert new not in {h.id for h in other}
    finally:
        engine.close()
