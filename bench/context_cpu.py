"""CPU one `Engine.context` call costs, in-process (no MCP), and a check that answers hold.

The home is a copy of one seeded by bench/mcp_overhead.py (8 agents x 100 memories, en +
zh, all embedded; `--cache` of that script, `home-100` inside it). Every run works on a
fresh copy, so runs (and the two checkouts of a before/after) start from the same state.

    python bench/context_cpu.py HOME [--calls 500] [--profile]
        CPU ms per call of the whole process (time.process_time: every thread, the
        vector-query worker and chromadb's included), of the calling thread alone
        (time.thread_time), and wall p50 / p95.
    python bench/context_cpu.py HOME --answers FILE
        Run 60 fixed (agent, thread, query) calls on a manual clock and write what each
        returned (included ids in order, scores, routes, the text, dropped ids and
        reasons, tokens used), the recall records they left, and 18 searches for each
        of the first three agents: run it on the code before and after a change and
        compare the files (cmp); they must be identical.

Queries cycle through six (en + zh), so the query-vector cache (64 entries, in
app/index/service.py) always hits after the warm-up: the figure leaves out the query's
embedding unless --no-query-cache is given.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from app.benchmarks.common import percentile
from app.clock import ManualClock
from app.engine import Engine, runtime_of

THREADS = [f"t{i}" for i in range(5)]
QUERIES = ["indentation", "提交信息", "staging database", "部署时间", "migrations", "CI 版本"]
SEARCHES = [("hybrid", "memories"), ("fulltext", "all"), ("semantic", "memories")]
WARM_UP = 30
BATCH = 50  # calls per CPU sample: the least loaded sample is the steadiest figure


def calls(engine: Engine, n: int) -> list[tuple[str, str, str]]:
    """`n` (agent, thread, query) triples cycling through the home's agents (by name:
    agent0-agent7 in the seeded home), five threads and the queries."""
    agents = sorted(a.name for a in engine.agents())
    return [
        (agents[i % len(agents)], THREADS[(i // 3) % len(THREADS)], QUERIES[i % len(QUERIES)])
        for i in range(n)
    ]


def copy_home(source: Path) -> Path:
    target = Path(tempfile.mkdtemp(prefix="context-cpu-")) / "home"
    shutil.copytree(source, target)
    return target


def timing(home: Path, n: int, profile: bool) -> None:
    with Engine.open(home) as engine:
        for agent, thread, query in calls(engine, WARM_UP):
            engine.context(agent, thread=thread, query=query)
        plan = calls(engine, n)
        walls: list[float] = []
        batches: list[float] = []  # CPU ms per call of each run of BATCH calls
        profiler = cProfile.Profile() if profile else None
        cpu0, own0 = time.process_time(), time.thread_time()
        if profiler is not None:
            profiler.enable()
        batch0 = cpu0
        for done, (agent, thread, query) in enumerate(plan, 1):
            t0 = time.perf_counter()
            engine.context(agent, thread=thread, query=query)
            walls.append((time.perf_counter() - t0) * 1000.0)
            if done % BATCH == 0:
                now = time.process_time()
                batches.append((now - batch0) * 1000.0 / BATCH)
                batch0 = now
        if profiler is not None:
            profiler.disable()
        cpu = (time.process_time() - cpu0) * 1000.0 / n
        own = (time.thread_time() - own0) * 1000.0 / n
    spread = f"; per {BATCH} calls min {min(batches):.2f}" if batches else ""
    print(
        f"calls {n}: cpu {cpu:.2f} ms/call{spread} (calling thread {own:.2f}); "
        f"wall p50 {percentile(walls, 50):.2f} ms, p95 {percentile(walls, 95):.2f} ms"
    )
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(40)


def answers(home: Path, out: Path) -> None:
    clock = ManualClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    found = []
    with Engine.open(home, clock=clock) as engine:
        for agent, thread, query in calls(engine, 60):
            clock.advance(minutes=7)
            block = engine.context(agent, thread=thread, query=query)
            found.append(
                {
                    "call": [agent, thread, query],
                    "included": [i.memory_id for i in block.included],
                    "scores": [i.score for i in block.included],
                    "routes": [list(i.routes) for i in block.included],
                    "text": block.text,
                    "dropped": [[d.memory_id, d.reason, d.score] for d in block.dropped],
                    "tokens_used": block.tokens_used,
                    "budget": block.budget,
                }
            )
        # Search shares the full-text and semantic helpers: its answers must hold too.
        searched = []
        for agent in sorted(a.name for a in engine.agents())[:3]:
            for query in QUERIES:
                for mode, scope in SEARCHES:
                    result = engine.search(agent, query, mode=mode, scope=scope, limit=10)
                    hits = [[h.kind, h.id, h.score, sorted(h.why.items())] for h in result.hits]
                    searched.append([agent, query, mode, scope, hits])
        # What the recall records left behind, as `used` and the dashboard read them.
        with runtime_of(engine).read() as s:
            from app.db.store import dbapi

            db = dbapi(s)
            recalls = db.execute(
                "SELECT agent_id, at, mode, thread, user, query, budget, tokens_used, "
                "included, dropped, over_budget FROM recalls ORDER BY id"
            ).fetchall()
            items = db.execute(
                "SELECT memory_id, rank, included, reason, score FROM recall_items "
                "ORDER BY recall_id, rank"
            ).fetchall()
            memories = db.execute(
                "SELECT id, recall_count, last_recalled_at FROM memories "
                "WHERE last_recalled_at IS NOT NULL ORDER BY id"
            ).fetchall()
            audit = db.execute(
                "SELECT * FROM audit WHERE action = 'memory.recall' ORDER BY id"
            ).fetchall()
    state = {
        "recalls": [list(r) for r in recalls],
        "items": [list(r) for r in items],
        "memories": [list(r) for r in memories],
        "audit": [list(r)[1:] for r in audit],
    }
    answers = {"calls": found, "state": state, "searches": searched}
    out.write_text(json.dumps(answers, ensure_ascii=False, indent=1))
    print(f"wrote {len(found)} context answers and {len(searched)} searches to {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("home", type=Path, help="a seeded home (copied, never changed)")
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--profile", action="store_true", help="cProfile the timed calls")
    parser.add_argument("--answers", type=Path, help="write the 60 answers to this file")
    parser.add_argument(
        "--no-query-cache",
        action="store_true",
        help="embed every query anew (the six queries repeat, so the cache always hits)",
    )
    args = parser.parse_args()
    if args.no_query_cache:
        from app.index import service

        service.QUERY_CACHE = 0  # the cache keeps nothing: every call embeds its query
    home = copy_home(args.home)
    try:
        if args.answers:
            answers(home, args.answers)
        else:
            timing(home, args.calls, args.profile)
    finally:
        shutil.rmtree(home.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
