"""A vector store that stops answering or dies mid-upsert: readers and the host never wait
for it, the indexer drops it, backs off and retries with a fresh one, and a host stops on
SIGTERM whatever the store is doing."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app import Engine
from app.clock import ManualClock
from app.engine import runtime_of
from app.index import RETRIEVAL, indexer_loop, recovery, store, vector_process
from app.index.embedders import HashingEmbedder

from .conftest import assert_clean_check, cli, data_of, ok, serve, store_pids, wait_for

pytestmark = pytest.mark.heavy  # subprocesses, a tmpfs, real chromadb

EMB = HashingEmbedder(dim=64)


@pytest.fixture
def impatient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seconds instead of minutes, so a test sees every step of a recovery."""
    monkeypatch.setattr(store, "QUERY_PATIENCE_S", 1.0)
    monkeypatch.setattr(store, "QUERY_LIMIT_S", 3.0)
    monkeypatch.setattr(store, "WRITE_LIMIT_S", 3.0)
    monkeypatch.setattr(vector_process, "RESTART_MAX_S", 1.0)
    monkeypatch.setattr(recovery, "BACKOFF_MAX_S", 1.0)


def _rows(start: int, n: int) -> list[dict[str, str]]:
    return [
        {"thread": f"t{i % 4}", "role": "user", "text": f"green tea note {i} 绿茶 第{i}条"}
        for i in range(start, start + n)
    ]


@pytest.fixture
def indexed(home: Path, clock: ManualClock) -> Iterator[Engine]:
    with Engine.open(home, create=True, clock=clock, embedder=EMB) as eng:
        eng.add_agent("a")
        eng.append("a", _rows(0, 100))
        eng.run_indexer()
        yield eng


def _service(eng: Engine) -> Any:
    service = runtime_of(eng).services.get(RETRIEVAL)
    assert service is not None
    return service


def _background(eng: Engine) -> tuple[threading.Event, threading.Thread]:
    stop = threading.Event()
    thread = threading.Thread(
        target=indexer_loop, args=(eng, stop), kwargs={"interval_s": 0.2}, daemon=True
    )
    thread.start()
    return stop, thread


def _answers(call: Any) -> Any:
    """`call()` on another thread: its result, which must come (the test fails if the
    call is still waiting a minute later)."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the call waited for the stuck store"
    return out[0]


def test_a_store_that_stops_answering_mid_upsert_blocks_no_reader(
    indexed: Engine, home: Path, impatient: None
) -> None:
    eng, service = indexed, _service(indexed)
    stuck = service.vectors.process.pid
    assert stuck is not None
    stop, thread = _background(eng)
    try:
        os.kill(stuck, signal.SIGSTOP)  # what a store stuck on a lock looks like
        eng.append("a", _rows(100, 50))  # wakes the indexer: its upsert waits on the store
        result = _answers(lambda: eng.search("a", "green tea note 120", scope="tape"))
        assert "green tea note 120 绿茶 第120条" in [h.text for h in result.hits]  # full-text
        status = wait_for(lambda: (st := eng.index_status()).stalled and st)
        assert status.stalled.because == "not_answering"
        assert "向量库没有响应" in status.stalled.message("zh")
        # The stuck store was stopped and a fresh one took over: the queue drains.
        wait_for(lambda: (st := eng.index_status()).unembedded_total == 0 and not st.stalled)
        assert service.vectors.process.pid not in (None, stuck)
        assert not Path(f"/proc/{stuck}").exists() or _zombie(stuck)
    finally:
        stop.set()
        thread.join(30)
    before = data_of(home)
    report = eng.check_index()
    assert report.clean and report.kinds["tape"].vectors == 150, report.summary()
    assert data_of(home) == before


def _zombie(pid: int) -> bool:
    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


def test_sigkill_of_the_store_mid_upsert_loses_nothing(
    indexed: Engine, home: Path, impatient: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    eng, service = indexed, _service(indexed)
    upsert = store.RemoteIndex.upsert
    calls = {"n": 0}

    def kill_during(self: Any, *args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        pid = service.vectors.process.pid
        if calls["n"] in (2, 5) and pid is not None:
            # 5 ms after the chunk is sent: the store is inside chromadb's upsert.
            threading.Timer(0.005, os.kill, (pid, signal.SIGKILL)).start()
        upsert(self, *args, **kwargs)

    monkeypatch.setattr(store.RemoteIndex, "upsert", kill_during)
    monkeypatch.setattr("app.index.indexer.CHUNK", 32)
    eng.append("a", _rows(100, 300))
    stop, thread = _background(eng)
    try:
        wait_for(lambda: (st := eng.index_status()).unembedded_total == 0 and not st.stalled)
    finally:
        stop.set()
        thread.join(30)
    assert calls["n"] >= 5 and service.vectors.process.started >= 3
    report = eng.check_index()
    assert report.clean and report.kinds["tape"].vectors == 400, report.summary()


def test_the_host_stops_on_sigterm_while_its_store_is_stuck(home: Path) -> None:
    ok(cli(home, "init"))
    ok(cli(home, "agent", "add", "cc"))
    ok(cli(home, "tape", "append", "--agent", "cc", "--thread", "t", "--role", "user",
           "--text", "The user drinks green tea every morning"))  # fmt: skip
    ok(cli(home, "index", "run"))
    host = serve(home, query_patience_s=1.0)
    try:
        [stuck] = wait_for(lambda: store_pids(host.pid), timeout=180)
        os.kill(stuck, signal.SIGSTOP)
        ok(cli(home, "tape", "append", "--agent", "cc", "--thread", "t", "--role", "user",
               "--text", "用户每天早上喝绿茶"))  # fmt: skip
        assert "unembedded" in ok(cli(home, "index", "status"))  # through the host
        found = ok(cli(home, "search", "--agent", "cc", "--scope", "tape", "green tea"))
        assert "green tea every morning" in found
        before = data_of(home)
        host.send_signal(signal.SIGTERM)
        assert host.wait(timeout=60) == 0  # it never stopped before: the GIL was the store's
        assert not Path(f"/proc/{stuck}").exists() or _zombie(stuck)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(30)
    assert "0 still queued" in ok(cli(home, "index", "run"))  # the home is free again
    assert_clean_check(home)
    assert data_of(home) == before
