"""The host is the one writer of the vector index: its job embeds what agents write, and
the CLI's `index` commands run there through the host."""

from __future__ import annotations

import threading
from pathlib import Path

from app import Engine
from app.embedders import HashingEmbedder
from app.host.background import register_default_jobs
from app.host.connect import open_home, own_home
from app.host.server import Host
from app.index import IndexStatus


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
