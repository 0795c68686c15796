"""Shared helpers for the vector index tests."""

from __future__ import annotations

from pathlib import Path

from app import Engine
from app.engine import runtime_of
from app.index import rows
from app.index.embedders import HashingEmbedder
from app.index.vectors import VectorIndex, open_client

EMB = HashingEmbedder(dim=64)


def vector_ids(home: Path, model: str, dim: int, kind: str) -> list[int]:
    """Every id chromadb holds for `model` and `kind`, with repeats (a fresh client)."""
    client = open_client(home / "index")
    try:
        index = VectorIndex(client, model, dim)
        out: list[int] = []
        for (k, _agent), collection in index._collections.items():
            if k == kind:
                out.extend(int(i) for i in collection.get(include=[])["ids"])
        return sorted(out)
    finally:
        client.close()


def live_ids(engine: Engine, kind: str) -> list[int]:
    rt = runtime_of(engine)
    with rt.read() as s:
        return sorted(i.id for i in rows.live_after(s, kind, 0, 1_000_000))


def unembedded(engine: Engine) -> int:
    return engine.index_status().unembedded_total


class VectorStandIn:
    """The part of the retrieval service the engine calls, for test stand-ins that decide
    only `semantic_ids` (what is 'near'): nothing is started ahead, `semantic_search`
    answers like `semantic_ids`, and every neighbour counts as relevant."""

    def similarity_floor(self, s):  # type: ignore[no-untyped-def]
        return 0.0

    def begin(self, s, arow, kind, query, n):  # type: ignore[no-untyped-def]
        return None

    def semantic_ids(self, s, arow, kind, query, f, n, pending=None):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    def semantic_search(self, s, arow, kind, query, f, n, pending=None):  # type: ignore[no-untyped-def]
        return self.semantic_ids(s, arow, kind, query, f, n)

    def waiting_ids(self, s, arow, body, n):  # type: ignore[no-untyped-def]
        return []  # nothing waits to be embedded: `semantic_ids` decides what is near
