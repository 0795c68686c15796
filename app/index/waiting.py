"""A candidate memory against the agent's memories still waiting to be embedded.

Confrontation's vector neighbours come from the index, which holds only what the indexer
has embedded. A memory remembered moments ago is still in the embed queue; a restatement
of it in another language, remembered right after, shares no word with it either, so
neither list would find it. Here the waiting memories are compared with the candidate
directly: with the vectors this process computed when they were remembered (the query
cache, `RetrievalService.known_vector`), else embedded now, a few at most.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..db.store import Tx, dbapi
from ..runtime import AgentLike

if TYPE_CHECKING:
    from .service import RetrievalService

WAITING = 64  # the agent's newest not-yet-embedded memories compared, at most
EMBED_AT_ONCE = 8  # of those, embedded now when this process knows no vector of them


def nearest_waiting(
    retrieval: RetrievalService, s: Tx, arow: AgentLike, body: str, n: int
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
        known = retrieval.known_vector(embedder, text)
        if known is not None:
            vectors[memory_id] = np.asarray(known, dtype=np.float32).reshape(-1)
        elif len(unknown) < EMBED_AT_ONCE:
            unknown.append((memory_id, text))
    if unknown:
        made = embedder.embed_documents([text for _, text in unknown])
        for (memory_id, _), vector in zip(unknown, np.asarray(made), strict=True):
            vectors[memory_id] = np.asarray(vector, dtype=np.float32).reshape(-1)
    query = np.asarray(retrieval.query_vector(embedder, body), dtype=np.float32).reshape(-1)
    ids = list(vectors)
    matrix = np.stack([vectors[i] for i in ids])
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
    cosines = (matrix @ query) / np.where(norms == 0, 1.0, norms)
    ranked = sorted(zip(ids, cosines.tolist(), strict=True), key=lambda p: -p[1])
    return [(i, float(c)) for i, c in ranked[:n]]
