"""Embeddings in the same database as their rows (pgvector), found by HNSW (cosine).

On PostgreSQL the vectors need no separate store and no crash reconciliation: a vector
is written in the same transaction as the row it embeds. Isolation between agents is the
`agent_id` condition (the embedded index has one collection per agent instead).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, text

from app.db.postgres.schema import ensure_vector_index, model_literal

# How many graph candidates HNSW gathers per query (pgvector's default is 40). The agent
# condition is applied to those candidates, so a small agent among many needs a wider
# search to fill its `limit`; pgvector 0.8's iterative scans lift this limit. pgvector
# takes at most 1000.
EF_SEARCH = 200


def vector_text(vector: Sequence[float]) -> str:
    """`vector` in pgvector's text form."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def put(
    conn: Connection,
    model: str,
    kind: str,
    agent_id: int,
    items: Sequence[tuple[int, str, Sequence[float]]],
) -> None:
    """Store (item id, content hash, vector) for `model`; a newer vector of the same
    item replaces the old one."""
    dims = {len(v) for _, _, v in items}
    if not items:
        return
    if len(dims) != 1:
        raise ValueError(f"vectors of one model have one dimension, not {sorted(dims)}")
    ensure_vector_index(conn, model, dims.pop())
    conn.execute(
        text(
            "INSERT INTO vectors (model, kind, item_id, agent_id, content_hash, embedding) "
            "VALUES (:model, :kind, :item, :agent, :hash, CAST(:v AS vector)) "
            "ON CONFLICT (model, kind, item_id) DO UPDATE SET "
            "content_hash = EXCLUDED.content_hash, embedding = EXCLUDED.embedding"
        ),
        [
            {"model": model, "kind": kind, "item": i, "agent": agent_id, "hash": h,
             "v": vector_text(v)}
            for i, h, v in items
        ],
    )  # fmt: skip


def nearest(
    conn: Connection,
    model: str,
    kind: str,
    agent_id: int,
    vector: Sequence[float],
    limit: int = 10,
) -> list[tuple[int, float]]:
    """Agent `agent_id`'s `limit` items of `kind` nearest to `vector` (cosine distance,
    smallest first), through `model`'s HNSW index."""
    dim = len(vector)
    # The query names the model and the dimension as literals: that is what lets the
    # planner match the model's partial HNSW index.
    conn.execute(text(f"SET LOCAL hnsw.ef_search = {min(max(EF_SEARCH, limit), 1000)}"))
    rows = conn.execute(
        text(
            f"SELECT item_id, (embedding::vector({dim})) <=> CAST(:v AS vector({dim})) AS d "
            f"FROM vectors WHERE model = {model_literal(model)} AND kind = :kind "
            "AND agent_id = :agent ORDER BY d LIMIT :n"
        ),
        {"v": vector_text(vector), "kind": kind, "agent": agent_id, "n": limit},
    ).all()
    return [(int(i), float(d)) for i, d in rows]
