"""The host is the one writer of the vector index: its job embeds what agents write, and
the CLI's `index` commands run there through the host."""

from __future__ import annotations

import threading
from pathlib import Path

from app import Engine
from app.engine import runtime_of
from app.host.background import register_default_jobs
from app.host.connect import open_home, own_home
from app.host.server import Host
from app.index import IndexStatus
from app.index.embedders import HashingEmbedder
from app.index.service import RETRIEVAL


def test_host_job_embeds_new_rows_and_remote_calls_see_them(home: Path) -> None:
    Engine.open(home, create=True).close()
    engine, lock = own_home(home, embedder=HashingEmbedder(dim=64))
    host = Host(engine, lock, port=0)
    assert "indexer" in register_default_jobs(host)
    host.start()
    try:
        opened = open_home(home)
        try:
            remote = opened.engine
            assert opened.remote
            remote.add_agent("a")
            remote.remember("a", "用户喜欢喝绿茶", "preference")
            remote.append("a", [{"thread": "t", "kind": "message", "role": "user", "text": "hi"}])
            wait = threading.Event()
            for _ in range(400):
                status = remote.index_status()
                if status.unembedded_total == 0 and status.indexed["memory"] == 1:
                    break
                wait.wait(0.05)
            assert isinstance(status, IndexStatus)
            assert status.indexed == {"memory": 1, "tape": 1} and status.unembedded_total == 0
            hits = remote.search("a", "喝绿茶", mode="semantic").hits
            assert [h.text for h in hits] == ["用户喜欢喝绿茶"]
            assert remote.run_indexer().remaining == 0  # `tapemind index run` via the host
        finally:
            opened.close()
    finally:
        host.stop()
        engine.close()


class CountingEmbedder(HashingEmbedder):
    """The hashing model, counting the queries it embeds."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.queries: list[str] = []

    def embed_query(self, text: str):  # type: ignore[no-untyped-def]
        self.queries.append(text)
        return super().embed_query(text)


def test_the_host_loads_the_model_and_opens_the_index_before_the_first_query(home: Path) -> None:
    first = Engine.open(home, create=True, embedder=HashingEmbedder(dim=64))
    first.add_agent("a")
    first.remember("a", "The user drinks green tea 用户喜欢喝绿茶", "preference")
    first.run_indexer()
    first.close()
    model = CountingEmbedder()
    engine, lock = own_home(home, embedder=model)
    retrieval = runtime_of(engine).services.get(RETRIEVAL)
    host = Host(engine, lock, port=0)
    assert "warm-up" in register_default_jobs(host)
    assert not retrieval.opened and model.queries == []
    host.start()
    try:
        wait = threading.Event()
        for _ in range(400):
            job = next(j for j in host.jobs.status() if j.name == "warm-up")
            if job.runs:
                break
            wait.wait(0.05)
        assert job.runs == 1 and job.last_error is None
        assert retrieval.opened and model.queries == ["warm-up"]
    finally:
        host.stop()
        engine.close()


def test_warm_up_leaves_a_home_without_an_index_alone(engine: Engine) -> None:
    assert engine.warm_up() is False
    assert not runtime_of(engine).services.get(RETRIEVAL).opened
