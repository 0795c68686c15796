"""Bilingual retrieval through `engine.search` over the agent-memory set in bench/data.

`retrieval_memories.jsonl` (memories, English and Chinese) is loaded into one
agent with `engine.remember`, the index is drained, and every question of
`retrieval_bilingual.jsonl` searches the whole pool (both languages) with each
mode. Per language: recall@1 and recall@5 (share of a question's relevant
memories in the top k, averaged) and MRR (1 / rank of the first relevant
memory within the top 10, else 0).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app.benchmarks.common import drain_index, pct, percentile, scratch_engine, semantic_available
from app.benchmarks.machine import machine, machine_line
from app.engine import Engine
from app.errors import InvalidInput

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
MEMORIES = "retrieval_memories.jsonl"
QUESTIONS = "retrieval_bilingual.jsonl"
AGENT = "retrieval-bench"
DEPTH = 10


def _jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"Cannot read {str(path)!r}: {exc}.") from None


def load_memories(engine: Engine, memories: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Remember every memory; data id -> engine memory id (what it became)."""
    engine.add_agent(AGENT)
    out: dict[str, int] = {}
    for m in memories:
        result = engine.remember(AGENT, m["text"], m["category"], actor="owner")
        if result.memory is not None:
            out[m["id"]] = result.memory.id
    return out


def score(ranked: Sequence[int], relevant: set[int]) -> dict[str, float]:
    """recall@1, recall@5 and reciprocal rank of one question."""
    rr = next((1.0 / (r + 1) for r, i in enumerate(ranked[:DEPTH]) if i in relevant), 0.0)
    return {
        "recall@1": len(relevant & set(ranked[:1])) / len(relevant),
        "recall@5": len(relevant & set(ranked[:5])) / len(relevant),
        "mrr": rr,
    }


def _mean(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    keys = ("recall@1", "recall@5", "mrr")
    return {k: round(sum(r[k] for r in rows) / len(rows), 4) if rows else 0.0 for k in keys}


def run(
    data_dir: str | Path | None = None,
    *,
    modes: Sequence[str] = ("fulltext", "semantic", "hybrid"),
    home: str | Path | None = None,
    engine_factory: Callable[..., Any] | None = None,
) -> dict[str, Any]:
    """Load, index, ask in each mode; the report per mode and language."""
    folder = Path(data_dir) if data_dir else DEFAULT_DATA
    memories = _jsonl(folder / MEMORIES)
    questions = _jsonl(folder / QUESTIONS)
    factory = engine_factory or scratch_engine
    by_mode: dict[str, Any] = {}
    with factory(home) as engine:
        t0 = time.perf_counter()
        ids = load_memories(engine, memories)
        t_load = time.perf_counter()
        drain_index(engine)
        t_index = time.perf_counter()
        semantic = semantic_available(engine)
        for mode in modes:
            if mode in ("semantic", "hybrid") and not semantic:
                by_mode[mode] = {"available": False}
                continue
            rows: dict[str, list[dict[str, float]]] = {}
            latencies = []
            for q in questions:
                relevant = {ids[r] for r in q["relevant"] if r in ids}
                if not relevant:
                    continue
                start = time.perf_counter()
                hits = engine.search(AGENT, q["question"], mode=mode, limit=DEPTH).hits
                latencies.append(1000 * (time.perf_counter() - start))
                rows.setdefault(q["lang"], []).append(score([h.id for h in hits], relevant))
            by_mode[mode] = {
                "available": True,
                "by_language": {
                    lang: {"questions": len(r), **_mean(r)} for lang, r in sorted(rows.items())
                },
                "overall": _mean([x for r in rows.values() for x in r]),
                "search_ms": {
                    "p50": round(percentile(latencies, 50), 2),
                    "p95": round(percentile(latencies, 95), 2),
                },
            }
    return {
        "bench": "retrieval",
        "data": str(folder),
        "memories": len(memories),
        "stored": len(set(ids.values())),
        "questions": len(questions),
        "semantic_index": semantic,
        "modes": by_mode,
        "seconds": {"remember": round(t_load - t0, 2), "index": round(t_index - t_load, 2)},
        "machine": machine(),
    }


def render(report: dict[str, Any]) -> str:
    lines = [
        machine_line(report["machine"]),
        f"Bilingual retrieval {report['data']}: {report['memories']} memories "
        f"({report['stored']} stored), {report['questions']} questions; semantic index "
        f"{'on' if report['semantic_index'] else 'off'}",
        f"{'mode':10}{'lang':6}{'n':>4}{'recall@1':>10}{'recall@5':>10}{'MRR':>7}",
    ]
    for mode, m in report["modes"].items():
        if not m["available"]:
            lines.append(f"{mode:10}(needs the vector index: not available in this home)")
            continue
        for lang, r in [*m["by_language"].items(), ("all", m["overall"])]:
            n = r.get("questions", "")
            lines.append(
                f"{mode:10}{lang:6}{n!s:>4}{pct(r['recall@1']):>10}{pct(r['recall@5']):>10}"
                f"{r['mrr']:>7.3f}"
            )
        lines.append(
            f"{'':10}search p50 {m['search_ms']['p50']} ms, p95 {m['search_ms']['p95']} ms"
        )
    return "\n".join(lines)
