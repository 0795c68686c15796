"""What MCP over loopback HTTP adds to a `context` call, for 1 agent and 8 at once.

The same calls are timed twice on the same home: straight into the Engine
(in this process, 1 thread or 8 threads at once), then as MCP tool calls from
the SDK's client to a real `tapemind serve` subprocess (1 session, or 8
sessions of 8 agents at once). Overhead = MCP percentile - direct percentile.

On a busy machine wall times are mostly waiting for a CPU, so the CPU time
each call costs is printed too (host + client processes, from /proc, Linux):
MCP CPU per call - direct CPU per call is what the protocol itself adds.

python bench/mcp_overhead.py [--calls 200] [--memories 150]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ..engine import Engine

ROOT = Path(__file__).resolve().parents[2]
AGENTS = [f"agent{i}" for i in range(8)]
FACTS = [
    "The user prefers tabs for indentation in {p}",
    "用户希望 {p} 的提交信息用中文写",
    "The staging database of {p} is called stg-{n}",
    "{p} 的部署在每周五下午进行",
    "Lesson: run the migrations of {p} before the tests",
    "{p} 的 CI 需要 Python 3.{n}",
]
QUERIES = ["indentation", "提交信息", "staging database", "部署时间", "migrations", "CI 版本"]


def seed(home: Path, memories: int) -> dict[str, str]:
    with Engine.open(home, create=True) as engine:
        tokens = {}
        for name in AGENTS:
            engine.add_agent(name)
            for i in range(memories):
                text = FACTS[i % len(FACTS)].format(p=f"project-{i // len(FACTS)}", n=i)
                ids = engine.append(name, [{"thread": f"t{i % 5}", "role": "user", "text": text}])
                engine.remember(name, text, "project_fact", sources=ids.ids, thread=f"t{i % 5}")
            tokens[name] = engine.agent_token(name).token
        return tokens


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def host_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process `pid` (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def direct(home: Path, agents: list[str], calls: int) -> list[float]:
    """Milliseconds per engine.context call, `len(agents)` threads at once."""
    times: list[float] = []
    lock = threading.Lock()
    with Engine.open(home) as engine:

        def run(agent: str) -> None:
            mine = []
            for n in range(calls):
                start = time.perf_counter()
                engine.context(agent, thread=f"t{n % 5}", query=QUERIES[n % len(QUERIES)])
                mine.append((time.perf_counter() - start) * 1000)
            with lock:
                times.extend(mine)

        threads = [threading.Thread(target=run, args=(a,)) for a in agents]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return times


async def over_mcp(url: str, tokens: dict[str, str], agents: list[str], calls: int) -> list[float]:
    """Milliseconds per `context` tool call, one MCP session per agent, all at once."""
    times: list[float] = []

    async def run(agent: str) -> None:
        headers = {"Authorization": f"Bearer {tokens[agent]}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
        ):
            await client.call_tool("context", {"query": "warm up"})
            for n in range(calls):
                args = {"thread": f"t{n % 5}", "query": QUERIES[n % len(QUERIES)]}
                start = time.perf_counter()
                result = await client.call_tool("context", args)
                times.append((time.perf_counter() - start) * 1000)
                if result.is_error:
                    raise RuntimeError(str(result.content[0]))

    async with anyio.create_task_group() as tg:
        for agent in agents:
            tg.start_soon(run, agent)
    return times


def start_host(home: Path) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from app.cli.main import main; main()",
            "--home",
            str(home),
            "serve",
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            note = json.loads((home / ".lock").read_text())
            if note.get("url") and (home / "host-owner.token").exists():
                return proc, str(note["url"])
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the host did not start")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="context calls per agent")
    parser.add_argument("--memories", type=int, default=150, help="memories per agent")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        tokens = seed(home, args.memories)
        rows, cpu_direct = [], {}
        for n in (1, 8):
            started = time.process_time()
            rows.append((n, direct(home, AGENTS[:n], args.calls)))
            cpu_direct[n] = (time.process_time() - started) / (n * args.calls) * 1000
        proc, url = start_host(home)
        mcp_rows, cpu_mcp, cpu_host = [], {}, {}
        try:
            for n in (1, 8):
                started, host_started = time.process_time(), host_cpu_s(proc.pid)
                mcp_rows.append((n, anyio.run(over_mcp, url, tokens, AGENTS[:n], args.calls)))
                host_spent = host_cpu_s(proc.pid) - host_started
                spent = time.process_time() - started + host_spent
                cpu_mcp[n] = spent / (n * (args.calls + 1)) * 1000
                cpu_host[n] = host_spent / (n * (args.calls + 1)) * 1000
        finally:
            proc.terminate()
            proc.wait(30)
    print(
        f"context: {args.calls} calls per agent, {args.memories} memories per agent, "
        f"MCP over streamable HTTP on 127.0.0.1 (load average {os.getloadavg()[0]:.1f}, "
        f"{os.cpu_count()} CPUs)"
    )
    print(
        f"{'agents':>6}  {'direct p50/p95':>18}  {'MCP p50/p95':>18}  {'overhead p50/p95':>18}"
        f"  {'CPU/call: direct, MCP (host), overhead':>40}"
    )
    for (n, d), (_n, m) in zip(rows, mcp_rows, strict=True):
        d50, d95, m50, m95 = pct(d, 0.5), pct(d, 0.95), pct(m, 0.5), pct(m, 0.95)
        print(
            f"{n:>6}  {d50:7.2f}/{d95:7.2f} ms  {m50:7.2f}/{m95:7.2f} ms  "
            f"{m50 - d50:7.2f}/{m95 - d95:7.2f} ms  "
            f"{cpu_direct[n]:7.2f}, {cpu_mcp[n]:6.2f} ({cpu_host[n]:5.2f}), "
            f"{cpu_mcp[n] - cpu_direct[n]:6.2f} ms"
        )
    print(
        f"(direct mean {statistics.mean(rows[0][1]):.2f} ms for one agent; CPU is host + "
        "client processes per call, host alone in parentheses; MCP also counts the SDK "
        "client's own work)"
    )


if __name__ == "__main__":
    main()
