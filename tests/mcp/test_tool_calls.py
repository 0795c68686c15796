"""The host answers plain 2026-07-28 `tools/call` POSTs itself (app/host/tool_calls.py):
its answers must be the SDK's, byte for byte, and everything else must still reach the SDK."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from app import Engine
from app.host.connect import own_home
from app.host.server import Host
from bench.mcp.raw_client import VERSION

from .mcp_helpers import data, http_client

META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}
# What differs between two runs of the same call: the engine's time.
TIMINGS = re.compile(r'(engine_ms|latency_ms)(\\?"):\s?[0-9.e-]+')


@pytest.fixture
def host(home: Path, database_url: str | None) -> Iterator[tuple[Host, str, int]]:
    with Engine.open(home, create=True, database_url=database_url) as engine:
        engine.add_agent("A")
        engine.add_agent("B")
        token = engine.agent_token("A").token
        ids = engine.append("A", [{"thread": "项目", "role": "user", "text": "部署在周五"}]).ids
        memory = engine.remember("A", "项目的部署在每周五下午进行", "project_fact", sources=ids)
        engine.remember("B", "B's staging database is stg-1", "project_fact")
    engine, lock = own_home(home)
    served = Host(engine, lock, port=0)
    served.start()
    try:
        yield served, token, memory.memory.id
    finally:
        served.stop()
        engine.close()


def post(
    url: str, token: str, body: Any, *, name: str | None = None, **extra: str
) -> httpx.Response:
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": body.get("method", "") if isinstance(body, dict) else "",
        **({"Mcp-Name": name} if name else {}),
        **extra,
    }
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(f"{url}/mcp", content=content, headers=headers, timeout=30)


def call(request_id: Any, name: str, arguments: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments, "_meta": META}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def masked(answer: httpx.Response) -> str:
    return TIMINGS.sub(r"\1\2:0", answer.text)


def same_both_ways(served: Host, token: str, body: Any, status: int, **kw: Any) -> httpx.Response:
    """The host's own answer to `body`, after checking it is the SDK's, byte for byte
    (timings masked), with the expected status."""
    direct, sdk = both_ways(served, token, body, **kw)
    assert direct.status_code == sdk.status_code == status, (body, direct.text)
    assert direct.headers.get("content-type") == sdk.headers.get("content-type"), body
    assert masked(direct) == masked(sdk), body
    return direct


def both_ways(served: Host, token: str, body: Any, **kw: Any) -> tuple[httpx.Response, ...]:
    """The same request answered by the host's own path, then by the SDK's transport."""
    served.tool_calls.direct = True
    direct = post(served.url, token, body, **kw)
    served.tool_calls.direct = False
    try:
        sdk = post(served.url, token, body, **kw)
    finally:
        served.tool_calls.direct = True
    return direct, sdk


def test_the_hosts_answers_are_the_sdks_byte_for_byte(host: tuple[Host, str, int]) -> None:
    served, token, memory_id = host
    cases = [
        call(1, "memory", {"id": memory_id}),
        call("txt-7", "search", {"query": "部署", "scope": "all"}),
        call(3, "tape", {"thread": "项目"}),
        call(4, "search", {"query": "staging database"}),  # B's memory: A finds nothing
        call(5, "memory", {"id": memory_id, "agent": "B"}),  # identity is not an argument
        call(6, "search", {"query": 5}),  # wrong type: a tool error for the agent
        call(7, "no_such_tool", {}),
        call(8, "memory", {"id": 999_999}),  # unknown id: a tool error
    ]
    before = served.tool_calls.answered
    answers = [
        same_both_ways(served, token, body, 200, name=body["params"]["name"]) for body in cases
    ]
    assert served.tool_calls.answered - before == len(cases)
    # Agent A's answers never hold agent B's memory.
    assert "stg-1" not in answers[3].text


def test_a_context_call_answers_the_same_shape_as_the_sdks(host: tuple[Host, str, int]) -> None:
    served, token, memory_id = host
    body = call(1, "context", {"thread": "项目", "query": "部署时间"})
    direct, sdk = both_ways(served, token, body, name="context")
    ours, theirs = direct.json(), sdk.json()
    for answer in (ours, theirs):
        block = answer["result"]["structuredContent"]
        assert f"[m{memory_id}]" in block["text"] and "周五" in block["text"]
        block.pop("recall_id")
        answer["result"]["_meta"].pop("tapemind/engine_ms")
    assert ours == theirs


def test_everything_else_still_reaches_the_sdk(host: tuple[Host, str, int]) -> None:
    """Requests the host's path does not answer get the SDK's answers, errors included."""
    served, token, _ = host
    cases: list[tuple[Any, dict[str, str], int]] = [
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}, {}, 200),
        (b"{not json", {}, 400),
        ([call(1, "memory", {"id": 1})], {}, 400),  # a batch
        ({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}, {}, 202),
        (call(2, "memory", "not an object"), {}, 400),  # invalid params: the SDK's error
        (call(3, "memory", None) | {"params": {"name": "memory"}}, {}, 400),  # no _meta
        (call(4, "memory", {"id": 1}), {"Mcp-Name": "search"}, 400),  # header and body disagree
        (call(5, "memory", {"id": 1}), {"Origin": "http://evil.example"}, 403),
        (call(6, "memory", {"id": 1}), {"Content-Type": "text/plain"}, 400),
        (call(7, "memory", {"id": 1}), {"Accept": "text/html"}, 406),
    ]
    before = served.tool_calls.answered
    for body, extra, status in cases:
        same_both_ways(served, token, body, status, **extra)
    assert served.tool_calls.answered == before
    # A wrong token still gets nothing, whichever path would have answered.
    assert post(served.url, token + "x", call(9, "memory", {"id": 1})).status_code == 401


HANDSHAKE = "2025-06-18"


def handshake(url: str, token: str) -> str:
    """An `initialize`d session of the handshake era, as most agents open one today."""
    hello = {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": META[
        "io.modelcontextprotocol/clientInfo"]}  # fmt: skip
    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
    }
    answer = httpx.post(f"{url}/mcp", json=body, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    session = answer.headers["mcp-session-id"]
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    headers |= {"mcp-session-id": session, "MCP-Protocol-Version": HANDSHAKE}
    assert httpx.post(f"{url}/mcp", json=ready, headers=headers).status_code == 202
    return session


def in_session(session: str, version: str = HANDSHAKE) -> dict[str, str]:
    return {"mcp-session-id": session, "MCP-Protocol-Version": version}


def test_handshake_sessions_get_the_sdks_answers_too(host: tuple[Host, str, int]) -> None:
    served, token, memory_id = host
    session = handshake(served.url, token)
    plain = [
        call(1, "memory", {"id": memory_id}),
        call("s-2", "search", {"query": "部署", "scope": "all"}),
        call(3, "search", {"query": 5}),
        call(4, "no_such_tool", {}),
    ]
    before = served.tool_calls.answered
    for body in plain:
        direct = same_both_ways(served, token, body, 200, **in_session(session))
        assert direct.headers["mcp-session-id"] == session
    assert served.tool_calls.answered - before == len(plain)

    # What the SDK must answer: a session it never opened, a version other than the
    # one negotiated, invalid parameters; then a session the client ended.
    others: list[tuple[dict[str, str], Any, int]] = [
        (in_session("no-such-session"), call(5, "memory", {"id": memory_id}), 404),
        (in_session(session, "2025-03-26"), call(6, "memory", {"id": memory_id}), 200),
        (in_session(session), call(7, "memory", "not an object"), 200),
    ]
    before = served.tool_calls.answered
    for extra, body, status in others:
        same_both_ways(served, token, body, status, **extra)
    assert served.tool_calls.answered == before
    headers = {"Authorization": f"Bearer {token}", **in_session(session)}
    assert httpx.delete(f"{served.url}/mcp", headers=headers).status_code == 200
    gone = post(served.url, token, call(8, "memory", {"id": memory_id}), **in_session(session))
    assert gone.status_code == 404 and served.tool_calls.answered == before
    assert session not in served.tool_calls.sessions


def test_the_sdks_client_in_both_eras_is_answered_by_the_host(
    host: tuple[Host, str, int],
) -> None:
    served, token, memory_id = host

    async def use(mode: str) -> dict[str, Any]:
        async with http_client(served.url, token, mode) as client:  # type: ignore[arg-type]
            block = data(await client.call_tool("context", {"query": "部署时间"}))
            found = data(await client.call_tool("search", {"query": "周五"}))
            return {"context": block["text"], "hits": [h["id"] for h in found["hits"]]}

    for mode in ("legacy", "2026-07-28"):
        before = served.tool_calls.answered
        seen = anyio.run(use, mode)
        assert f"[m{memory_id}]" in seen["context"] and memory_id in seen["hits"], mode
        assert served.tool_calls.answered - before == 2, mode


def test_an_sdk_without_the_parts_this_path_uses_answers_every_call_itself() -> None:
    """The direct path reads two private parts of the pinned SDK; without them the host
    hands every request to the SDK (whose answers the tests above hold equal), rather
    than fail after a tool ran."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    from app.host.tool_calls import ToolCalls
    from app.mcp.server import build_server

    server = build_server(lambda: None, lambda ctx: "A")
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    manager = StreamableHTTPSessionManager(app=server, json_response=True)
    assert ToolCalls(manager, server, lambda: None, security).direct
    del manager._server_instances  # as if a later SDK kept its sessions elsewhere
    assert not ToolCalls(manager, server, lambda: None, security).direct
