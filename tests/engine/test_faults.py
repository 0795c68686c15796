"""Faults: kill -9 during big appends, and two processes appending to one agent at once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import event

from app import Engine
from app.clock import ManualClock
from app.db import home as homes
from app.db import store as store_module
from app.engine import runtime_of
from app.errors import DiskFull, WriteBusy

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

ROOT = Path(__file__).resolve().parents[2]


def _worker(home: Path, *args: str, pad: int = 200) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.engine.fault_worker", str(home), *map(str, args)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "FAULT_WORKER_PAD": str(pad)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def cc_home(home: Path, clock: ManualClock) -> Path:
    with Engine.open(home, create=True, clock=clock) as engine:
        engine.add_agent("cc")
        engine.add_agent("dc")
        engine.append("dc", [{"thread": "t", "role": "user", "text": "dc keeps its entry"}])
    return home


def _check_consistent(home: Path) -> list[tuple[int, int, str]]:
    """integrity ok, seq gap-free per agent, derived rows agree; returns cc's (id, seq, thread)."""
    with sqlite3.connect(home / "tapemind.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        for agent_id, next_seq in db.execute("SELECT id, next_seq FROM agents").fetchall():
            seqs = [
                r[0]
                for r in db.execute(
                    "SELECT seq FROM tape_entries WHERE agent_id = ? ORDER BY seq", (agent_id,)
                )
            ]
            assert seqs == list(range(1, len(seqs) + 1))
            assert next_seq == len(seqs) + 1
        entries = db.execute("SELECT count(*) FROM tape_entries").fetchone()[0]
        assert db.execute("SELECT count(*) FROM tape_fts").fetchone()[0] == entries
        rows = db.execute(
            "SELECT e.id, e.seq, e.thread FROM tape_entries e JOIN agents a ON a.id = e.agent_id "
            "WHERE a.name = 'cc' ORDER BY e.seq"
        ).fetchall()
    return rows


def _kill_when(proc: subprocess.Popen[str], ready: callable, timeout: float = 300) -> None:  # type: ignore[valid-type]
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the worker never got going"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def test_kill_9_during_one_huge_batch_leaves_nothing_of_it(
    cc_home: Path, clock: ManualClock
) -> None:
    wal = cc_home / "tapemind.db-wal"
    # 50k long entries: as many bytes as 200k short ones, a quarter of the entries to
    # prepare before the transaction starts writing.
    proc = _worker(cc_home, "cc", "batches", 50_000, 50_000, pad=1000)
    # Kill once the transaction has spilled pages to the WAL: it is mid-write.
    _kill_when(proc, lambda: wal.exists() and wal.stat().st_size > 4_000_000)
    assert _check_consistent(cc_home) == []
    with Engine.open(cc_home, clock=clock) as engine:
        assert engine.tape("cc") == []
        assert engine.append("cc", [{"thread": "t", "role": "user", "text": "after"}]).ids
        assert [e.seq for e in engine.tape("cc")] == [1]
        assert [e.text for e in engine.tape("dc")] == ["dc keeps its entry"]
        assert [a.action for a in engine.audit(agent="cc", action="tape.append")] == ["tape.append"]


def test_kill_9_between_and_during_batches_keeps_every_committed_batch(
    cc_home: Path, clock: ManualClock
) -> None:
    batch = 2_000
    proc = _worker(cc_home, "cc", "batches", 200_000, batch)
    assert proc.stdout is not None
    committed = 0

    def enough() -> bool:
        nonlocal committed
        line = proc.stdout.readline()  # type: ignore[union-attr]
        if line.startswith("committed"):
            committed = int(line.split()[1])
        return committed >= 5 * batch

    _kill_when(proc, enough)
    rows = _check_consistent(cc_home)
    assert len(rows) >= committed  # every batch reported committed is there
    assert len(rows) % batch == 0  # and no partial batch
    threads = [r[2] for r in rows]
    for start in range(0, len(rows), batch):
        assert set(threads[start : start + batch]) == {f"b{start}"}
    ids = [r[0] for r in rows]
    assert ids == list(range(ids[0], ids[0] + len(ids)))
    with Engine.open(cc_home, clock=clock) as engine:
        (new_id,) = engine.append("cc", [{"thread": "t", "role": "user", "text": "after"}]).ids
        assert engine.entry(new_id).seq == len(rows) + 1
        audited = engine.audit(agent="cc", action="tape.append", limit=10_000)
        assert sum(a.counts["entries"] for a in audited) == len(rows) + 1


def test_two_processes_appending_to_one_agent_lose_nothing(cc_home: Path) -> None:
    per_process = 2_000
    procs = [_worker(cc_home, "cc", "single", per_process) for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        assert out.split() == ["ready", "done"]
    rows = _check_consistent(cc_home)
    assert len(rows) == 2 * per_process
    assert [r[1] for r in rows] == list(range(1, 2 * per_process + 1))
    with sqlite3.connect(cc_home / "tapemind.db") as db:
        texts = [
            r[0]
            for r in db.execute(
                "SELECT content FROM tape_entries e JOIN agents a ON a.id = e.agent_id "
                "WHERE a.name = 'cc'"
            )
        ]
    by_pid: dict[str, list[int]] = {}
    for t in texts:
        pid, i = t.split(":")
        by_pid.setdefault(pid, []).append(int(i))
    assert len(by_pid) == 2
    for numbers in by_pid.values():  # each process's appends all landed, in its own order
        assert numbers == list(range(per_process))


def test_a_full_disk_refuses_the_write_and_keeps_everything_acknowledged(
    cc_home: Path, clock: ManualClock
) -> None:
    """SQLite's page limit stands in for the disk: the database cannot grow past it, which
    is what SQLite reports (SQLITE_FULL) when the disk is full."""
    with Engine.open(cc_home, clock=clock) as engine:
        store = runtime_of(engine).store
        with store.engine.connect() as conn:
            pages = conn.exec_driver_sql("PRAGMA page_count").scalar()

        def cap(dbapi_conn: sqlite3.Connection, _record: object) -> None:
            dbapi_conn.execute(f"PRAGMA max_page_count={pages + 40}")

        event.listen(store.engine, "connect", cap)
        store.engine.dispose()
        acknowledged: list[str] = []
        with pytest.raises(DiskFull, match="is full: this change was not written") as refused:
            for i in range(1000):
                text = f"entry {i} " + "满" * 3000
                engine.append("cc", [{"thread": "t", "role": "user", "text": text}])
                acknowledged.append(text)
        assert refused.value.code == "disk_full" and acknowledged
        with pytest.raises(DiskFull):  # still full: refused again, nothing half-written
            engine.append("cc", [{"thread": "t", "role": "user", "text": "满" * 20000}])

        event.remove(store.engine, "connect", cap)
        store.engine.dispose()  # space freed: writing works again in the same process
        engine.append("cc", [{"thread": "t", "role": "user", "text": "after space was freed"}])

    rows = _check_consistent(cc_home)
    with Engine.open(cc_home, clock=clock) as engine:
        texts = [e.text for e in engine.tape("cc", limit=2000)]
        assert texts == [*acknowledged, "after space was freed"] and len(rows) == len(texts)


def test_a_write_that_waits_too_long_for_the_lock_is_refused_and_loses_nothing(
    home: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer holding the database past the busy timeout (a stuck process) gets
    a clear refusal, not a raw SQLite error that reads as a bug; nothing is half-written."""
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.2)
    with Engine.open(home, create=True, clock=clock) as engine:
        engine.add_agent("cc")
        engine.append("cc", [{"thread": "t", "role": "user", "text": "写在锁之前"}])
        holder = sqlite3.connect(homes.db_path(home), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another writer, stuck mid-transaction
        try:
            with pytest.raises(WriteBusy, match="stayed locked by another writer") as refused:
                engine.append("cc", [{"thread": "t", "role": "user", "text": "lost?"}])
            assert refused.value.code == "write_busy" and "lost?" not in str(refused.value)
            with pytest.raises(WriteBusy):  # context stores its recall record: refused too
                engine.context("cc", query="锁")
        finally:
            holder.rollback()
            holder.close()
        engine.append("cc", [{"thread": "t", "role": "user", "text": "after the lock"}])
        assert [e.text for e in engine.tape("cc")] == ["写在锁之前", "after the lock"]
        assert engine.recalls("cc") == []
