"""Several hosts on one PostgreSQL database: writers from every host follow one another
(sequence numbers stay gap-free, nothing acknowledged is lost), and each background
job's round runs on one host only."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from app import Engine
from app.clock import ManualClock
from app.engine import runtime_of
from app.index.service import of as retrieval_of


def _homes(pg_url: str, tmp_path: Path, n: int) -> list[Path]:
    homes = [tmp_path / f"host{i}" for i in range(n)]
    for home in homes:
        Engine.open(home, create=True, database_url=pg_url).close()
    return homes


def test_writers_on_three_hosts_leave_one_gap_free_tape_per_agent(
    pg_url: str, tmp_path: Path
) -> None:
    homes = _homes(pg_url, tmp_path, 3)
    engines = [Engine.open(h) for h in homes]
    try:
        engines[0].add_agent("cc")
        engines[0].add_agent("bob")
        acknowledged: list[int] = []
        failures: list[BaseException] = []
        lock = threading.Lock()

        def write(engine: Engine, host: int, agent: str) -> None:
            try:
                for n in range(15):
                    text = f"host {host} turn {n} 第{n}轮"
                    ids = engine.append(
                        agent, [{"thread": f"h{host}", "role": "user", "text": text}]
                    ).ids
                    with lock:
                        acknowledged.extend(ids)
            except BaseException as exc:  # the test reports it, not the thread
                failures.append(exc)

        threads = [
            threading.Thread(target=write, args=(e, i, agent))
            for i, e in enumerate(engines)
            for agent in ("cc", "bob")
            for _ in range(2)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert failures == []
        for agent in ("cc", "bob"):
            entries = engines[2].tape(agent, limit=1000)
            seqs = sorted(e.seq for e in entries)
            assert seqs == list(range(1, 91)), agent  # 3 hosts x 2 writers x 15, no gap
        assert len(acknowledged) == 180
        everything = {e.id for a in ("cc", "bob") for e in engines[1].tape(a, limit=1000)}
        assert set(acknowledged) == everything
    finally:
        for e in engines:
            e.close()


def test_a_round_of_a_background_job_runs_on_one_host(pg_url: str, tmp_path: Path) -> None:
    homes = _homes(pg_url, tmp_path, 2)
    now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    later = ManualClock(now)
    first = Engine.open(homes[0], clock=ManualClock(now))
    second = Engine.open(homes[1], clock=later)
    try:
        assert first.claim_round("maintenance", 3600) is True
        assert second.claim_round("maintenance", 3600) is False  # the first has it
        assert second.claim_round("health-snapshots", 3600) is True  # another job
        later.advance(seconds=3600)
        assert second.claim_round("maintenance", 3600) is True  # the next period's
    finally:
        first.close()
        second.close()


def _until_a_lock_is_waited_for(url: str) -> None:
    from sqlalchemy import text

    from app.db import postgres

    engine = postgres.engine_for(url)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with engine.connect() as conn:
                waiting = conn.execute(
                    text(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                    )
                ).scalar_one()
            if waiting:
                return
            time.sleep(0.05)
        raise AssertionError("nothing waited for the index job's lock")
    finally:
        engine.dispose()


def test_one_host_indexes_while_the_others_skip_and_a_command_waits_its_turn(
    pg_url: str, tmp_path: Path
) -> None:
    first, second = (Engine.open(h) for h in _homes(pg_url, tmp_path, 2))
    try:
        first.add_agent("cc")
        first.append("cc", [{"thread": "t", "role": "user", "text": "The user drinks green tea."}])
        waited = threading.Event()
        with retrieval_of(runtime_of(first)).writing() as ours:
            assert ours
            skipped = second.run_indexer(background=True)
            assert skipped.elsewhere and skipped.embedded == 0 and skipped.remaining == 1

            def command() -> None:  # `tapemind index run` on the second machine
                second.run_indexer()
                waited.set()

            runner = threading.Thread(target=command)
            runner.start()
            _until_a_lock_is_waited_for(pg_url)  # the command waits for the first's run
            assert not waited.is_set() and second.index_status().unembedded_total == 1
        runner.join(120)
        assert waited.is_set()
        assert second.index_status().unembedded_total == 0
        hits = first.search("cc", "green tea", mode="semantic", scope="tape").hits
        assert hits and hits[0].text == "The user drinks green tea."
    finally:
        first.close()
        second.close()
