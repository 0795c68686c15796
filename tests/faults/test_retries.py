"""Retried writes are safe: an append or remember whose answer was lost (the host committed
and the answer never came) is sent again, and the keys make the second send return the
first's result instead of writing twice; through the engine, the CLI, the host and MCP."""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from app import Engine
from app.clock import ManualClock
from app.host.connect import own_home
from app.host.lock import OWNER_TOKEN_FILE
from app.host.remote import RemoteEngine
from app.host.server import Host
from tests.mcp.mcp_helpers import data, http_client

from .conftest import cli, ok

pytestmark = pytest.mark.heavy  # subprocesses, a tmpfs, real chromadb


def _count(home: Path, table: str) -> int:
    conn = sqlite3.connect(f"file:{home / 'tapemind.db'}?mode=ro", uri=True)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def test_the_engine_answers_a_retry_with_the_first_calls_result(engine: Engine, home: Path) -> None:
    engine.add_agent("a")
    entries = [
        {"thread": "t", "role": "user", "text": "用户喜欢喝绿茶", "source_key": "m-1"},
        {"thread": "t", "role": "assistant", "text": "Noted: green tea.", "source_key": "m-2"},
    ]
    first = engine.append("a", entries)
    again = engine.append("a", entries)
    assert again.ids == () and again.existing == first.ids and again.skipped == 2
    made = engine.remember("a", "The user drinks green tea", "preference", key="turn-7/1")
    retried = engine.remember("a", "The user drinks green tea", "preference", key="turn-7/1")
    assert made.decision == retried.decision == "add"  # not "duplicate": the same call
    assert retried.memory is not None and made.memory is not None
    assert retried.memory.id == made.memory.id and retried.source_ids == made.source_ids
    assert _count(home, "memories") == 1 and _count(home, "decisions") == 1
    assert _count(home, "tape_entries") == 3  # two entries and the remember call's event
    other = engine.remember("a", "The user drinks green tea", "preference", key="turn-8/1")
    assert other.decision == "duplicate"  # another call with the same text


class _LosesFirstAnswer:
    """The host's engine, but the first call to `method` commits and then takes longer
    than the client waits: the answer is lost, as when a host dies right after a commit."""

    def __init__(self, engine: Engine, method: str) -> None:
        self._engine = engine
        self._method = method
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        real = getattr(self._engine, name)
        if name != self._method:
            return real

        def once(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            result = real(*args, **kwargs)
            if self.calls == 1:
                time.sleep(3.0)  # committed; the client gave up after 1 s
            return result

        return once


@pytest.mark.parametrize("method", ["append", "remember"])
def test_a_lost_answer_through_the_host_is_sent_again_and_stored_once(
    home: Path, clock: ManualClock, method: str
) -> None:
    Engine.open(home, create=True, clock=clock).close()
    engine, lock = own_home(home, clock=clock)
    engine.add_agent("a")
    host = Host(engine, lock, port=0)
    slow = _LosesFirstAnswer(engine, method)
    host.engine = slow  # type: ignore[assignment]
    host.start()
    try:
        token = (home / OWNER_TOKEN_FILE).read_text(encoding="utf-8").strip()
        remote = RemoteEngine(host.url, token, timeout=1.0)
        try:
            if method == "append":
                entries = [
                    {"thread": "t", "role": "user", "text": f"第{i}条 entry", "source_key": f"k{i}"}
                    for i in range(3)
                ]
                result = remote.append("a", entries)
                assert result.ids == () and len(result.existing) == 3  # the first call's ids
                assert _count(home, "tape_entries") == 3
            else:
                result = remote.remember("a", "The user moved to Hangzhou", "preference", key="r1")
                assert result.decision == "add" and result.memory is not None
                assert _count(home, "memories") == 1 and _count(home, "decisions") == 1
            assert slow.calls == 2
        finally:
            remote.close()
    finally:
        host.stop()
        engine.close()


def test_unkeyed_calls_are_not_sent_again(home: Path, clock: ManualClock) -> None:
    Engine.open(home, create=True, clock=clock).close()
    engine, lock = own_home(home, clock=clock)
    engine.add_agent("a")
    host = Host(engine, lock, port=0)
    slow = _LosesFirstAnswer(engine, "append")
    host.engine = slow  # type: ignore[assignment]
    host.start()
    try:
        token = (home / OWNER_TOKEN_FILE).read_text(encoding="utf-8").strip()
        with (
            RemoteEngine(host.url, token, timeout=1.0) as remote,
            pytest.raises(Exception, match="stopped answering"),
        ):
            remote.append("a", [{"thread": "t", "role": "user", "text": "no key"}])
        assert slow.calls == 1  # a second send could have stored it twice
    finally:
        host.stop()
        engine.close()


def _ids(said: str) -> list[str]:
    """The entry ids in what `tape append` printed."""
    return re.findall(r"\d+", said)


def test_the_cli_gives_each_call_a_key_and_takes_the_owners(home: Path) -> None:
    ok(cli(home, "init"))
    ok(cli(home, "agent", "add", "cc"))
    args = ("tape", "append", "--agent", "cc", "--thread", "t", "--role", "user", "--text", "hi")
    first = _ids(ok(cli(home, *args, "--key", "msg-1")))
    again = ok(cli(home, *args, "--key", "msg-1"))
    assert _ids(again) == first and "already on the tape" in again  # the same entry's id
    assert _ids(ok(cli(home, *args))) != first  # a new call without a key: a new entry
    remember = ("remember", "--agent", "cc", "--category", "preference", "用户喜欢喝绿茶")
    made = ok(cli(home, *remember, "--key", "r-1"))
    assert ok(cli(home, *remember, "--key", "r-1")) == made
    assert _count(home, "tape_entries") == 3 and _count(home, "decisions") == 1


def test_an_agent_retries_over_mcp_with_its_keys(home: Path) -> None:
    from tests.mcp.mcp_helpers import start_serve, stop

    with Engine.open(home, create=True) as engine:
        engine.add_agent("A")
        token = engine.agent_token("A").token
    proc, url = start_serve(home)
    try:

        async def session() -> tuple[Any, ...]:
            async with http_client(url, token) as client:
                entry = {"thread": "t", "role": "user", "text": "我住在杭州", "key": "msg-9"}
                first = data(await client.call_tool("append", {"entries": [entry]}))
                again = data(await client.call_tool("append", {"entries": [entry]}))
                args = {"text": "The user lives in Hangzhou", "category": "preference",
                        "sources": first["ids"], "key": "turn-9"}  # fmt: skip
                made = data(await client.call_tool("remember", args))
                retried = data(await client.call_tool("remember", args))
                return first, again, made, retried

        first, again, made, retried = anyio.run(session)
        assert again["ids"] == [] and again["existing"] == first["ids"]
        assert retried == made and made["decision"] == "add"
    finally:
        stop(proc)
    assert _count(home, "tape_entries") == 1 and _count(home, "memories") == 1


def test_two_retries_racing_store_once(engine: Engine, home: Path) -> None:
    engine.add_agent("a")
    results: list[Any] = []

    def call() -> None:
        results.append(engine.remember("a", "The user likes 龙井 tea", "preference", key="same"))

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len({r.memory.id for r in results}) == 1 and {r.decision for r in results} == {"add"}
    assert _count(home, "memories") == 1 and _count(home, "decisions") == 1
