"""Tape entries on PostgreSQL: gap-free sequence numbers under concurrent writers."""

from __future__ import annotations

import random
import string
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, text

from app.db import postgres
from app.errors import NotFound
from tests.postgres.helpers import NOW, add_agent, prepared

WRITERS = 6
BATCHES = 8  # per writer


def test_concurrent_appends_of_two_agents_get_gap_free_sequences(pg: Engine, pg_url: str) -> None:
    with pg.begin() as conn:
        agents = [add_agent(conn, "ada"), add_agent(conn, "bob")]
    # Two hosts: each its own pool of connections to the one database, each agent written
    # from both.
    hosts = [pg, postgres.engine_for(pg_url)]
    start = threading.Barrier(WRITERS)

    def writer(n: int) -> list[list[int]]:
        agent, host = agents[n % 2], hosts[(n // 2) % 2]
        start.wait()  # every writer at once, so the row lock is contended
        batches = []
        for b in range(BATCHES):
            with host.begin() as conn:
                items = prepared([f"writer {n} batch {b} line {i}" for i in range(1 + b % 3)])
                batches.append([s for _, s in postgres.insert_entries(conn, agent, items, NOW)])
        return batches

    with ThreadPoolExecutor(WRITERS) as pool:
        results = list(pool.map(writer, range(WRITERS)))
    hosts[1].dispose()
    with pg.connect() as conn:
        for agent in agents:
            seqs = conn.execute(
                text("SELECT seq FROM tape_entries WHERE agent_id = :a ORDER BY seq"),
                {"a": agent},
            ).scalars()
            total = sum(
                len(batch) for n, r in enumerate(results) if agents[n % 2] == agent for batch in r
            )
            assert list(seqs) == list(range(1, total + 1))
            next_seq = conn.execute(
                text("SELECT next_seq FROM agents WHERE id = :a"), {"a": agent}
            ).scalar_one()
            assert next_seq == total + 1
    # A batch's entries are consecutive: another writer's batch never lands inside it.
    for batches in results:
        for seqs in batches:
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


def test_a_rolled_back_append_leaves_no_gap(pg: Engine) -> None:
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        postgres.insert_entries(conn, agent, prepared(["first"]), NOW)
    with pytest.raises(RuntimeError), pg.begin() as conn:
        postgres.insert_entries(conn, agent, prepared(["lost", "lost too"]), NOW)
        raise RuntimeError("the append fails after its rows were written")
    with pg.begin() as conn:
        [(_, seq)] = postgres.insert_entries(conn, agent, prepared(["second"]), NOW)
    assert seq == 2


def test_entries_keep_their_order_and_text(pg: Engine) -> None:
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        ids = postgres.insert_entries(conn, agent, prepared(["one", "two", "three"]), NOW)
        rows = conn.execute(
            text('SELECT id, seq, content, "user" FROM tape_entries ORDER BY seq')
        ).all()
    assert [(i, s) for i, s, _, _ in rows] == ids
    assert [c for _, _, c, _ in rows] == ["one", "two", "three"]
    assert {u for *_, u in rows} == {None}


def test_an_unknown_agent_is_refused(pg: Engine) -> None:
    with pytest.raises(NotFound), pg.begin() as conn:
        postgres.reserve(conn, 404, 1)


def test_a_job_runs_in_one_transaction_at_a_time(pg: Engine) -> None:
    with pg.connect() as first, pg.connect() as second:
        with first.begin():
            assert postgres.try_job(first, "maintenance")
            with second.begin():
                assert not postgres.try_job(second, "maintenance")
                assert postgres.try_job(second, "health")
        with second.begin():  # the holder committed: the lock went with its transaction
            assert postgres.try_job(second, "maintenance")


def test_a_text_of_many_long_distinct_words_is_stored_and_found(pg: Engine) -> None:
    # 20,000 distinct 64-letter words: more lexeme bytes than a tsvector may hold.
    rng = random.Random(1)
    words = ["".join(rng.choices(string.ascii_lowercase, k=64)) for _ in range(20_000)]
    with pg.begin() as conn:
        agent = add_agent(conn, "ada")
        [(entry, _)] = postgres.insert_entries(conn, agent, prepared([" ".join(words)]), NOW)
    with pg.connect() as conn:
        assert [i for i, _ in postgres.search(conn, "tape_entries", agent, words[0])] == [entry]
        assert postgres.search(conn, "tape_entries", agent, words[-1]) == []  # past the cap
