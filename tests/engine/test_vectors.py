"""VectorIndex over a real chromadb directory on tmp_path."""

from __future__ import annotations

import numpy as np
import pytest

from app.index.embedders import HashingEmbedder
from app.index.vectors import VectorIndex, VectorIndexError, collection_name

EMB = HashingEmbedder(dim=64)


@pytest.fixture
def index(tmp_path):
    idx = VectorIndex.open(tmp_path / "vectors", EMB.name, EMB.dim)
    yield idx
    idx.close()


def _add(index, kind, rows):
    ids = [r[0] for r in rows]
    index.upsert(kind, ids, EMB.embed_documents([r[2] for r in rows]), [r[1] for r in rows])


def test_query_returns_nearest_of_that_agent_only(index):
    _add(
        index,
        "memory",
        [
            (1, "alice", "The user prefers dark mode in every editor"),
            (2, "alice", "项目使用 PostgreSQL 数据库"),
            (3, "bob", "The user prefers dark mode in every editor"),
        ],
    )
    hits = index.query("memory", "alice", EMB.embed_query("prefers dark mode"), k=5)
    assert [h[0] for h in hits] == [1, 2]
    assert hits[0][1] > hits[1][1]
    assert -1.0 <= hits[1][1] <= hits[0][1] <= 1.0001
    assert [h[0] for h in index.query("memory", "bob", EMB.embed_query("数据库"), k=5)] == [3]
    assert index.query("memory", "carol", EMB.embed_query("dark mode"), k=5) == []


def test_identical_vector_has_similarity_one(index):
    vec = EMB.embed_documents(["项目使用 PostgreSQL 数据库"])
    index.upsert("memory", [7], vec, ["a"])
    [(row_id, sim)] = index.query("memory", "a", vec[0], k=3)
    assert row_id == 7
    assert sim == pytest.approx(1.0, abs=1e-4)


def test_kinds_are_separate(index):
    _add(index, "memory", [(1, "a", "memory text")])
    _add(index, "tape", [(1, "a", "tape text"), (2, "a", "more tape")])
    assert index.count("memory") == 1
    assert index.count("tape") == 2
    assert index.ids("tape") == {1, 2}


def test_upsert_replaces_and_delete_removes(index):
    _add(index, "memory", [(1, "a", "old text about cats"), (2, "a", "dogs")])
    _add(index, "memory", [(1, "a", "new text about 数据库")])
    assert index.count("memory") == 2
    top = index.query("memory", "a", EMB.embed_query("数据库"), k=1)
    assert top[0][0] == 1 and top[0][1] > 0.5
    index.delete("memory", [1, 99])
    assert index.ids("memory") == {2}
    assert [h[0] for h in index.query("memory", "a", EMB.embed_query("数据库"), k=5)] == [2]


def test_where_filters_extra_metadata(index):
    vecs = EMB.embed_documents(["a lesson", "a preference"])
    index.upsert(
        "memory",
        [1, 2],
        vecs,
        ["a", "a"],
        extra_metadatas=[{"status": "active"}, {"status": "archived"}],
    )
    hits = index.query("memory", "a", vecs[1], k=5, where={"status": "active"})
    assert [h[0] for h in hits] == [1]


def test_large_upsert_is_chunked_and_ids_page(index):
    n = index._max_batch + 50
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(n, EMB.dim)).astype(np.float32)
    index.upsert("tape", list(range(n)), vecs, ["a"] * n)
    assert index.count("tape") == n
    assert index.ids("tape") == set(range(n))


def test_reopen_after_close_keeps_rows_and_metadata(tmp_path):
    path = tmp_path / "vectors"
    first = VectorIndex.open(path, EMB.name, EMB.dim)
    _add(first, "memory", [(5, "a", "用户喜欢简洁的回答")])
    first.close()
    again = VectorIndex.open(path, EMB.name, EMB.dim)
    try:
        assert again.ids("memory") == {5}
        assert again.models() == {EMB.name: EMB.dim}
        assert again.query("memory", "a", EMB.embed_query("简洁的回答"), k=1)[0][0] == 5
    finally:
        again.close()


def test_same_model_other_dimension_is_refused(tmp_path):
    path = tmp_path / "vectors"
    first = VectorIndex.open(path, "m", 8)
    first.upsert("memory", [1], np.ones((1, 8), dtype=np.float32), ["a"])
    first.close()
    with pytest.raises(VectorIndexError, match="drop_model"):
        VectorIndex.open(path, "m", 16)


def test_drop_model_removes_only_old_model(tmp_path):
    path = tmp_path / "vectors"
    old = VectorIndex.open(path, "openai:bge-m3", 4)
    old.upsert("memory", [1], np.eye(4, dtype=np.float32)[:1], ["a"])
    old.close()
    new = VectorIndex.open(path, EMB.name, EMB.dim)
    try:
        _add(new, "memory", [(1, "a", "re-embedded with the new model")])
        assert new.models() == {"openai:bge-m3": 4, EMB.name: EMB.dim}
        with pytest.raises(VectorIndexError):
            new.drop_model(EMB.name)
        assert new.drop_model("openai:bge-m3") == 1
        assert new.models() == {EMB.name: EMB.dim}
        assert new.ids("memory") == {1}
    finally:
        new.close()


def test_collection_names_are_valid_and_distinct():
    assert collection_name("memory", "usem3", 7) == "memory__usem3__7"
    a = collection_name("memory", "openai:bge-m3", "agent one")
    b = collection_name("memory", "openai/bge-m3", "agent one")
    c = collection_name("memory", "openai:bge-m3", "agent__one")
    assert len({a, b, c}) == 3
    assert all(ch.isalnum() or ch in "_-" for ch in a + b + c)


def test_agent_ids_are_compared_as_text(index):
    vec = EMB.embed_documents(["a fact"])
    index.upsert("memory", [1], vec, [42])
    assert index.query("memory", "42", vec[0], k=1)[0][0] == 1
    assert index.query("memory", 42, vec[0], k=1)[0][0] == 1
    assert index.query("memory", 4, vec[0], k=1) == []


def test_wrong_dimension_is_rejected(index):
    with pytest.raises(ValueError, match="dimension"):
        index.upsert("memory", [1], np.ones((1, 3), dtype=np.float32), ["a"])
    with pytest.raises(ValueError, match="dimension"):
        index.query("memory", "a", np.ones(3, dtype=np.float32), k=1)


def test_threads_can_write_and_read_at_once(index):
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(1)
    vecs = rng.normal(size=(500, EMB.dim)).astype(np.float32)
    index.upsert("memory", list(range(100)), vecs[:100], ["reader"] * 100)

    def write(part: int) -> None:
        ids = list(range(100 + part * 100, 200 + part * 100))
        index.upsert("memory", ids, vecs[ids], [f"writer{part}"] * 100)

    def read(row: int) -> int:
        return index.query("memory", "reader", vecs[row], k=1)[0][0]

    with ThreadPoolExecutor(4) as pool:
        writes = [pool.submit(write, part) for part in range(4)]
        reads = [pool.submit(read, row) for row in range(0, 100, 5)]
        assert [r.result() for r in reads] == list(range(0, 100, 5))
        for w in writes:
            w.result()
    assert index.count("memory") == 500
    assert index.query("memory", "writer3", vecs[477], k=1)[0][0] == 477


def test_queries_answer_right_while_the_same_collection_grows(index):
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(2)
    vecs = rng.normal(size=(600, EMB.dim)).astype(np.float32)
    index.upsert("memory", list(range(100)), vecs[:100], ["a"] * 100)

    def grow() -> None:
        for start in range(100, 600, 50):
            ids = list(range(start, start + 50))
            index.upsert("memory", ids, vecs[ids], ["a"] * 50)

    def read(row: int) -> int:
        return index.query("memory", "a", vecs[row], k=3)[0][0]

    with ThreadPoolExecutor(4) as pool:
        growing = pool.submit(grow)
        rows = [row % 100 for row in range(300)]
        reads = [pool.submit(read, row) for row in rows]
        assert [r.result() for r in reads] == rows
        growing.result()
    assert index.count("memory") == 600
    assert index.query("memory", "a", vecs[555], k=1)[0][0] == 555
