"""The foundation's figures: tape appends, `remember`, and `memory list` on 100k memories.

Everything is measured through the Engine API on a temporary home; only the
setup of the 100k-memory home uses direct batched inserts (that is not what is
measured). Targets are printed beside each figure; nothing here asserts time.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.benchmarks import machine
from app.db import dbapi
from app.engine import Engine, runtime_of
from app.text import memory_hash


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    unit: str
    target: float
    higher_is_better: bool
    detail: str = ""
    # The same figure from this process's CPU time: on a shared, busy machine the
    # wall-clock figure also counts time the scheduler gave to other processes.
    cpu_value: float | None = None

    @property
    def met(self) -> bool:
        return self.value >= self.target if self.higher_is_better else self.value <= self.target


@dataclass(frozen=True)
class Report:
    machine: dict[str, Any]
    figures: tuple[Figure, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "figures": [{**asdict(f), "met": f.met} for f in self.figures],
        }


def _entries(n: int, start: int = 0) -> list[dict[str, Any]]:
    out = []
    for i in range(start, start + n):
        text = (
            f"user asked to run the test suite before commit #{i}"
            if i % 2
            else f"用户要求每次提交前先跑测试，第 {i} 次"
        )
        out.append(
            {
                "thread": f"t{i // 200}",
                "turn": f"u{i // 4}",
                "kind": ("message", "tool_call", "tool_result", "message")[i % 4],
                "role": ("user", "assistant", "tool", "assistant")[i % 4],
                "text": text,
            }
        )
    return out


def _rates(count: int, start: float, cpu_start: float) -> tuple[float, float]:
    wall = time.perf_counter() - start
    cpu = max(time.process_time() - cpu_start, 1e-9)
    return count / wall, count / cpu


def _open(root: Path, name: str) -> Engine:
    engine = Engine.open(root / name, create=True)
    engine.add_agent("bench")
    return engine


def batched_append(root: Path, total: int, batch: int) -> Figure:
    with _open(root, "batched") as engine:
        entries = _entries(total)
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(0, total, batch):
            engine.append("bench", entries[i : i + batch])
        rate, cpu_rate = _rates(total, start, cpu)
    return Figure(
        "batched tape append",
        rate,
        "entries/s",
        20_000,
        True,
        f"{total} entries, {batch}/batch",
        cpu_rate,
    )


def single_append(root: Path, total: int) -> Figure:
    with _open(root, "single") as engine:
        entries = _entries(total)
        start, cpu = time.perf_counter(), time.process_time()
        for e in entries:
            engine.append("bench", [e])
        rate, cpu_rate = _rates(total, start, cpu)
    return Figure(
        "single-entry append",
        rate,
        "appends/s",
        1_000,
        True,
        f"{total}, one transaction each",
        cpu_rate,
    )


def remember_rate(root: Path, total: int) -> Figure:
    with _open(root, "remember") as engine:
        ids = engine.append("bench", _entries(100)).ids
        texts = [
            f"Lin prefers tabs in project {i}" if i % 2 else f"项目 {i} 的部署脚本在 ops 目录"
            for i in range(total)
        ]
        # Every tenth call repeats an earlier text: the hash dedup path is timed too.
        texts = [texts[i - 5] if i % 10 == 9 else t for i, t in enumerate(texts)]
        start, cpu = time.perf_counter(), time.process_time()
        for i, text in enumerate(texts):
            engine.remember("bench", text, "preference", sources=[ids[i % len(ids)]])
        rate, cpu_rate = _rates(total, start, cpu)
    return Figure(
        "remember (intake + hash dedup)",
        rate,
        "memories/s",
        1_000,
        True,
        f"{total} calls, 10% duplicates",
        cpu_rate,
    )


def _seed_memories(engine: Engine, agent: str, total: int) -> None:
    """Setup only: `total` memories with provenance, inserted in batches."""
    source = engine.append(agent, _entries(1))
    agent_id = engine.agent(agent).id
    now = "2026-11-01T09:00:00.000000Z"
    with runtime_of(engine).store.write() as s:
        db = dbapi(s)
        for lo in range(1, total + 1, 10_000):
            chunk = range(lo, min(total + 1, lo + 10_000))
            texts = [(i, f"memory {i}: 用户偏好 {i % 97} prefers option {i}") for i in chunk]
            db.executemany(
                "INSERT INTO memories (id, agent_id, category, text, content_hash, importance, "
                "confidence, status, version, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, 0.5, 0.8, 'active', 1, ?, ?)",
                [
                    (i, agent_id, ("preference", "lesson")[i % 2], t, memory_hash(t), now, now)
                    for i, t in texts
                ],
            )
            db.executemany(
                "INSERT INTO memory_versions VALUES (?, 1, ?, ?, ?, 'agent', 'created')",
                [(i, t, memory_hash(t), now) for i, t in texts],
            )
            db.executemany(
                "INSERT INTO provenance (memory_id, entry_id) VALUES (?, ?)",
                [(i, source.ids[0]) for i, _ in texts],
            )


def list_latency(root: Path, total: int, calls: int) -> tuple[Figure, Figure]:
    with _open(root, "list") as engine:
        engine.add_agent("other")
        _seed_memories(engine, "bench", total)
        engine.remember("other", "另一个 agent 的记忆 / another agent's memory", "lesson")
        engine.memories("bench", limit=50)  # warm the page cache, as a running app would
        samples, cpu_samples = [], []
        for _ in range(calls):
            start, cpu = time.perf_counter(), time.thread_time()
            page = engine.memories("bench", limit=50)
            samples.append((time.perf_counter() - start) * 1000)
            cpu_samples.append((time.thread_time() - cpu) * 1000)
        assert len(page) == 50
    detail = f"{total} memories, first page of 50, {calls} calls"
    return (
        Figure(
            "memory list first page p50",
            statistics.median(samples),
            "ms",
            20,
            False,
            detail,
            statistics.median(cpu_samples),
        ),
        Figure(
            "memory list first page p95",
            statistics.quantiles(samples, n=20)[-1],
            "ms",
            20,
            False,
            detail,
            statistics.quantiles(cpu_samples, n=20)[-1],
        ),
    )


def run(*, quick: bool = False, progress: Callable[[str], None] | None = None) -> Report:
    """Measure every figure on a temporary home. `quick` shrinks the sizes (for
    smoke tests; its figures are not comparable with the targets)."""
    say = progress or (lambda _msg: None)
    scale = 50 if quick else 1
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="tapemind-bench-") as tmp:
        root = Path(tmp)
        say("batched append…")
        figures.append(batched_append(root, 100_000 // scale, 5_000 // scale))
        say("single appends…")
        figures.append(single_append(root, 2_000 // scale))
        say("remember…")
        figures.append(remember_rate(root, 2_000 // scale))
        say("memory list on 100k memories…")
        figures.extend(list_latency(root, 100_000 // scale, 200 // scale))
    return Report(machine.describe(), tuple(figures))


def _num(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def format_report(report: Report) -> str:
    lines = ["Tapemind foundation benchmark"]
    lines += [f"  {k}: {v}" for k, v in report.machine.items()]
    load = machine.load()
    if load:
        lines.append(f"  load average: {load} (figures are wall-clock; cpu = this process only)")
    lines.append("")
    for f in report.figures:
        op = "≥" if f.higher_is_better else "≤"
        verdict = "ok" if f.met else "MISSED"
        cpu = f"  [cpu {_num(f.cpu_value)}]" if f.cpu_value is not None else ""
        lines.append(
            f"  {f.name:<32} {_num(f.value):>10} {f.unit:<11} target {op} {f.target:,g}  "
            f"{verdict}{cpu}  ({f.detail})"
        )
    return "\n".join(lines)
