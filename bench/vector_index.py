"""VectorIndex (chromadb PersistentClient) figures: upsert throughput, query latency, startup.

For each size (default 1k, 10k, 100k vectors of dim 512, random unit vectors) it builds a
fresh index in a temporary directory, then times top-10 queries for a big agent (~91 % of
rows) and a small one (~1 %), with and without a ``where`` filter on extra metadata (90 %
"active"), the cold start of a new process (import + open + first query) and its peak memory.

    python bench/vector_index.py [--sizes 1000,10000,100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.index.vectors import VectorIndex  # noqa: E402

DIM = 512
# Agent 0 holds most rows, agents 1..9 one percent each: a filter that keeps most rows and
# one that keeps few behave differently in chroma's pre-filtered HNSW search.
COLD = """
import resource, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from app.index.vectors import VectorIndex  # noqa: E402
import numpy as np
t1 = time.perf_counter()
idx = VectorIndex.open({path!r}, "bench", {dim})
t2 = time.perf_counter()
q = np.random.default_rng(1).normal(size={dim}).astype(np.float32)
idx.query("memory", "0", q, 10)
t3 = time.perf_counter()
idx.close()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{{t1-t0:.2f}} {{t2-t1:.2f}} {{t3-t2:.2f}} {{rss:.0f}}")
"""


def unit_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    rows = rng.normal(size=(n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def percentiles(samples: list[float]) -> str:
    ms = np.array(samples) * 1000
    return f"p50 {np.percentile(ms, 50):6.1f} ms  p95 {np.percentile(ms, 95):6.1f} ms"


def run(size: int, queries: int) -> None:
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        idx = VectorIndex.open(tmp, "bench", DIM)
        agents = ["0" if i % 100 < 91 else str(i % 100 - 90) for i in range(size)]
        chunk = 5000
        start = time.perf_counter()
        for lo in range(0, size, chunk):
            hi = min(size, lo + chunk)
            status = [{"status": "archived" if i % 10 == 0 else "active"} for i in range(lo, hi)]
            idx.upsert(
                "memory", list(range(lo, hi)), unit_rows(rng, hi - lo), agents[lo:hi], status
            )
        upsert_s = time.perf_counter() - start
        print(f"n={size:>7}: upsert {size / upsert_s:7.0f} vectors/s ({upsert_s:.1f} s)")
        probes = unit_rows(rng, queries)
        cases = (
            ("0", None, "agent with 91% of rows"),
            ("5", None, "agent with 1% of rows"),
            ("0", {"status": "active"}, "91% agent, status=active"),
        )
        for agent, where, label in cases:
            times = []
            for q in probes:
                t = time.perf_counter()
                hits = idx.query("memory", agent, q, 10, where=where)
                times.append(time.perf_counter() - t)
            print(f"  query k=10, {label:<25} {percentiles(times)}  ({len(hits)} hits)")
        ids_start = time.perf_counter()
        all_ids = idx.ids("memory")
        print(f"  ids(): {len(all_ids)} ids in {time.perf_counter() - ids_start:.2f} s")
        idx.close()
        disk = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file()) / 2**20
        out = subprocess.run(
            [sys.executable, "-c", COLD.format(root=str(ROOT), path=tmp, dim=DIM)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        print(
            f"  cold process: import {out[0]} s, open {out[1]} s, first query {out[2]} s, "
            f"peak RSS {out[3]} MiB; on disk {disk:.0f} MiB"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        run(size, args.queries)


if __name__ == "__main__":
    main()
