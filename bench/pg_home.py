"""The same home on both backends: an embedded one and one kept in PostgreSQL, side by side.

    python bench/pg_home.py [--memories N] [--agents A] [--entries E] [--queries Q]

Builds the same home twice, from the same seeded texts (English and Chinese, spread over
A agents): the embedded home (SQLite), and a home on a PostgreSQL 16 with pgvector started
from the `pgserver` package in a scratch directory (a real postmaster on a Unix socket,
fsync on). Each memory goes through `remember` with confrontation, each tape entry through
`append`. Then, on each, Q full-text memory searches, Q tape searches and Q `context`
calls with a query, p50 / p95 in ms (wall time, one caller), full-text only. Then the
indexer embeds every row (the embedded home's vectors go to its chromadb index, the
other's to pgvector in its database) and the same calls run again in hybrid mode. The
PostgreSQL targets (issue: 1,000,000 memories) are not what this measures; it says what
the backend costs at the size given.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["ANONYMIZED_TELEMETRY"] = "False"

from app import Engine

TOPICS_EN = [
    "deploys", "reviews", "backups", "the blog", "invoices", "the CI runner", "tests",
    "the database", "release notes", "the laptop", "Go code", "Python scripts",
]  # fmt: skip
VERBS_EN = ["prefers", "keeps", "moved", "checks", "writes", "runs", "archives", "schedules"]
WHEN_EN = ["on Fridays", "every morning", "after lunch", "weekly", "before a release", "at night"]
TOPICS_ZH = [
    "部署", "代码评审", "备份", "博客", "发票", "持续集成", "测试", "数据库", "发布说明",
    "笔记本", "脚本", "周报",
]  # fmt: skip
VERBS_ZH = ["喜欢", "习惯", "总是", "每周", "坚持", "倾向于"]
WHEN_ZH = ["在周五", "每天早上", "午饭后", "每周一次", "发布之前", "晚上"]


def _text(rng: random.Random, i: int) -> str:
    if i % 2:
        return (f"用户{rng.choice(VERBS_ZH)}{rng.choice(WHEN_ZH)}处理{rng.choice(TOPICS_ZH)}"
                f"（第{i}条）")  # fmt: skip
    return (f"The user {rng.choice(VERBS_EN)} {rng.choice(TOPICS_EN)} {rng.choice(WHEN_EN)} "
            f"(note {i}).")  # fmt: skip


def _query(rng: random.Random) -> str:
    return rng.choice(TOPICS_ZH) if rng.random() < 0.5 else rng.choice(TOPICS_EN)


def _timed(calls: int, fn: Callable[[int], object]) -> tuple[float, float]:
    times = []
    for i in range(calls):
        t0 = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)]


def _measure(engine: Engine, args: argparse.Namespace) -> dict[str, tuple[float, float]]:
    rng = random.Random(7)
    agents = [f"agent{a}" for a in range(args.agents)]
    for name in agents:
        engine.add_agent(name)
    out: dict[str, tuple[float, float]] = {}
    per = max(1, args.entries // args.agents)

    def append(i: int) -> None:
        agent = agents[i % len(agents)]
        engine.append(agent, [{"thread": f"t{i % 7}", "role": "user", "text": _text(rng, i)}])

    out["append (1 entry)"] = _timed(per * len(agents), append)

    def remember(i: int) -> None:
        engine.remember(agents[i % len(agents)], _text(rng, i), "preference")

    out["remember"] = _timed(args.memories, remember)
    qrng = random.Random(11)
    out["search memories"] = _timed(
        args.queries,
        lambda i: engine.search(agents[i % len(agents)], _query(qrng), mode="fulltext"),
    )
    out["search tape"] = _timed(
        args.queries,
        lambda i: engine.search(
            agents[i % len(agents)], _query(qrng), mode="fulltext", scope="tape"
        ),
    )
    out["context"] = _timed(
        args.queries, lambda i: engine.context(agents[i % len(agents)], query=_query(qrng))
    )
    started = time.perf_counter()
    engine.run_indexer()
    embedded = args.memories + per * len(agents)
    out["indexer rows/s"] = (embedded / (time.perf_counter() - started), float("nan"))
    out["hybrid memories"] = _timed(
        args.queries, lambda i: engine.search(agents[i % len(agents)], _query(qrng))
    )
    out["hybrid tape"] = _timed(
        args.queries,
        lambda i: engine.search(agents[i % len(agents)], _query(qrng), scope="tape"),
    )
    out["context, indexed"] = _timed(
        args.queries, lambda i: engine.context(agents[i % len(agents)], query=_query(qrng))
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()

    import pgserver

    with tempfile.TemporaryDirectory(prefix="tapemind-bench-pg-") as scratch:
        base = Path(scratch)
        os.chmod(base, 0o755)  # as root, pgserver's own user must reach its data directory
        server = pgserver.get_server(base / "pg", cleanup_mode="stop")
        server.psql("CREATE DATABASE bench")
        try:
            results = {}
            with Engine.open(base / "embedded", create=True) as embedded:
                results["embedded"] = _measure(embedded, args)
            with Engine.open(
                base / "pg-home", create=True, database_url=server.get_uri("bench")
            ) as on_pg:
                results["postgresql"] = _measure(on_pg, args)
        finally:
            server.cleanup()
    load = os.getloadavg()[0]
    print(f"{args.memories} memories, {args.entries} tape entries over {args.agents} agents; "
          f"{args.queries} calls each; load average {load:.1f}")  # fmt: skip
    print(f"{'call':<20} {'embedded p50/p95 ms':>22} {'PostgreSQL p50/p95 ms':>24}")
    for call in results["embedded"]:
        e, p = results["embedded"][call], results["postgresql"][call]
        if e[1] != e[1]:  # a rate, not latencies
            print(f"{call:<20} {e[0]:>10.1f}{'':12} {p[0]:>11.1f}")
            continue
        print(f"{call:<20} {e[0]:>10.2f} / {e[1]:<9.2f} {p[0]:>11.2f} / {p[1]:<9.2f}")


if __name__ == "__main__":
    main()
