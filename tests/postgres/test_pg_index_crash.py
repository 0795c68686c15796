"""kill -9 of the indexer on a home on PostgreSQL: a chunk's vectors and its ledger rows
commit together, so a kill leaves no vector the ledger does not know (nothing for a
reconcile to delete), and the next run embeds the rest, each row once."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from app import Engine
from app.clock import ManualClock
from app.engine import runtime_of
from tests.engine.index_helpers import EMB, live_ids

pytestmark = pytest.mark.heavy  # a subprocess

ROOT = Path(__file__).resolve().parents[2]


def _held(engine: Engine, table: str, kind: str) -> list[int]:
    with runtime_of(engine).store.engine.connect() as conn:
        rows = conn.execute(
            text(f"SELECT item_id FROM {table} WHERE model = :m AND kind = :k ORDER BY item_id"),
            {"m": EMB.name, "k": kind},
        )
        return [int(r[0]) for r in rows]


def test_a_kill_mid_drain_leaves_no_vector_outside_the_ledger(
    pg_url: str, tmp_path: Path, clock: ManualClock
) -> None:
    home = tmp_path / "home"
    with Engine.open(home, create=True, database_url=pg_url, clock=clock, embedder=EMB) as eng:
        eng.add_agent("a")
        said = [f"消息 {i} about topic {i}" for i in range(40)]
        eng.append("a", [{"thread": "t", "role": "user", "text": t} for t in said])
        for i in range(20):
            eng.remember("a", f"Fact number {i}: 项目 {i} uses port {8000 + i}", "project_fact")

    # Killed on its third ledger commit, 8 rows a chunk (tests/engine/index_worker.py).
    worker = subprocess.run(
        [sys.executable, "-m", "tests.engine.index_worker", str(home), "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert worker.returncode == -signal.SIGKILL, worker.stderr[-2000:]

    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        for kind in ("memory", "tape"):
            assert _held(eng, "vectors", kind) == _held(eng, "index_rows", kind)
        settled = sum(len(_held(eng, "index_rows", kind)) for kind in ("memory", "tape"))
        assert settled == 16  # the two chunks committed before the kill

        stats = eng.run_indexer()
        assert stats.remaining == 0
        for kind in ("memory", "tape"):
            assert _held(eng, "vectors", kind) == live_ids(eng, kind)
        assert eng.index_status().unembedded_total == 0
