"""A minimal MCP client for the overhead benchmark: plain HTTP/1.1 keep-alive POSTs.

One 2026-07-28 `tools/call` per POST with Python's own `http.client` (~0.7 ms of CPU
per call, where the SDK's client spends ~3 ms), so its round trips show what the host
adds, with little of the client's own work in them.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

VERSION = "2026-07-28"


def host_ms(server_timing: str | None) -> float | None:
    """The host's `Server-Timing: host;dur=MS`: how long the request was in the host."""
    for metric in (server_timing or "").split(","):
        name, _, params = metric.strip().partition(";")
        if name == "host" and params.startswith("dur="):
            return float(params[4:])
    return None


def run(
    url: str,
    token_env: str,
    queries: list[str],
    calls: int,
    warm_up: int,
    pace: tuple[Callable[[], None], Callable[[], None]] | None = None,
) -> dict[str, Any]:
    """Warm up, print "ready", wait for a line on stdin, then time `calls` context calls.
    `pace`: (wait before each call, say after it) when the agents call together."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port)
    headers = {
        "authorization": f"Bearer {os.environ[token_env]}",
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": VERSION,
        "mcp-method": "tools/call",
        "mcp-name": "context",
    }
    meta = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    }

    def call(n: int, arguments: dict[str, Any]) -> float:
        params = {"name": "context", "arguments": arguments, "_meta": meta}
        body = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}
        conn.request("POST", "/mcp", json.dumps(body), headers)
        response = conn.getresponse()
        answer = json.loads(response.read())
        took = host_ms(response.getheader("server-timing"))
        host.append(float("nan") if took is None else took)
        result = answer.get("result") or {}
        if response.status != 200 or result.get("isError"):
            raise RuntimeError(f"context failed: HTTP {response.status}")
        return float(result["_meta"]["tapemind/engine_ms"])

    host: list[float] = []
    for n in range(warm_up):
        call(n, {"query": queries[n % len(queries)]})
    host.clear()
    print("ready", flush=True)
    sys.stdin.readline()
    rtt: list[float] = []
    engine: list[float] = []
    cpu_started = time.process_time()
    for n in range(calls):
        args = {"thread": f"t{n % 5}", "query": queries[n % len(queries)]}
        if pace:
            pace[0]()
        started = time.perf_counter()
        engine.append(call(n + warm_up, args))
        rtt.append((time.perf_counter() - started) * 1000)
        if pace:
            pace[1]()
    return {"rtt": rtt, "engine": engine, "host": host, "cpu_s": time.process_time() - cpu_started}
