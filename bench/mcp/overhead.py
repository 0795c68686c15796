"""What MCP over loopback HTTP adds to a `context` call, for 1 agent and 8 at once.

A real `tapemind serve` owns a seeded home (8 agents, their memories embedded, so
the host's indexer is idle and every call takes the full hybrid route). Each
agent is its own client process with its own bearer token, driving the SDK's
MCP client; 1 agent, then 8 agents at once, in two paces: back to back (each agent
calls again as soon as it has its answer: the machine saturated, a stress test) and
together (every call of every agent starts at the same moment, the next when all 8
have their answers: eight agents asking at once, as at the start of their turns).
For every call:

    overhead = round-trip time seen by the client - the engine's time for that call

where the engine's time is measured in the host around the engine call and sent
back in the result's `_meta` (`tapemind/engine_ms`). Both protocol eras are
measured with the SDK's client: 2026-07-28 (one stateless POST per call, its
default) and the handshake era (an `initialize`d session, what Claude Code and
most clients speak today); then "plain HTTP", the 2026-07-28 POSTs from a minimal
client (bench/mcp/raw_client.py), whose overhead is nearly all the host's;
then "TS SDK", a handshake-era session from the official TypeScript SDK's client, the one
Claude Code and DeepChat embed (interop/typescript; needs Node.js, and `make setup-node`:
without them that protocol is left out, and the report says why).

The target is checked on what Tapemind adds to a call: every client at one agent; the
plain client at eight (its own work is ~0.3 ms a call, so its overhead is the host's and
the protocol's); and, for eight SDK clients, the host's own part. The SDK clients' rows
at eight are printed beside it, not checked: on a 2-core machine eight client processes
of 1-3.5 ms of CPU a call each compete with the host and with one another for the cores,
and `--engine instant` shows their overhead stays above the target when the host takes
no time at all. Real agents' clients have cores of their own; the rows "1+7" come
closest to that here: the host serves eight agents at once, one through the SDK's
client (the figures are its calls), seven through the plain client.

On a busy machine wall times are mostly waiting for a CPU, so CPU times are
printed too: host and client processes per call (from /proc, Linux; the host's
includes the engine), and the MCP stack's own CPU per call with the engine left
out (bench/mcp/server_cpu.py), which holds whatever the load.

python bench/mcp_overhead.py [--calls 200] [--memories 100] [--agents 8] [--cache DIR]
                             [--protocol 2026-07-28|handshake|plain HTTP|TS SDK|all]
                             [--engine real|instant]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from app.benchmarks.common import drain_index, percentile
from app.engine import Engine
from bench.mcp.raw_client import host_ms
from bench.mcp.server_cpu import server_cpu_ms

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
# label -> the SDK client's mode (Client(mode=...)), "raw": bench/mcp/raw_client.py,
# or "node": interop/typescript/bench_client.mjs
PROTOCOLS = {
    "2026-07-28": "2026-07-28",
    "handshake": "legacy",
    "plain HTTP": "raw",
    "TS SDK": "node",
}
TS_CLIENT = ROOT / "interop" / "typescript"
PACES = ("back to back", "together")
LEAN = "plain HTTP"  # the client of the other seven agents in a "1 SDK + 7 lean" round
ENGINE_MS = "tapemind/engine_ms"
TOKEN_ENV = "TAPEMIND_BENCH_TOKEN"
WARM_UP_CALLS = 5


def seed(home: Path, memories: int) -> None:
    """8 agents with `memories` memories each (en + zh), sourced from the tape, all embedded."""
    with Engine.open(home, create=True) as engine:
        for name in AGENTS:
            engine.add_agent(name)
            for i in range(memories):
                text = FACTS[i % len(FACTS)].format(p=f"project-{i // len(FACTS)}", n=i)
                ids = engine.append(name, [{"thread": f"t{i % 5}", "role": "user", "text": text}])
                engine.remember(name, text, "project_fact", sources=ids.ids, thread=f"t{i % 5}")
            engine.agent_token(name)
        drain_index(engine)


def prepare_home(target: Path, memories: int, cache: Path | None) -> None:
    """Seed `target`, or copy a home seeded earlier with the same size from `cache`."""
    cached = cache / f"home-{memories}" if cache else None
    if cached is not None and (cached / "tapemind.db").exists():
        shutil.copytree(cached, target)
        return
    seed(target, memories)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(target, cached)


def cpu_s(pid: int, thread: int | None = None) -> float:
    """User + system CPU seconds of process `pid`, or of its thread `thread` (Linux /proc;
    0 elsewhere)."""
    where = f"/proc/{pid}/task/{thread}/stat" if thread else f"/proc/{pid}/stat"
    try:
        fields = Path(where).read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


# -- the host -------------------------------------------------------------------------


def start_host(home: Path, engine: str = "real") -> tuple[subprocess.Popen[str], str]:
    """`tapemind serve` on a free port; returns once its start-up jobs have all run once.
    `engine`: "real", or "instant" (bench/mcp/instant_engine.py)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = (
        "from bench.mcp.instant_engine import serve; serve()"
        if engine == "instant"
        else "from app.cli.main import main; main()"
    )
    argv = [sys.executable, "-c", run]
    proc = subprocess.Popen(
        [*argv, "--home", str(home), "serve", "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            url = str(json.loads((home / ".lock").read_text())["url"])
            owner = (home / "host-owner.token").read_text()
            jobs = httpx.post(
                f"{url}/rpc/jobs", headers={"Authorization": f"Bearer {owner}"}, timeout=10
            ).json()["result"]
            if all(job["runs"] > 0 for job in jobs):
                return proc, url
        except (OSError, ValueError, KeyError, httpx.HTTPError):
            pass
        if proc.poll() is not None:
            errors = proc.stderr.read() if proc.stderr else ""
            raise RuntimeError(f"the host did not start: {errors}")
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the host did not start")


# -- the clients ----------------------------------------------------------------------


def ts_client_missing() -> str | None:
    """Why the TypeScript client cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "Node.js is not installed"
    if not (TS_CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return "its SDK is not installed: run `make setup-node`"
    return None


def client_argv(url: str, label: str, calls: int, agent_no: int, together: bool) -> list[str]:
    """The command line of one agent's client process."""
    if PROTOCOLS[label] == "node":
        script = str(TS_CLIENT / "bench_client.mjs")
        flags = [str(calls), str(agent_no), "1" if together else "0", str(WARM_UP_CALLS)]
        return ["node", script, url, *flags, *QUERIES]
    argv = [sys.executable, "-m", "bench.mcp.overhead", "--client", url]
    argv += ["--mode", PROTOCOLS[label], "--calls", str(calls), "--agent-no", str(agent_no)]
    return argv + (["--together"] if together else [])


def wait_for_go() -> None:
    """Pace "together": block until the benchmark says every agent may call."""
    sys.stdin.readline()


def say_done() -> None:
    print("done", flush=True)


async def _client(url: str, mode: str, calls: int, agent_no: int, together: bool) -> dict[str, Any]:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {os.environ[TOKEN_ENV]}"}
    rtt: list[float] = []
    engine: list[float] = []
    host: list[float] = []
    seen: list[float] = []  # the host's time of each answer during one call

    async def on_response(response: Any) -> None:
        if (took := host_ms(response.headers.get("server-timing"))) is not None:
            seen.append(took)

    hooks = {"response": [on_response]}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120, event_hooks=hooks) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as client,
    ):
        for n in range(WARM_UP_CALLS):
            await client.call_tool("context", {"query": QUERIES[(n + agent_no) % len(QUERIES)]})
        print("ready", flush=True)
        sys.stdin.readline()  # everyone starts at the same moment
        cpu_started = time.process_time()
        for n in range(calls):
            args = {"thread": f"t{n % 5}", "query": QUERIES[(n + agent_no) % len(QUERIES)]}
            if together:
                await anyio.to_thread.run_sync(wait_for_go)
            seen.clear()
            started = time.perf_counter()
            result = await client.call_tool("context", args)
            rtt.append((time.perf_counter() - started) * 1000)
            host.append(seen[-1] if seen else float("nan"))
            if together:
                say_done()
            if result.is_error or not result.meta or ENGINE_MS not in result.meta:
                raise RuntimeError(f"context failed: {result.content[0]}")
            engine.append(float(result.meta[ENGINE_MS]))
        cpu = time.process_time() - cpu_started
    return {"rtt": rtt, "engine": engine, "host": host, "cpu_s": cpu}


def client_main(url: str, mode: str, calls: int, agent_no: int, together: bool) -> None:
    """One agent's client process: warm up, say ready, wait for the go line, call, report."""
    import anyio

    if mode == "raw":
        from bench.mcp.raw_client import run

        queries = QUERIES[agent_no % len(QUERIES) :] + QUERIES[: agent_no % len(QUERIES)]
        pace = (wait_for_go, say_done) if together else None
        report = run(url, TOKEN_ENV, queries, calls, WARM_UP_CALLS, pace)
    else:
        report = anyio.run(_client, url, mode, calls, agent_no, together)
    print(json.dumps(report), flush=True)


@dataclass(frozen=True)
class Round:
    protocol: str
    agents: str  # "1", "8", or "1+7": one agent measured, seven calling through LEAN
    pace: str
    rtt: list[float]
    engine: list[float]
    overhead: list[float]
    host_part: list[float]
    client_cpu_ms: float
    host_cpu_ms: float
    loop_cpu_ms: float
    load_before: str
    load_after: str


def run_round(
    url: str,
    host_pid: int,
    tokens: dict[str, str],
    label: str,
    n: int,
    calls: int,
    pace: str,
    lean_rest: bool = False,
) -> Round:
    """`n` client processes (agents 0..n-1), started together; every call's figures.
    `pace`: "back to back", or "together" (each call starts when all have answered).
    `lean_rest`: agents 1..n-1 call through the plain client, and the figures are agent
    0's alone (the client CPU too; the host's is per call of all agents)."""
    together = pace == "together"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    clients = []
    for i in range(n):
        client = LEAN if lean_rest and i else label
        clients.append(
            subprocess.Popen(
                client_argv(url, client, calls, i, together),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env={**env, TOKEN_ENV: tokens[AGENTS[i]]},
                cwd=ROOT,
            )
        )
    for c in clients:
        assert c.stdout is not None
        if c.stdout.readline().strip() != "ready":
            raise RuntimeError("a benchmark client failed to connect")
    # The host's main thread is its event loop (uvicorn): every request's parsing and
    # answer pass through it, so its CPU per call is what each request queues behind.
    load_before, host_started, loop_started = load(), cpu_s(host_pid), cpu_s(host_pid, host_pid)
    # One "go" starts them all; "together", each call then waits for a "go" of its own.
    for step in range(1 + (calls if together else 0)):
        for c in clients:
            assert c.stdin is not None
            c.stdin.write("go\n")
            c.stdin.flush()
        for c in clients if step else ():
            assert c.stdout is not None
            if c.stdout.readline().strip() != "done":
                raise RuntimeError("a benchmark client failed")
    # readline, not communicate: the "done" lines were read through the same buffer.
    reports = [json.loads(c.stdout.readline()) for c in clients if c.stdout is not None]
    for c in clients:
        c.wait(timeout=60)
    host_cpu = cpu_s(host_pid) - host_started
    loop_cpu = cpu_s(host_pid, host_pid) - loop_started
    total = n * calls
    if lean_rest:
        reports = reports[:1]  # the measured agent's; the others only load the host
    rtt = [t for r in reports for t in r["rtt"]]
    engine = [t for r in reports for t in r["engine"]]
    # A call without the host's Server-Timing has no host part (null from the TS client).
    host = [float("nan") if t is None else t for r in reports for t in r["host"]]
    return Round(
        protocol=label,
        agents=f"1+{n - 1}" if lean_rest else str(n),
        pace=pace if n > 1 else "-",
        rtt=rtt,
        engine=engine,
        overhead=[a - b for a, b in zip(rtt, engine, strict=True)],
        host_part=[a - b for a, b in zip(host, engine, strict=True)],
        client_cpu_ms=sum(r["cpu_s"] for r in reports) / len(rtt) * 1000,
        host_cpu_ms=host_cpu / total * 1000,
        loop_cpu_ms=loop_cpu / total * 1000,
        load_before=load_before,
        load_after=load(),
    )


# -- the report -----------------------------------------------------------------------


def print_report(
    rounds: list[Round],
    server_cpu: dict[str, float],
    calls: int,
    memories: int,
    engine: str = "real",
) -> None:
    print(
        f"context over MCP (streamable HTTP, 127.0.0.1): {calls} calls per agent, "
        f"{memories} memories per agent, {os.cpu_count()} CPUs"
    )
    if engine == "instant":
        print(
            "engine: INSTANT (each answer worked out once, then repeated): what is left is "
            "the clients' and the protocol's cost, the floor no host change goes under"
        )
    print("overhead = client round trip - engine time of the same call (sent back in _meta)")
    print("host part = the host's time for the request (Server-Timing) - engine time")
    print("loop = CPU of the host's event-loop thread, which every request passes through")
    print(
        f"{'protocol':<11} {'agents':>6} {'pace':<12}  {'overhead p50/p95':>17}"
        f"  {'host part p50/p95':>17}  {'round trip p50/p95':>19}"
        f"  {'engine p50/p95':>17}  {'CPU/call host (loop), client':>28}  load"
    )
    for r in rounds:
        print(
            f"{r.protocol:<11} {r.agents:>6} {r.pace:<12}  "
            f"{percentile(r.overhead, 50):6.1f}/{percentile(r.overhead, 95):6.1f} ms  "
            f"{percentile(r.host_part, 50):6.1f}/{percentile(r.host_part, 95):6.1f} ms  "
            f"{percentile(r.rtt, 50):7.1f}/{percentile(r.rtt, 95):7.1f} ms  "
            f"{percentile(r.engine, 50):6.1f}/{percentile(r.engine, 95):6.1f} ms  "
            f"{r.host_cpu_ms:11.1f} ({r.loop_cpu_ms:4.2f}), {r.client_cpu_ms:4.1f} ms"
            f"  {r.load_before}->{r.load_after}"
        )
    if server_cpu:
        stack = ", ".join(f"{p} {ms:.2f} ms" for p, ms in server_cpu.items())
        print(f"MCP stack CPU per call in the host, engine left out: {stack}")
    for line in verdict(rounds):
        print(line)


TARGET_MS = 10.0


def verdict(rounds: list[Round]) -> list[str]:
    """The target checked on the figures that measure what Tapemind adds to a call, then
    the SDK clients' rows at eight agents for what they also measure on a small machine:
    eight client processes of 1-3.5 ms of CPU a call each, sharing its cores with the host
    (`--engine instant` shows they stay there when the host takes no time at all)."""

    def worst(rows: list[Round], figure: str = "overhead", check: bool = True) -> str:
        if not rows:
            return "not measured"
        p95 = max(percentile(getattr(r, figure), 95) for r in rows)
        if not check:
            return f"p95 up to {p95:.1f} ms"
        return f"p95 up to {p95:.1f} ms: " + ("met" if p95 <= TARGET_MS else "NOT MET")

    one = [r for r in rounds if r.agents == "1"]
    many = [r for r in rounds if r.agents != "1"]
    lean = [r for r in many if r.protocol == LEAN]
    mixed = [r for r in many if "+" in r.agents]
    crowded = [r for r in many if r.protocol != LEAN and "+" not in r.agents]
    cpu = [r.client_cpu_ms for r in crowded]
    spent = f"{min(cpu):.1f}-{max(cpu):.1f} ms of CPU a call each" if cpu else "-"
    return [
        f"target (overhead p95 <= {TARGET_MS:g} ms), what Tapemind adds to a call:",
        f"  1 agent, every client: {worst(one)}",
        f"  8 agents at once, the plain client: {worst(lean)}",
        f"  8 agents at once through SDK clients, the host's part: {worst(crowded, 'host_part')}",
        f"with the SDK clients' own work on {os.cpu_count()} CPUs:",
        f"  8 SDK client processes ({spent}): overhead {worst(crowded, check=False)}",
        f"  1 SDK agent among 7 plain ones: overhead {worst(mixed, check=False)}",
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="context calls per agent")
    parser.add_argument("--memories", type=int, default=100, help="memories per agent")
    parser.add_argument("--agents", type=int, default=8, choices=range(2, 9), metavar="2..8")
    parser.add_argument("--protocol", choices=[*PROTOCOLS, "all"], default="all")
    parser.add_argument("--cache", type=Path, help="keep the seeded home here and reuse it")
    parser.add_argument(
        "--engine",
        choices=("real", "instant"),
        default="real",
        help="instant: context answers from memory at once, to measure the floor",
    )
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--mode", help=argparse.SUPPRESS)
    parser.add_argument("--agent-no", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--together", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--pace", choices=[*PACES, "both"], default="both", help="how the 8 agents call"
    )
    args = parser.parse_args(argv)
    if args.client:
        client_main(args.client, args.mode, args.calls, args.agent_no, args.together)
        return
    labels = list(PROTOCOLS) if args.protocol == "all" else [args.protocol]
    if "TS SDK" in labels and (missing := ts_client_missing()):
        labels.remove("TS SDK")
        print(f"TS SDK left out: {missing}.", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        prepare_home(home, args.memories, args.cache)
        with Engine.open(home) as engine:
            tokens = {name: engine.agent_token(name).token for name in AGENTS}
        eras = [p for p in labels if p in ("2026-07-28", "handshake")]
        server_cpu = server_cpu_ms(home, AGENTS[0], eras)
        proc, url = start_host(home, args.engine)
        try:
            paces = list(PACES) if args.pace == "both" else [args.pace]
            rounds = []
            for label in labels:
                rounds.append(run_round(url, proc.pid, tokens, label, 1, args.calls, paces[0]))
                for pace in paces:
                    rounds.append(
                        run_round(url, proc.pid, tokens, label, args.agents, args.calls, pace)
                    )
                for pace in paces if label != LEAN else ():
                    rounds.append(
                        run_round(url, proc.pid, tokens, label, args.agents, args.calls, pace, True)
                    )
        finally:
            proc.terminate()
            proc.wait(30)
    print_report(rounds, server_cpu, args.calls, args.memories, args.engine)


if __name__ == "__main__":
    main()
