"""The vector index: indexer, reconcile, forget, isolation, model change (real chromadb)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app import Engine
from app.clock import ManualClock
from app.engine import runtime_of
from app.errors import InvalidInput
from app.index import IndexNotReady, rows
from app.index.embedders import HashingEmbedder
from app.index.service import of as retrieval_of

from .index_helpers import EMB, live_ids, unembedded, vector_ids


@pytest.fixture
def eng(home: Path, clock: ManualClock) -> Iterator[Engine]:
    engine = Engine.open(home, create=True, clock=clock, embedder=EMB)
    try:
        yield engine
    finally:
        engine.close()


def _seed(engine: Engine, agent: str = "a") -> dict[str, int]:
    engine.add_agent(agent)
    tape = engine.append(
        agent,
        [
            {
                "thread": "t1",
                "kind": "message",
                "role": "user",
                "text": "我们的数据库以后都用 PostgreSQL",
            },
            {"thread": "t1", "kind": "tool_call", "role": "assistant", "text": "ls -la"},
            {
                "thread": "t2",
                "kind": "message",
                "role": "user",
                "text": "Deploy the service on Friday",
            },
        ],
    ).ids
    m1 = engine.remember(agent, "The user prefers dark mode in every editor", "preference")
    m2 = engine.remember(agent, "项目的数据库是 PostgreSQL", "project_fact")
    assert m1.memory and m2.memory
    return {"dark": m1.memory.id, "db": m2.memory.id, "tape_db": tape[0], "tool": tape[1]}


def test_indexer_drains_queue_and_status_counts(eng: Engine) -> None:
    ids = _seed(eng)
    before = eng.index_status()
    assert before.model == EMB.name and before.injected
    assert before.unembedded == {"memory": 2, "tape": 2}  # the tool call is not embedded
    assert before.indexed == {"memory": 0, "tape": 0}
    first = eng.run_indexer(limit=1)
    assert first.embedded == 1 and first.remaining == 3
    assert unembedded(eng) == 3
    rest = eng.run_indexer()
    assert rest.remaining == 0 and unembedded(eng) == 0
    after = eng.index_status()
    assert after.indexed == {"memory": 2, "tape": 2}
    assert after.dim == 64 and after.last_run and after.last_run["remaining"] == 0
    assert vector_ids(eng.home, EMB.name, 64, "memory") == sorted([ids["dark"], ids["db"]])
    assert ids["tool"] not in vector_ids(eng.home, EMB.name, 64, "tape")


def test_unembedded_rows_found_by_fulltext_and_hybrid_says_why(eng: Engine) -> None:
    ids = _seed(eng)
    result = eng.search("a", "dark mode")
    assert [h.id for h in result.hits] == [ids["dark"]]
    assert result.notes and "none is embedded yet" in result.notes[0]
    with pytest.raises(IndexNotReady, match="tapemind index run"):
        eng.search("a", "dark mode", mode="semantic")
    eng.run_indexer()
    hybrid = eng.search("a", "dark mode")
    assert hybrid.notes == ()
    assert hybrid.hits[0].id == ids["dark"] and "semantic" in hybrid.hits[0].why
    # A row added after the run is still found, by full-text, before the next run.
    new = eng.remember("a", "The deploy window is Friday afternoon", "project_fact").memory
    assert new is not None
    assert new.id in [h.id for h in eng.search("a", "deploy window").hits]


def test_forget_and_erase_remove_vectors(eng: Engine) -> None:
    ids = _seed(eng)
    eng.run_indexer()
    eng.forget(ids["dark"])
    # Filtered in SQLite at once, even before the indexer deletes the vector.
    assert ids["dark"] not in [i for i, _ in _semantic(eng, "memory", "dark mode editor")]
    eng.erase_entry(ids["tape_db"])
    stats = eng.run_indexer()
    assert stats.deleted == 2
    assert vector_ids(eng.home, EMB.name, 64, "memory") == [ids["db"]]
    assert ids["tape_db"] not in vector_ids(eng.home, EMB.name, 64, "tape")
    assert eng.index_status().indexed == {"memory": 1, "tape": 1}


def _semantic(eng: Engine, kind: str, query: str, agent: str = "a") -> list[tuple[int, float]]:
    from app.db.filters import Filters
    from app.runtime import agent_row

    rt = runtime_of(eng)
    with rt.read() as s:
        return retrieval_of(rt).semantic_search(
            s, agent_row(s, agent), kind, query, Filters(statuses=("active",)), 10
        )


def test_isolation_between_agents(eng: Engine) -> None:
    a = _seed(eng, "a")
    b = _seed(eng, "b")
    eng.run_indexer()
    for kind, query in (("memory", "PostgreSQL 数据库"), ("tape", "数据库 PostgreSQL")):
        got_a = {i for i, _ in _semantic(eng, kind, query, "a")}
        got_b = {i for i, _ in _semantic(eng, kind, query, "b")}
        assert got_a and got_b and not got_a & got_b
    assert a["db"] in {h.id for h in eng.search("a", "数据库", mode="semantic").hits}
    assert b["db"] not in {h.id for h in eng.search("a", "数据库", mode="semantic").hits}


def test_status_filters_keep_archived_out_unless_asked(eng: Engine) -> None:
    ids = _seed(eng)
    eng.run_indexer()
    rt = runtime_of(eng)
    with rt.write() as s:
        s.connection().exec_driver_sql(
            "UPDATE memories SET status = 'archived' WHERE id = ?", (ids["dark"],)
        )
    assert ids["dark"] not in [h.id for h in eng.search("a", "dark mode", mode="semantic").hits]
    archived = eng.search("a", "dark mode", mode="semantic", status="archived").hits
    assert [h.id for h in archived] == [ids["dark"]]


def test_reconcile_after_lost_index_and_superseded_rows(eng: Engine, home: Path) -> None:
    ids = _seed(eng)
    eng.run_indexer()
    rt = runtime_of(eng)
    # A status change made without an event the indexer listens to (another process).
    with rt.write() as s:
        s.connection().exec_driver_sql(
            "UPDATE memories SET status = 'superseded' WHERE id = ?", (ids["dark"],)
        )
    stats = eng.run_indexer()  # no reconcile due yet in this process
    assert stats.reconciled is None
    stats = _reconcile(eng)
    assert stats.deleted == 1
    assert vector_ids(home, EMB.name, 64, "memory") == [ids["db"]]


def _reconcile(eng: Engine):  # type: ignore[no-untyped-def]
    from app.index import run_indexer_once

    return run_indexer_once(eng, reconcile=True)


def test_deleted_index_directory_is_rebuilt_from_the_database(home: Path, clock) -> None:  # type: ignore[no-untyped-def]
    import shutil

    with Engine.open(home, create=True, clock=clock, embedder=EMB) as eng:
        _seed(eng)
        eng.run_indexer()
    shutil.rmtree(home / "index")
    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        stalled = eng.index_status().stalled
        assert stalled is not None and stalled.because == "missing"
        stats = eng.run_indexer()
        assert stats.embedded == 4 and stats.remaining == 0
        status = eng.index_status()
        assert status.stalled is None and status.healed["because"] == "missing"
        assert vector_ids(home, EMB.name, 64, "memory") == live_ids(eng, "memory")
        assert vector_ids(home, EMB.name, 64, "tape") == live_ids(eng, "tape")


def test_model_change_rebuilds_beside_the_old_one(home: Path, clock) -> None:  # type: ignore[no-untyped-def]
    small = HashingEmbedder(dim=32)
    with Engine.open(home, create=True, clock=clock) as eng:
        svc = retrieval_of(runtime_of(eng))
        svc.register_embedder("h64", EMB)
        svc.register_embedder("h32", small)
        with runtime_of(eng).write() as s:
            rows.set_meta(s, rows.META_EMBEDDER, "h64")
        ids = _seed(eng)
        eng.run_indexer()
        st = eng.rebuild_index("h32")
        assert st.model == EMB.name and st.rebuilding and st.rebuilding.model == small.name
        eng.run_indexer(limit=1)  # partway: queries still use the old model
        assert eng.index_status().rebuilding is not None
        assert eng.search("a", "dark mode", mode="semantic").hits[0].id == ids["dark"]
        assert svc.active().name == EMB.name
        late = eng.remember("a", "Lunch is at noon every day", "project_fact").memory
        assert late is not None
        stats = eng.run_indexer()
        assert stats.switched_to == small.name
        done = eng.index_status()
        assert done.model == small.name and done.spec == "h32" and done.rebuilding is None
        assert done.indexed == {"memory": 3, "tape": 2}
        assert eng.search("a", "dark mode", mode="semantic").hits[0].id == ids["dark"]
        assert vector_ids(home, small.name, 32, "memory") == live_ids(eng, "memory")
        assert svc.index_models() == {small.name: 32}  # the old collections are gone


def test_bad_input(eng: Engine) -> None:
    _seed(eng)
    eng.run_indexer()
    for query in ("", "   ", "x" * 5000):
        with pytest.raises(InvalidInput):
            eng.search("a", query, mode="semantic")
    with pytest.raises(InvalidInput, match="scope"):
        eng.search("a", "x", scope="everything")
    with pytest.raises(InvalidInput, match="status"):
        eng.search("a", "x", mode="semantic", status="deleted")
    with pytest.raises(InvalidInput):
        eng.run_indexer(limit=0)
    with pytest.raises(InvalidInput, match="Unknown embedder"):
        eng.rebuild_index("word2vec")
    eng.add_agent("empty")
    assert eng.search("empty", "anything", mode="semantic").hits == ()


def test_context_counts_a_memory_once_when_weak_but_in_another_route(eng: Engine) -> None:
    # Regression: a weak semantic neighbour that the core route included was also listed
    # as dropped "below_relevance", and storing the recall record failed.
    _seed(eng)
    # A pinned memory: the core route brings it whatever the query.
    pinned = eng.remember("a", "Always answer in short sentences", "preference", importance=0.95)
    assert pinned.memory is not None
    eng.run_indexer()
    block = eng.context("a", query="zebra crossing")
    included = set(block.included_ids)
    assert pinned.memory.id in included
    assert not included & {d.memory_id for d in block.dropped}


def test_background_loop_embeds_new_rows_until_stopped(eng: Engine) -> None:
    import threading

    from app.index import indexer_job, indexer_loop

    _seed(eng)
    stop = threading.Event()
    worker = threading.Thread(target=indexer_loop, args=(eng, stop), kwargs={"interval_s": 0.05})
    worker.start()
    try:
        waited = 0
        while unembedded(eng) and waited < 600:
            stop.wait(0.05)
            waited += 1
        assert unembedded(eng) == 0
        eng.remember("a", "The build server is called 小黑", "project_fact")
        waited = 0
        while unembedded(eng) and waited < 600:
            stop.wait(0.05)
            waited += 1
        assert unembedded(eng) == 0
    finally:
        stop.set()
        worker.join(30)
    assert not worker.is_alive()
    assert eng.search("a", "小黑", mode="semantic").hits
    name, interval, job = indexer_job()
    assert name == "indexer" and interval > 0
    assert job(eng).remaining == 0  # what the host's job thread calls


def test_old_model_files_are_gone_after_a_switch(home: Path, clock) -> None:  # type: ignore[no-untyped-def]
    small = HashingEmbedder(dim=32)
    with Engine.open(home, create=True, clock=clock) as eng:
        svc = retrieval_of(runtime_of(eng))
        svc.register_embedder("h64", EMB)
        svc.register_embedder("h32", small)
        with runtime_of(eng).write() as s:
            rows.set_meta(s, rows.META_EMBEDDER, "h64")
        _seed(eng)
        eng.run_indexer()
        eng.rebuild_index("h32")
        assert eng.run_indexer().switched_to == small.name
    with Engine.open(home, clock=clock) as eng:
        retrieval_of(runtime_of(eng)).register_embedder("h32", small)
        assert eng.run_indexer().reconciled == "deep"
    segment_dirs = [p for p in (home / "index").iterdir() if p.is_dir()]
    assert len(segment_dirs) <= 2  # one per collection of the new model (memory, tape)


def test_bounded_runs_embed_rows_in_the_order_they_were_queued(
    eng: Engine, clock: ManualClock
) -> None:
    """Oldest first, and within one timestamp (a bulk import queues everything at once)
    in the order the rows were queued; an edit sends a row to the back of the queue."""
    eng.add_agent("a")
    first = eng.remember("a", "Le client préfère le thé vert", "preference").memory
    tape = eng.append(
        "a",
        [{"thread": "t", "kind": "message", "role": "user", "text": f"第 {i} 条消息 message {i}"}
         for i in range(3)],
    ).ids  # fmt: skip
    second = eng.remember("a", "部署在周五 deploys go out on Friday", "project_fact").memory
    assert first and second
    clock.advance(seconds=1)
    edited = eng.edit_memory(first.id, "Le client préfère le thé noir")  # queued again, later
    clock.advance(seconds=1)
    later = eng.remember("a", "The staging database is called orchid", "project_fact").memory
    assert later
    order = [("tape", tape[0]), ("tape", tape[1]), ("tape", tape[2]), ("memory", second.id),
             ("memory", edited.id), ("memory", later.id)]  # fmt: skip
    for n in range(1, len(order) + 1):
        assert eng.run_indexer(limit=1).embedded == 1
        with runtime_of(eng).read() as s:
            held = {k: rows.ledger_ids(s, EMB.name, k) for k in ("memory", "tape")}
        assert [key for key in order if key[1] in held[key[0]]] == order[:n]
