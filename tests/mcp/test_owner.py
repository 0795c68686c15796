"""One owner per home: a second owner is refused by name; others go through the host."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from app import Engine
from app.errors import HomeBusy, NotFound
from app.host.connect import open_home, own_home
from app.host.lock import HomeLock
from app.host.remote import RemoteEngine

from .mcp_helpers import cli, cli_json, start_serve, stop


def test_a_second_owner_is_refused_naming_the_host(two_agents: Path) -> None:
    home = two_agents
    proc, url = start_serve(home)
    try:
        note = json.loads((home / ".lock").read_text())
        second = cli(home, "serve", "--port", "0", check=False)
        assert second.returncode != 0
        for detail in (f"pid {proc.pid}", "serve", note["since"], url):
            assert detail in second.stderr
        # The desktop app (an in-process owner) is refused the same way, at once.
        with pytest.raises(HomeBusy, match=f"pid {proc.pid}"):
            own_home(home)
        # Everyone else goes through the host: the CLI and the Python API alike.
        opened = open_home(home)
        try:
            assert isinstance(opened.engine, RemoteEngine) and opened.engine.host_pid == proc.pid
            assert [a.name for a in opened.engine.agents()] == ["A", "B"]
        finally:
            opened.close()
        assert [a["name"] for a in cli_json(home, "agent", "list")] == ["A", "B"]
    finally:
        stop(proc)
    # Once the host has gone, the home can be owned again.
    engine, lock = own_home(home)
    try:
        assert engine.agents()
    finally:
        lock.release()
        engine.close()


def test_the_cli_waits_for_a_short_lived_holder_then_runs(two_agents: Path) -> None:
    holder = HomeLock(two_agents, "cli")
    assert holder.try_acquire()
    released = threading.Timer(1.0, holder.release)
    released.start()
    try:
        # Another command holds the home for a second: this one waits, then runs itself.
        assert [a["name"] for a in cli_json(two_agents, "agent", "list")] == ["A", "B"]
        assert not holder.held
    finally:
        released.cancel()
        holder.release()


def test_a_holder_that_stays_is_named_after_the_wait(two_agents: Path) -> None:
    holder = HomeLock(two_agents, "cli")
    assert holder.try_acquire()
    try:
        started = time.monotonic()
        with pytest.raises(HomeBusy) as caught:
            open_home(two_agents, wait_s=0.3)
        assert time.monotonic() - started >= 0.3
        message = str(caught.value)
        assert f"pid {holder.info['pid']}" in message and "tapemind serve" in message
    finally:
        holder.release()
    assert open_home(two_agents).lock is not None


def test_the_cli_takes_and_releases_the_lock_when_no_host_runs(two_agents: Path) -> None:
    cli(
        two_agents,
        "tape",
        "append",
        "--agent",
        "A",
        "--thread",
        "t",
        "--role",
        "user",
        "--text",
        "hello",
    )
    lock = HomeLock(two_agents, "test")
    assert lock.try_acquire(), "the command released the home when it finished"
    lock.release()


def test_a_remote_engine_returns_the_same_values_as_the_engine(two_agents: Path) -> None:
    with Engine.open(two_agents) as engine:
        ids = engine.append(
            "A", [{"thread": "t", "turn": "1", "role": "user", "text": "用 tab 缩进"}]
        ).ids
        made = engine.remember("A", "用户喜欢用 tab 缩进", "preference", sources=ids)
        assert made.memory is not None
        local = (engine.memory(made.memory.id), engine.tape("A"), engine.agent("A"))
    proc, _url = start_serve(two_agents)
    try:
        opened = open_home(two_agents)
        try:
            remote = opened.engine
            assert (remote.memory(made.memory.id), remote.tape("A"), remote.agent("A")) == local
            assert remote.count_memories("A") == 1
            block = remote.context("A", query="缩进")
            assert block.included[0].memory_id == made.memory.id
            with pytest.raises(Exception, match="No agent named 'Z'"):
                remote.tape("Z")
            # An error keeps what an agent reads over MCP (tools, not commands) too.
            with pytest.raises(NotFound) as missing:
                remote.memory(999_999, agent="A")
            assert "tapemind memory list" in missing.value.message
            assert "`search`" in missing.value.agent_message
        finally:
            opened.close()
    finally:
        stop(proc)


def test_serve_refused_by_an_agents_stdio_server_says_to_quit_that_client(
    two_agents: Path,
) -> None:
    # No host ran, so Claude Code's `tapemind mcp --agent A` owns the home. Someone who
    # now runs `tapemind serve` must learn what holds it and how to get the host going,
    # and `agent token` must not hand out the stdio server's passing port.
    import anyio

    from app.host.snippets import DEFAULT_PORT

    from .mcp_helpers import data, stdio_client

    async def session() -> tuple[str, str, int]:
        async with stdio_client(two_agents, "A") as client:
            data(await client.call_tool("context", {"query": "部署"}))
            holder = json.loads((two_agents / ".lock").read_text())
            assert holder["role"] == "mcp" and holder.get("url")
            refused = cli(two_agents, "serve", "--port", "0", check=False)
            token = cli(two_agents, "agent", "token", "A")
            return refused.stderr, token.stdout, int(holder["pid"])

    refused, token, pid = anyio.run(session)
    assert f"in use by mcp pid {pid}" in refused
    assert "Quit that client" in refused and f"end pid {pid}" in refused
    assert "or run `tapemind serve`" not in refused  # the advice it was given to follow
    assert f"http://127.0.0.1:{DEFAULT_PORT}/mcp" in token


def test_an_agent_told_the_home_is_busy_learns_to_wait_not_to_stop_anyone(
    two_agents: Path,
) -> None:
    # A long `tapemind import-history` holds the home with no host running: a stdio
    # server's call waits, then tells the model what it can do (wait, tell the user).
    import anyio
    from mcp import Client

    from app.mcp.server import build_server

    holder = HomeLock(two_agents, "cli")
    assert holder.try_acquire()
    try:
        server = build_server(
            lambda: open_home(two_agents, role="mcp", wait_s=0.2).engine, lambda ctx: "A"
        )

        async def call() -> str:
            async with Client(server) as client:
                result = await client.call_tool("context", {"query": "部署"})
                assert result.is_error
                return str(result.content[0].text)

        text = anyio.run(call)
    finally:
        holder.release()
    assert f"cli pid {holder.info['pid']}" in text
    assert "call again in a minute" in text and "tell the user" in text
    assert "stop that one" not in text  # the person's advice, not the model's
