"""Embeddings in the same database as their rows (pgvector).

On PostgreSQL the vectors need no separate store process and no home directory: every
host that opens the database reads and writes the same `vectors` table. Isolation
between agents is the `agent_id` condition (the embedded index has one collection per
agent instead).

Two ways to find an agent's nearest rows:

- `nearest_exact`: the agent's rows through the `(model, kind, agent_id)` b-tree,
  compared one by one. Exact, and it costs what the agent holds, not what the home holds.
- `nearest_in_graph`: the agent's own HNSW graph (cosine), a partial index over its rows
  of one kind (`build_graph`), for an agent that holds many. There is no graph over
  every agent's rows: pgvector 0.6 applies a condition to a graph's candidates after
  gathering them, so a graph over the whole table only served an agent that held most
  of it, and its first build locked the table against writes for as long as it took
  (more than 10 minutes at 1,000,000 vectors). pgvector's own advice for a filter on a
  few values is a partial index per value.

`app.index.database` takes the agent's graph when it has one (`graphs`), else the exact
search.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import Connection, text

from app.db.postgres.schema import KIND_LETTER, agent_graph_name, model_literal, vector_index_name

# Candidates an agent's graph gathers per query: every one is the agent's, so pgvector's
# default (40) would do for a top 10; wider, so rows the graph links poorly are still
# found. pgvector takes at most 1000.
EF_OWN_GRAPH = 100
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
    if not 0 < dims.pop() <= 2000:  # pgvector's HNSW limit for `vector`
        raise ValueError("an agent's graph takes vectors of 1 to 2000 dimensions")
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


def nearest_in_graph(
    conn: Connection,
    model: str,
    kind: str,
    agent_id: int,
    vector: Sequence[float],
    limit: int = 10,
) -> list[tuple[int, float]]:
    """Agent `agent_id`'s `limit` items of `kind` nearest to `vector` (cosine distance,
    smallest first), through its own graph (`build_graph`). The query names the model,
    the kind and the agent as literals, the partial index's own condition: that is what
    lets the planner take it."""
    dim = len(vector)
    ef = min(max(EF_OWN_GRAPH, limit), MAX_EF_SEARCH)
    conn.execute(text(f"SET LOCAL hnsw.ef_search = {int(ef)}"))
    rows = conn.execute(
        text(
            f"SELECT item_id, (embedding::vector({dim})) <=> CAST(:v AS vector({dim})) AS d "
            f"FROM vectors WHERE {_agent_condition(model, kind, agent_id)} ORDER BY d LIMIT :n"
        ),
        {"v": vector_text(vector), "n": limit},
    ).all()
    return [(int(i), float(d)) for i, d in rows]


def _agent_condition(model: str, kind: str, agent_id: int) -> str:
    """The rows of an agent's graph, in literals (the kind is checked, the id an int)."""
    if kind not in KIND_LETTER:
        raise ValueError(f"no vectors of kind {kind!r}")
    return f"model = {model_literal(model)} AND kind = '{kind}' AND agent_id = {int(agent_id)}"


def graphs(conn: Connection, model: str) -> dict[tuple[str, int], bool]:
    """{(kind, agent id): whether it is ready} of the agents' own graphs of `model`. One
    that is not ready is being built, or its build stopped half-way (a host died)."""
    prefix = vector_index_name(model) + "_"
    rows = conn.execute(
        text(
            "SELECT c.relname, i.indisvalid AND i.indisready FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE i.indrelid = to_regclass('vectors') AND starts_with(c.relname, :p)"
        ),
        {"p": prefix},
    ).all()
    kinds = {letter: kind for kind, letter in KIND_LETTER.items()}
    out: dict[tuple[str, int], bool] = {}
    for name, ready in rows:
        rest = str(name)[len(prefix) :]
        if rest[:1] in kinds and rest[1:].isdigit():
            out[(kinds[rest[:1]], int(rest[1:]))] = bool(ready)
    return out


def build_graph(conn: Connection, model: str, dim: int, kind: str, agent_id: int) -> None:
    """Build agent `agent_id`'s own graph over its `kind` vectors of `model`, without
    locking the table against other hosts' writes (`CONCURRENTLY`). `conn` is in
    autocommit mode. A build a dead host left half-done is dropped first."""
    name = agent_graph_name(model, kind, agent_id)
    if graphs(conn, model).get((kind, int(agent_id))) is False:
        conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name}"))
    conn.execute(
        text(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON vectors "
            f"USING hnsw ((embedding::vector({int(dim)})) vector_cosine_ops) "
            f"WHERE {_agent_condition(model, kind, agent_id)}"
        )
    )


def drop_graph(conn: Connection, model: str, kind: str, agent_id: int) -> None:
    """Drop an agent's own graph (its rows are searched exactly again); `conn` is in
    autocommit mode."""
    name = agent_graph_name(model, kind, agent_id)
    conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name}"))


def nearest_exact(
    conn: Connection,
    model: str,
    kind: str,
    agent_id: int,
    vector: Sequence[float],
    limit: int = 10,
) -> list[tuple[int, float]]:
    """Like `nearest_in_graph`, comparing every one of the agent's rows: the model is a
    bound parameter, so the planner cannot take a graph and reads the agent's rows
    through the b-tree instead."""
    rows = conn.execute(
        text(
            "SELECT item_id, embedding <=> CAST(:v AS vector) AS d FROM vectors "
            "WHERE model = :model AND kind = :kind AND agent_id = :agent ORDER BY d LIMIT :n"
        ),
        {"v": vector_text(vector), "model": model, "kind": kind, "agent": agent_id, "n": limit},
    ).all()
    return [(int(i), float(d)) for i, d in rows]


def delete(conn: Connection, model: str, kind: str, ids: Sequence[int]) -> set[int]:
    """Remove the vectors of `ids` (any agent); ids that are not there are ignored.
    Returns the agents whose vectors went."""
    if not ids:
        return set()
    gone = conn.execute(
        text(
            "DELETE FROM vectors WHERE model = :m AND kind = :k AND item_id = ANY(:ids) "
            "RETURNING agent_id"
        ),
        {"m": model, "k": kind, "ids": [int(i) for i in ids]},
    ).scalars()
    return {int(a) for a in gone}


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


def agent_held(conn: Connection, model: str, kind: str, agent_id: int, past: int) -> int:
    """The agent's rows of `kind` with a vector of `model`, counted up to `past` + 1."""
    return int(
        conn.execute(
            text(
                "SELECT count(*) FROM (SELECT 1 FROM vectors WHERE model = :m AND kind = :k "
                "AND agent_id = :a LIMIT :n) AS held"
            ),
            {"m": model, "k": kind, "a": agent_id, "n": past + 1},
        ).scalar_one()
    )


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
    """Delete `model`'s vectors and its agents' graphs; returns how many (kind, agent)
    groups it held."""
    groups = len(counts(conn, model))
    conn.execute(text("DELETE FROM vectors WHERE model = :m"), {"m": model})
    for kind, agent in graphs(conn, model):
        conn.execute(text(f"DROP INDEX IF EXISTS {agent_graph_name(model, kind, agent)}"))
    return groups


def forget_all(conn: Connection) -> None:
    """Delete every vector of every model (the index is rebuilt from the rows)."""
    conn.execute(text("DELETE FROM vectors"))
