"""CPU the host's MCP stack spends on one `tools/call`, the engine left out.

The host's ASGI app (token check, the SDK's streamable-HTTP transport, our tool
layer, JSON) is driven in this process without sockets, and `engine.context`
answers every call with one recorded block, so what is timed is the protocol's
own work. CPU time, not wall time: the figure holds on a busy machine.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio

from app.host.connect import own_home
from app.host.server import Host

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
ARGS = {"thread": "t1", "query": "staging database"}

PORT = 7821


async def _lifespan(app: Any) -> Any:
    """Start the app's lifespan (the MCP session manager); returns a function that ends it."""
    to_app, app_inbox = anyio.create_memory_object_stream[dict[str, Any]](4)
    app_outbox, from_app = anyio.create_memory_object_stream[dict[str, Any]](4)

    async def run() -> None:
        await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}},
                  app_inbox.receive, app_outbox.send)  # fmt: skip

    tg = anyio.create_task_group()
    await tg.__aenter__()
    tg.start_soon(run)
    await to_app.send({"type": "lifespan.startup"})
    assert (await from_app.receive())["type"] == "lifespan.startup.complete"

    async def stop() -> None:
        await to_app.send({"type": "lifespan.shutdown"})
        await from_app.receive()
        await tg.__aexit__(None, None, None)

    return stop


async def _post(app: Any, headers: dict[str, str], body: bytes) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()
        raise AssertionError  # pragma: no cover

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/mcp", "raw_path": b"/mcp", "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", PORT),
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()], "state": {},
    }  # fmt: skip
    await app(scope, receive, send)
    return sent


def _call_body(n: int, modern: bool) -> bytes:
    params: dict[str, Any] = {"name": "context", "arguments": ARGS}
    if modern:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    body = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
    return json.dumps(body).encode()


async def _measure(app: Any, token: str, protocol: str, calls: int, rounds: int) -> float:
    headers = {**HEADERS, "host": f"127.0.0.1:{PORT}", "authorization": f"Bearer {token}"}
    modern = protocol == "2026-07-28"
    if modern:
        headers |= {"mcp-protocol-version": protocol, "mcp-method": "tools/call"}
        headers["mcp-name"] = "context"
    else:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "bench", "version": "1"}}  # fmt: skip
        body = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
        sent = await _post(app, headers, json.dumps(body).encode())
        session = dict(sent[0]["headers"])[b"mcp-session-id"].decode()
        headers |= {"mcp-protocol-version": "2025-06-18", "mcp-session-id": session}
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await _post(app, headers, json.dumps(ready).encode())
    for n in range(20):  # warm up
        sent = await _post(app, headers, _call_body(n, modern))
        if sent[0]["status"] != 200:
            raise RuntimeError(f"the MCP call failed: {sent}")
    spent = []
    for _ in range(rounds):
        started = time.process_time()
        for n in range(calls):
            await _post(app, headers, _call_body(n, modern))
        spent.append((time.process_time() - started) / calls * 1000)
    return sorted(spent)[len(spent) // 2]


def server_cpu_ms(
    home: Path, agent: str, protocols: list[str], calls: int = 200
) -> dict[str, float]:
    """Median CPU milliseconds per `context` call of the MCP stack, per protocol era."""
    engine, lock = own_home(home, role="host")
    try:
        token = engine.agent_token(agent).token
        block = engine.context(agent, thread=ARGS["thread"], query=ARGS["query"])
        engine.context = lambda *_a, **_k: block  # type: ignore[method-assign]
        # The app is called in process, never bound: built for the port its requests name,
        # since the host accepts its exact Host header only.
        host = Host(engine, lock, port=PORT)

        async def run() -> dict[str, float]:
            stop = await _lifespan(host.app)
            try:
                return {p: await _measure(host.app, token, p, calls, 5) for p in protocols}
            finally:
                await stop()

        return anyio.run(run)
    finally:
        lock.release()
        engine.close()
