"""Embeddings in the same database as their rows (pgvector).

On PostgreSQL the vectors need no separate store process and no home directory: every
host that opens the database reads and writes the same `vectors` table. Isolation
between agents is the `agent_id` condition (the embedded index has one collection per
agent instead).

Two ways to find an agent's nearest rows:

- `nearest_exact`: the agent's rows through the `(model, kind, agent_id)` b-tree,
  compared one by one. Exact, and it costs what the agent holds, not what the home holds.
- `nearest`: the model's HNSW graph (cosine). pgvector 0.6 applies the agent condition
  to the graph's candidates afterwards (`EF_SEARCH` of them), so it only fills `limit`
  for an agent that holds most of the model's rows.

`app.index.database` chooses between them by the agent's share of the rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import Connection, text

from app.db.postgres.schema import ensure_vector_index, model_literal, vector_index_name

# How many graph candidates HNSW gathers per query (pgvector's default is 40). The agent
# condition is applied to those candidates, so a small agent among many needs a wider
# search to fill its `limit`; pgvector 0.8's iterative scans lift this limit. pgvector
# takes at most 1000.
EF_SEARCH = 200
MAX_EF_SEARCH = 1000


def vector_text(vector: Sequence[float]) -> str:
    """`vector` in pgvector's text form."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def vector_of(stored: str) -> list[float]:
    """A vector read back in pgvector's text form (`[1,2.5,...]`, which is JSON)."""
    return [float(x) for x in json.loads(stored)]


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
            "agent_id = EXCLUDED.agent_id, content_hash = EXCLUDED.content_hash, "
            "embedding = EXCLUDED.embedding"
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
    ef_search: int = EF_SEARCH,
) -> list[tuple[int, float]]:
    """Agent `agent_id`'s `limit` items of `kind` nearest to `vector` (cosine distance,
    smallest first), through `model`'s HNSW index, gathering `ef_search` candidates."""
    dim = len(vector)
    ef = min(max(ef_search, limit), MAX_EF_SEARCH)
    # The query names the model and the dimension as literals: that is what lets the
    # planner match the model's partial HNSW index.
    conn.execute(text(f"SET LOCAL hnsw.ef_search = {int(ef)}"))
    rows = conn.execute(
        text(
            f"SELECT item_id, (embedding::vector({dim})) <=> CAST(:v AS vector({dim})) AS d "
            f"FROM vectors WHERE model = {model_literal(model)} AND kind = :kind "
            "AND agent_id = :agent ORDER BY d LIMIT :n"
        ),
        {"v": vector_text(vector), "kind": kind, "agent": agent_id, "n": limit},
    ).all()
    return [(int(i), float(d)) for i, d in rows]


def nearest_exact(
    conn: Connection,
    model: str,
    kind: str,
    agent_id: int,
    vector: Sequence[float],
    limit: int = 10,
) -> list[tuple[int, float]]:
    """Like `nearest`, comparing every one of the agent's rows: the model is a bound
    parameter, so the planner cannot take the HNSW index and reads the agent's rows
    through the b-tree instead."""
    rows = conn.execute(
        text(
            "SELECT item_id, embedding <=> CAST(:v AS vector) AS d FROM vectors "
            "WHERE model = :model AND kind = :kind AND agent_id = :agent ORDER BY d LIMIT :n"
        ),
        {"v": vector_text(vector), "model": model, "kind": kind, "agent": agent_id, "n": limit},
    ).all()
    return [(int(i), float(d)) for i, d in rows]


def delete(conn: Connection, model: str, kind: str, ids: Sequence[int]) -> None:
    """Remove the vectors of `ids` (any agent); ids that are not there are ignored."""
    if ids:
        conn.execute(
            text("DELETE FROM vectors WHERE model = :m AND kind = :k AND item_id = ANY(:ids)"),
            {"m": model, "k": kind, "ids": [int(i) for i in ids]},
        )


def stored(
    conn: Connection, model: str, kind: str, ids: Sequence[int]
) -> dict[int, tuple[int, list[float]]]:
    """{item id: (agent id, vector)} of those of `ids` that have a vector."""
    if not ids:
        return {}
    rows = conn.execute(
        text(
            "SELECT item_id, agent_id, embedding::text FROM vectors "
            "WHERE model = :m AND kind = :k AND item_id = ANY(:ids)"
        ),
        {"m": model, "k": kind, "ids": [int(i) for i in ids]},
    ).all()
    return {int(i): (int(a), vector_of(v)) for i, a, v in rows}


def ids(conn: Connection, model: str, kind: str) -> set[int]:
    """Every item id of `kind` with a vector of `model`."""
    rows = conn.execute(
        text("SELECT item_id FROM vectors WHERE model = :m AND kind = :k"),
        {"m": model, "k": kind},
    ).scalars()
    return {int(i) for i in rows}


def counts(conn: Connection, model: str) -> dict[tuple[str, int], int]:
    """{(kind, agent id): rows} of `model`'s vectors."""
    rows = conn.execute(
        text(
            "SELECT kind, agent_id, count(*) FROM vectors WHERE model = :m GROUP BY kind, agent_id"
        ),
        {"m": model},
    ).all()
    return {(str(k), int(a)): int(n) for k, a, n in rows}


def agent_share(
    conn: Connection, model: str, kind: str, agent_id: int, past: int
) -> tuple[int, int | None]:
    """(the agent's rows, every agent's rows) of `kind` with a vector of `model`; the
    agent's are counted only up to `past` + 1, and everyone's only when the agent holds
    more than `past` (else None). Counting everyone's walks the model's whole range of
    the index: 33 ms at 300,000 vectors, in every agent's first search."""
    mine = int(
        conn.execute(
            text(
                "SELECT count(*) FROM (SELECT 1 FROM vectors WHERE model = :m AND kind = :k "
                "AND agent_id = :a LIMIT :n) AS held"
            ),
            {"m": model, "k": kind, "a": agent_id, "n": past + 1},
        ).scalar_one()
    )
    if mine <= past:
        return mine, None
    row = conn.execute(
        text(
            "SELECT count(*) FILTER (WHERE agent_id = :a), count(*) FROM vectors "
            "WHERE model = :m AND kind = :k"
        ),
        {"m": model, "k": kind, "a": agent_id},
    ).one()
    return int(row[0]), int(row[1])


def models(conn: Connection) -> dict[str, int]:
    """Every model with vectors, with their dimension. One step per model down the
    primary key (a loose index scan), not a pass over every vector."""
    rows = conn.execute(
        text(
            "WITH RECURSIVE m(model) AS ("
            " SELECT min(model) FROM vectors"
            " UNION ALL"
            " SELECT (SELECT min(model) FROM vectors WHERE model > m.model) FROM m"
            " WHERE m.model IS NOT NULL) "
            "SELECT model, (SELECT vector_dims(embedding) FROM vectors v "
            "WHERE v.model = m.model LIMIT 1) FROM m WHERE model IS NOT NULL"
        )
    ).all()
    return {str(m): int(d) for m, d in rows}


def forget_model(conn: Connection, model: str) -> int:
    """Delete `model`'s vectors and its HNSW index; returns how many (kind, agent)
    groups it held."""
    groups = len(counts(conn, model))
    conn.execute(text("DELETE FROM vectors WHERE model = :m"), {"m": model})
    conn.execute(text(f"DROP INDEX IF EXISTS {vector_index_name(model)}"))
    return groups


def forget_all(conn: Connection) -> None:
    """Delete every vector of every model (the index is rebuilt from the rows)."""
    conn.execute(text("DELETE FROM vectors"))
