"""A candidate memory against the agent's memories still waiting to be embedded.

Confrontation's vector neighbours come from the index, which holds only what the indexer
has embedded. A memory remembered moments ago is still in the embed queue; a restatement
of it in another language, remembered right after, shares no word with it either, so
neither list would find it. Here the waiting memories are compared with the candidate
directly: with the vectors this process computed when they were remembered (the query
cache, `Vectors.known_vector`), else embedded now, a few per call and each once
per process (kept here): a host restarted with a queue, or a CLI process, pays a few
embeddings on its first remembers, not on every one. Measured with `tapemind bench
lifecycle --quick` (40 remembers right after 40 others left unembedded, two runs each):
p50 11.1-12.9 ms against 10.7-12.1 before, p95 19.0-22.8 against 13.0-16.6, the first ten
calls embedding four waiting memories each; the target is p95 <= 30 ms.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Protocol

import numpy as np

from app.db import Tx, dbapi
from app.index.embedders import Embedder
from app.runtime import AgentLike


class Vectors(Protocol):
    """What this module needs of the retrieval service (`app.index.service`)."""

    def active(self, s: Tx | None = None) -> Embedder: ...

    def known_vector(self, embedder: Embedder, body: str) -> Any: ...

    def query_vector(self, embedder: Embedder, query: str) -> Any: ...


WAITING = 64  # the agent's newest not-yet-embedded memories compared, at most
EMBED_AT_ONCE = 4  # of those, embedded now when this process knows no vector of them
KEPT = 512  # vectors embedded here, kept per process (model, text): ~1 MB at dim 512

_kept: OrderedDict[tuple[str, str], Any] = OrderedDict()
_kept_lock = threading.Lock()


def _known(retrieval: Vectors, embedder: Any, text: str) -> Any:
    known = retrieval.known_vector(embedder, text)
    if known is not None:
        return known
    with _kept_lock:
        return _kept.get((embedder.name, text))


def _keep(name: str, text: str, vector: Any) -> None:
    with _kept_lock:
        _kept[(name, text)] = vector
        while len(_kept) > KEPT:
            _kept.popitem(last=False)


def nearest_waiting(
    retrieval: Vectors, s: Tx, arow: AgentLike, body: str, n: int
) -> list[tuple[int, float]]:
    """(id, cosine) of the agent's active memories still in the embed queue nearest to
    `body`, most similar first, `n` at most."""
    waiting = (
        dbapi(s)
        .execute(
            "SELECT m.id, m.text FROM embed_queue q JOIN memories m ON m.id = q.item_id "
            "WHERE q.kind = 'memory' AND q.agent_id = ? AND m.status = 'active' AND m.text != '' "
            "ORDER BY q.item_id DESC LIMIT ?",
            (arow.id, WAITING),
        )
        .fetchall()
    )
    if not waiting:
        return []
    embedder = retrieval.active(s)
    vectors: dict[int, Any] = {}
    unknown: list[tuple[int, str]] = []
    for memory_id, text in waiting:
        known = _known(retrieval, embedder, text)
        if known is not None:
            vectors[memory_id] = np.asarray(known, dtype=np.float32).reshape(-1)
        elif len(unknown) < EMBED_AT_ONCE:
            unknown.append((memory_id, text))
    if unknown:
        made = embedder.embed_documents([text for _, text in unknown])
        for (memory_id, text), vector in zip(unknown, np.asarray(made), strict=True):
            vectors[memory_id] = np.asarray(vector, dtype=np.float32).reshape(-1)
            _keep(embedder.name, text, vectors[memory_id])
    query = np.asarray(retrieval.query_vector(embedder, body), dtype=np.float32).reshape(-1)
    ids = list(vectors)
    matrix = np.stack([vectors[i] for i in ids])
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
    cosines = (matrix @ query) / np.where(norms == 0, 1.0, norms)
    ranked = sorted(zip(ids, cosines.tolist(), strict=True), key=lambda p: -p[1])
    return [(i, float(c)) for i, c in ranked[:n]]
