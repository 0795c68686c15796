"""kill -9 of the indexer mid-drain, then a restart: reconciled, no duplicates, nothing missing."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import Engine
from app.clock import ManualClock
from app.engine import runtime_of
from app.index import rows

from .index_helpers import EMB, live_ids, vector_ids

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

ROOT = Path(__file__).resolve().parents[2]


def _fill(home: Path, clock: ManualClock, n: int) -> None:
    with Engine.open(home, create=True, clock=clock, embedder=EMB) as eng:
        eng.add_agent("a")
        eng.append(
            "a",
            [
                {
                    "thread": f"线程{i % 3}",
                    "kind": "message",
                    "role": "user",
                    "text": f"消息 {i} about topic {i}",
                }
                for i in range(n)
            ],
        )
        for i in range(n // 2):
            eng.remember("a", f"Fact number {i}: 项目 {i} uses port {8000 + i}", "project_fact")


def _worker(home: Path, kill_at: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.engine.index_worker", str(home), str(kill_at)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


def _assert_consistent(home: Path, clock: ManualClock) -> None:
    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        stats = eng.run_indexer()
        assert stats.reconciled == "deep" and stats.remaining == 0
        for kind in ("memory", "tape"):
            held = vector_ids(home, EMB.name, 64, kind)
            assert held == live_ids(eng, kind)  # each live row exactly once, nothing else
        st = eng.index_status()
        assert st.unembedded_total == 0
        assert st.indexed == {
            "memory": len(live_ids(eng, "memory")),
            "tape": len(live_ids(eng, "tape")),
        }


def test_kill_between_upsert_and_bookkeeping(home: Path, clock: ManualClock) -> None:
    _fill(home, clock, 40)
    proc = _worker(home, kill_at=3)
    proc.wait(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        st = eng.index_status()
        assert 0 < st.unembedded_total < 60  # two chunks settled before the kill
        # A memory of the chunk whose vectors were written but not recorded is forgotten
        # meanwhile: its queue row goes, its vector would be an orphan.
        queued = sorted(
            r[1] for r in runtime_of(eng).store.engine.connect().exec_driver_sql(
                "SELECT kind, item_id FROM embed_queue WHERE kind = 'memory' "
                "ORDER BY enqueued_at, item_id"
            )
        )  # fmt: skip
        if queued:
            eng.forget(queued[0])
    _assert_consistent(home, clock)


def test_sigkill_from_outside_mid_drain(home: Path, clock: ManualClock) -> None:
    _fill(home, clock, 120)
    proc = _worker(home, kill_at=0)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with Engine.open(home, clock=clock, embedder=EMB) as eng:
            if eng.index_status().indexed["tape"] + eng.index_status().indexed["memory"] >= 16:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        assert eng.index_status().unembedded_total > 0  # it really died mid-drain
    _assert_consistent(home, clock)


def test_kill_after_upsert_then_forget_a_memory_whose_vector_was_not_recorded(
    home: Path, clock: ManualClock
) -> None:
    """The killed chunk holds memories (queued first here): one of them, in chromadb but
    not in the ledger, is forgotten before the restart; its vector must not survive."""
    with Engine.open(home, create=True, clock=clock, embedder=EMB) as eng:
        eng.add_agent("a")
        for i in range(30):
            eng.remember("a", f"记忆 {i}: service {i} listens on port {9000 + i}", "project_fact")
        eng.append(
            "a",
            [{"thread": "t", "kind": "message", "role": "user", "text": f"消息 {i} message {i}"}
             for i in range(10)],
        )  # fmt: skip
    proc = _worker(home, kill_at=3)
    proc.wait(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        with runtime_of(eng).read() as s:
            recorded = rows.ledger_ids(s, EMB.name, "memory")
        written = set(vector_ids(home, EMB.name, 64, "memory"))
        orphans = sorted(written - recorded)
        assert orphans  # the third chunk's memories: written, not recorded
        eng.forget(orphans[0])
    _assert_consistent(home, clock)  # every live row once, the forgotten one gone
