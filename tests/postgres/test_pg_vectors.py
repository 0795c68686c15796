"""A home on PostgreSQL keeps its vectors in its database (pgvector): semantic search
needs no index directory, a second home directory on the database finds what the first
embedded, and the index is checked and rebuilt there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, text

from app.cli.main import cli as tapemind
from app.db.postgres import vectors as pgv
from app.db.postgres.schema import agent_graph_name
from app.index import database
from app.index.database import DatabaseStore
from app.index.vector_process import StoreFault

pytestmark = pytest.mark.heavy  # the real embedder

TEA = "The user prefers green tea and never drinks coffee."
QUESTION_ZH = "他平时爱喝什么饮料"


def _run(home: Path, *args: str, ok: bool = True) -> str:
    result = CliRunner().invoke(tapemind, ["--home", str(home), *args])
    assert (result.exit_code == 0) == ok, result.output
    return result.output


def _json(home: Path, *args: str) -> Any:
    return json.loads(_run(home, "--json", *args))


def _semantic(home: Path, agent: str, query: str) -> list[str]:
    found = _json(home, "search", "--agent", agent, "--mode", "semantic", query)
    return [hit["memory"]["text"] for hit in found["hits"]]


def _vector_rows(url: str) -> list[tuple[str, str, int]]:
    from app.db import postgres

    engine = postgres.engine_for(url)
    try:
        with engine.connect() as conn:
            got = conn.execute(
                text(
                    "SELECT v.kind, a.name, count(*) FROM vectors v "
                    "JOIN agents a ON a.id = v.agent_id GROUP BY v.kind, a.name ORDER BY 1, 2"
                )
            ).all()
        return [(str(k), str(a), int(n)) for k, a, n in got]
    finally:
        engine.dispose()


def test_a_memory_is_found_across_languages_from_the_database_alone(
    pg_url: str, tmp_path: Path
) -> None:
    laptop = tmp_path / "laptop"
    _run(laptop, "init", "--database", pg_url)
    _run(laptop, "agent", "add", "cc")
    _run(laptop, "agent", "add", "bob")
    _run(laptop, "remember", "--agent", "cc", "--category", "preference", TEA)
    _run(laptop, "remember", "--agent", "bob", "--category", "project_fact",
         "The project deploys with Terraform.")  # fmt: skip
    _run(laptop, "index", "run")

    assert _semantic(laptop, "cc", QUESTION_ZH)[0] == TEA
    assert TEA not in _semantic(laptop, "bob", QUESTION_ZH)  # agents stay apart
    assert not (laptop / "index").exists()  # no chromadb directory beside it
    assert _vector_rows(pg_url) == [("memory", "bob", 1), ("memory", "cc", 1)]
    status = _json(laptop, "index", "status")
    assert status["unembedded_total"] == 0
    assert "PostgreSQL database" in status["path"]

    # A second home directory on the same database (another machine) embeds nothing
    # again: the vectors the laptop wrote answer it.
    desktop = tmp_path / "desktop"
    _run(desktop, "init", "--database", pg_url)
    assert _json(desktop, "index", "status")["unembedded_total"] == 0
    assert _semantic(desktop, "cc", QUESTION_ZH)[0] == TEA


def test_the_indexer_gives_an_agent_with_many_memories_its_own_graph(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "GRAPH_FROM", 4)
    home = tmp_path / "home"
    _run(home, "init", "--database", pg_url)
    _run(home, "agent", "add", "cc")
    _run(home, "agent", "add", "bob")
    facts = [
        TEA,
        "用户住在上海",
        "The user's laptop runs Arch Linux.",
        "用户每天早上六点跑步",
        "The user is allergic to peanuts.",
        "项目用 Terraform 部署",
    ]
    for fact in facts:
        _run(home, "remember", "--agent", "cc", "--category", "preference", fact)
    _run(home, "remember", "--agent", "bob", "--category", "preference", "Bob likes jazz.")
    built = [_json(home, "index", "run")["graphs"]]
    while built[-1]:  # a run starts no new build after a few seconds
        built.append(_json(home, "index", "run")["graphs"])
    # cc's six memories; bob's one is searched exactly.
    assert sum(built) == 1 and _graph_owners(pg_url) == [("memory", "cc")]
    assert _semantic(home, "cc", QUESTION_ZH)[0] == TEA  # through cc's graph
    assert _semantic(home, "bob", QUESTION_ZH) == ["Bob likes jazz."]
    assert _json(home, "index", "check")["problem"] is None


def test_the_index_is_checked_and_rebuilt_in_the_database(pg_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    _run(home, "init", "--database", pg_url)
    _run(home, "agent", "add", "cc")
    _run(home, "remember", "--agent", "cc", "--category", "preference", TEA)
    _run(home, "remember", "--agent", "cc", "--category", "preference", "用户住在上海")
    _run(home, "index", "run")

    checked = _json(home, "index", "check")
    assert checked["problem"] is None, checked
    assert checked["kinds"]["memory"]["checked"] == 2

    # A vector of a row the database does not have (left by a host that died between
    # the two writes): the rebuild starts from an empty table and embeds the rows again.
    _stray_vector(pg_url, item=999)
    assert ("memory", "cc", 3) in _vector_rows(pg_url)
    _run(home, "index", "rebuild")
    assert _vector_rows(pg_url) == [("memory", "cc", 2)]
    assert _json(home, "index", "status")["unembedded_total"] == 0
    assert _semantic(home, "cc", "这个人在哪个城市生活")[0] == "用户住在上海"


def _stray_vector(url: str, item: int) -> None:
    from app.db import postgres

    engine = postgres.engine_for(url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO vectors (model, kind, item_id, agent_id, content_hash, "
                    "embedding) SELECT model, kind, :item, agent_id, '', embedding "
                    "FROM vectors LIMIT 1"
                ),
                {"item": item},
            )
    finally:
        engine.dispose()


def _graph_owners(url: str) -> list[tuple[str, str]]:
    from app.db import postgres

    engine = postgres.engine_for(url)
    try:
        with engine.connect() as conn:
            names = dict(conn.execute(text("SELECT id, name FROM agents")).all())
            found = pgv.graphs(conn, "usem3")
        return sorted((kind, str(names[agent])) for (kind, agent), ready in found.items() if ready)
    finally:
        engine.dispose()


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    m = rng.normal(size=(n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _agents(pg: Engine, *names: str) -> list[int]:
    with pg.begin() as conn:
        return [
            int(
                conn.execute(
                    text(
                        "INSERT INTO agents (name, created_at, settings) "
                        "VALUES (:n, 'now', '{}') RETURNING id"
                    ),
                    {"n": name},
                ).scalar_one()
            )
            for name in names
        ]


def test_an_agent_with_many_rows_gets_its_own_graph_with_the_same_answers(
    pg: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "GRAPH_FROM", 100)
    ada, bob = _agents(pg, "ada", "bob")
    rng = np.random.default_rng(7)
    vectors = _unit(rng, 400, 32)
    index = DatabaseStore(pg).index("m", 32)
    index.upsert("memory", list(range(1, 381)), vectors[:380], [ada] * 380)
    index.upsert("memory", list(range(381, 401)), vectors[380:], [bob] * 20)
    queries = [v + 0.1 * w for v, w in zip(vectors[:20], _unit(rng, 20, 32), strict=True)]
    exact = [index.query("memory", ada, q, 5) for q in queries]
    assert all(q[0][0] == n + 1 and q[0][1] > 0.9 for n, q in enumerate(exact))

    assert index.grow(5.0) == 1  # Ada's; Bob's 20 rows stay searched exactly
    assert index.grow(5.0) == 0  # nothing written since
    assert _graphs(pg) == {("memory", ada): True}
    # Another host sees the graph and answers through it as the exact search did.
    other = DatabaseStore(pg).index("m", 32)
    graph = [other.query("memory", ada, q, 5) for q in queries]
    assert [[i for i, _ in g] for g in graph] == [[i for i, _ in e] for e in exact]
    mine = other.query("memory", bob, vectors[385], 30)
    assert mine[0][0] == 386 and {i for i, _ in mine} == set(range(381, 401))
    # The check asks for each of Ada's rows through her graph.
    report = other.self_check("memory", [(str(ada), i) for i in range(1, 381)])
    assert report["checked"] == 380 and report["unfindable"] == []

    # Most of her rows forgotten: the graph goes, and she is searched exactly again.
    index.delete("memory", list(range(1, 341)))
    assert index.grow(5.0) == 0 and _graphs(pg) == {}
    assert index.query("memory", ada, vectors[350], 3)[0][0] == 351


def test_a_graph_a_dead_host_left_half_built_is_built_again(
    pg: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "GRAPH_FROM", 100)
    (ada,) = _agents(pg, "ada")
    vectors = _unit(np.random.default_rng(3), 150, 32)
    index = DatabaseStore(pg).index("m", 32)
    index.upsert("memory", list(range(1, 151)), vectors, [ada] * 150)
    with pg.connect() as conn:
        conn.execute(
            text(f"CREATE INDEX {agent_graph_name('m', 'memory', ada)} ON vectors (item_id)")
        )
        conn.execute(
            text("UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass(:n)"),
            {"n": agent_graph_name("m", "memory", ada)},
        )
        conn.commit()
    assert _graphs(pg) == {("memory", ada): False}  # what a build killed half-way leaves
    assert DatabaseStore(pg).index("m", 32).grow(5.0) == 1
    assert _graphs(pg) == {("memory", ada): True}
    with pg.connect() as conn:
        definition = conn.execute(
            text("SELECT indexdef FROM pg_indexes WHERE indexname = :n"),
            {"n": agent_graph_name("m", "memory", ada)},
        ).scalar_one()
    assert "hnsw" in definition and f"agent_id = {ada}" in definition


def _graphs(pg: Engine) -> dict[tuple[str, int], bool]:
    with pg.connect() as conn:
        return pgv.graphs(conn, "m")


def test_vectors_of_another_dimension_are_refused_and_nothing_is_written(pg: Engine) -> None:
    (ada,) = _agents(pg, "ada")
    store = DatabaseStore(pg)
    store.index("m", 32).upsert("memory", [1], _unit(np.random.default_rng(1), 1, 32), [ada])
    with pytest.raises(StoreFault) as refused:
        store.index("m", 64).upsert("memory", [2], np.ones((1, 64)), [ada])
    assert refused.value.fault == "mismatch"
    with pytest.raises(StoreFault) as shape:
        store.index("m", 32).upsert("memory", [2, 3], np.ones((1, 32)), [ada])
    assert shape.value.fault == "invalid"
    assert store.index("m", 32).count("memory") == 1
    assert store.models() == {"m": 32}
    assert store.forget_model("m") == 1 and store.models() == {}
