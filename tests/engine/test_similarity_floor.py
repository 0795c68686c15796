"""The similarity floor each model gets: fitted ones from app/index/floors.json, the test
embedders' own, a default for a model nobody fitted, and a floor set in this process."""

from __future__ import annotations

import pytest

from app.index import service
from app.index.embedders import LOCAL_MODELS, make_embedder


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
