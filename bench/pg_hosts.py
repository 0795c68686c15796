"""Several hosts writing to one PostgreSQL database at once: nothing acknowledged is lost,
every agent's sequence numbers stay gap-free.

    python bench/pg_hosts.py [--hosts 3] [--agents 8] [--seconds 600] [--baseline-seconds S]

Starts a PostgreSQL 16 with pgvector from the `pgserver` package (a real postmaster,
fsync on), then `--hosts` processes, each with a home directory of its own on that
database, as on separate machines. Every host writes for the same `--agents` agents, one
writer thread per agent: a tape entry per call, and every fifth call a memory through
`remember` (confronted with its neighbours). Each host also runs the background
indexer every 2 s, as `tapemind serve` does (only one host indexes at a time). At the
end every id a host was given back is looked for in the database, and each agent's tape
is checked for gaps or repeats in its sequence numbers. Prints calls per second and p50 /
p95 latency per call, and the two checks, first for one host (the baseline: the same
writers in one process), then for `--hosts`.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["ANONYMIZED_TELEMETRY"] = "False"

TEXTS_EN = [
    "The user deploys the blog on Fridays.", "The CI runner needs more memory.",
    "Backups run every night at two.", "The user reviews pull requests after lunch.",
]  # fmt: skip
TEXTS_ZH = [
    "用户每周五部署博客。",
    "持续集成需要更多内存。",
    "备份每天凌晨两点运行。",
    "用户午饭后做代码评审。",
]


def _host(home: str, url: str, agents: list[str], seconds: float, out: Any) -> None:
    """One host: a writer thread per agent and the background indexer, for `seconds`."""
    from app import Engine

    engine = Engine.open(Path(home), create=True, database_url=url)
    stop = time.monotonic() + seconds
    acked: list[int] = []
    times: dict[str, list[float]] = {"append": [], "remember": []}
    errors: list[str] = []
    lock = threading.Lock()

    def writer(agent: str, w: int) -> None:
        n = 0
        while time.monotonic() < stop:
            n += 1
            texts = TEXTS_ZH if n % 2 else TEXTS_EN
            text = f"{texts[n % len(texts)]} ({Path(home).name} {w}.{n})"
            call = "remember" if n % 5 == 0 else "append"
            t0 = time.perf_counter()
            try:
                if call == "remember":
                    engine.remember(agent, text, "project_fact")
                    ids: tuple[int, ...] = ()
                else:
                    ids = engine.append(agent, [{"thread": "t", "role": "user", "text": text}]).ids
            except Exception as exc:
                with lock:
                    errors.append(type(exc).__name__)
                continue
            with lock:
                times[call].append((time.perf_counter() - t0) * 1000)
                acked.extend(ids)

    def indexer() -> None:
        while time.monotonic() < stop:
            engine.run_indexer(limit=256, background=True)
            time.sleep(2.0)

    threads = [threading.Thread(target=writer, args=(a, i)) for i, a in enumerate(agents)]
    threads.append(threading.Thread(target=indexer))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    engine.close()
    out.put({"home": home, "acked": acked, "times": times, "errors": errors})


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * q) - 1)]


def _round(server: Any, base: Path, hosts: int, agents: list[str], seconds: float) -> None:
    """`hosts` hosts writing for `seconds` into a database of their own; prints the
    figures and the checks."""
    from sqlalchemy import text

    from app import Engine
    from app.db import postgres

    name = f"bench_{hosts}"
    server.psql(f"CREATE DATABASE {name}")
    url = server.get_uri(name)
    with Engine.open(base / f"setup{hosts}", create=True, database_url=url) as setup:
        for agent in agents:
            setup.add_agent(agent)
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    started = time.monotonic()
    procs = [
        ctx.Process(target=_host, args=(str(base / f"{name}-{h}"), url, agents, seconds, out))
        for h in range(hosts)
    ]
    for p in procs:
        p.start()
    reports = [out.get() for _ in procs]
    for p in procs:
        p.join()
    wall = time.monotonic() - started
    engine = postgres.engine_for(url)
    with engine.connect() as conn:
        stored = set(conn.execute(text("SELECT id FROM tape_entries")).scalars())
        by_agent = "SELECT agent_id, array_agg(seq ORDER BY seq) FROM tape_entries GROUP BY 1"
        seqs = conn.execute(text(by_agent)).all()
        memories = conn.execute(text("SELECT count(*) FROM memories")).scalar_one()
        vectors = conn.execute(text("SELECT count(*) FROM vectors")).scalar_one()
    engine.dispose()

    acked = [i for r in reports for i in r["acked"]]
    lost = [i for i in acked if i not in stored]
    gaps = sum(1 for _, s in seqs if list(s) != list(range(1, len(s) + 1)))
    errors = [e for r in reports for e in r["errors"]]
    print(f"{hosts} host(s) x {len(agents)} agents for {seconds:.0f} s "
          f"(wall {wall:.0f} s, load average {os.getloadavg()[0]:.1f})")  # fmt: skip
    for call in ("append", "remember"):
        times = [t for r in reports for t in r["times"][call]]
        print(f"  {call:<9} {len(times):>7} calls  {len(times) / seconds:>7.1f}/s  "
              f"p50 {statistics.median(times) if times else float('nan'):>7.1f} ms  "
              f"p95 {_pct(times, 0.95):>7.1f} ms")  # fmt: skip
    print(f"  acknowledged entries {len(acked)}, lost {len(lost)}; agents with a gap or a "
          f"repeat in their sequence numbers: {gaps} of {len(seqs)}")  # fmt: skip
    print(f"  memories {memories}, vectors {vectors}; errors {len(errors)} {sorted(set(errors))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument(
        "--baseline-seconds", type=float, help="how long the one-host baseline writes "
        "(default: --seconds; 0 leaves it out)"
    )  # fmt: skip
    args = parser.parse_args()
    baseline = args.seconds if args.baseline_seconds is None else args.baseline_seconds

    import pgserver

    agents = [f"agent{a}" for a in range(args.agents)]
    with tempfile.TemporaryDirectory(prefix="tapemind-bench-hosts-") as scratch:
        base = Path(scratch)
        os.chmod(base, 0o755)  # as root, pgserver's own user must reach its data directory
        server = pgserver.get_server(base / "pg", cleanup_mode="stop")
        try:
            # The baseline first: the same agents and writers, all on one host.
            if baseline > 0:
                _round(server, base, 1, agents, baseline)
            _round(server, base, args.hosts, agents, args.seconds)
        finally:
            server.cleanup()


if __name__ == "__main__":
    main()
