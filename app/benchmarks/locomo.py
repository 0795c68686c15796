"""LoCoMo evidence recall through the product's search.

Each conversation becomes its own agent, each session a thread, each dialogue
turn a tape message (text "Speaker: words", plus the caption of a shared image)
dated with its session's date and keeping its `dia_id` in `meta`. Every
question of categories 1-4 is asked against its own conversation with
`engine.search(scope="tape")`.

Evidence recall@k of a question = the share of its evidence dia_ids found among
the top k results (the standard LoCoMo retrieval measure); averaged over the
questions that name at least one real turn. A plain BM25 over the same turn
texts (`app.benchmarks.bm25`) is computed in the same run as the baseline.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.benchmarks.bm25 import BM25
from app.benchmarks.common import drain_index, percentile, scratch_engine, semantic_available
from app.benchmarks.machine import machine
from app.engine import Engine
from app.errors import InvalidInput
from app.models import NewEntry

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10)
TARGETS = {"recall@5": 0.60, "recall@10": 0.70}
_SESSION = re.compile(r"^session_(\d+)$")
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    when: datetime

    @property
    def document(self) -> str:
        return self.text


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def parse_when(value: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (taken as UTC)."""
    cleaned = " ".join(value.replace(",", " ").split())
    for fmt in ("%I:%M %p on %d %B %Y", "%I:%M %p on %d %b %Y", "%d %B %Y"):
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise InvalidInput(f"Unreadable LoCoMo session date {value!r}.")


def parse_evidence(raw: Iterable[Any], known: set[str]) -> tuple[str, ...]:
    """Normalise evidence ids ('D8:6; D9:17', 'D:11:26', 'D30:05'); keep real turns only."""
    out: list[str] = []
    for item in raw:
        for sess, turn in _EVIDENCE.findall(str(item)):
            dia = f"D{int(sess)}:{int(turn)}"
            if dia in known and dia not in out:
                out.append(dia)
    return tuple(out)


def turn_text(speaker: str, text: str, caption: str | None) -> str:
    body = f"{speaker}: {text}"
    return f"{body} [shares an image: {caption}]" if caption else body


def load(path: str | Path, max_turns: int | None = None) -> list[Conversation]:
    """Read a LoCoMo-format JSON file (a list of samples). `max_turns` truncates each
    conversation (questions whose evidence falls outside are then dropped)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"Cannot read LoCoMo data {str(path)!r}: {exc}.") from None
    if not isinstance(data, list):
        raise InvalidInput("LoCoMo data must be a JSON list of samples.")
    out = []
    for index, sample in enumerate(data):
        conv = sample.get("conversation") or {}
        sessions = sorted(int(m.group(1)) for k in conv if (m := _SESSION.match(k)))
        turns: list[Turn] = []
        for n in sessions:
            start = parse_when(str(conv.get(f"session_{n}_date_time", "")))
            for i, t in enumerate(conv[f"session_{n}"]):
                if max_turns is not None and len(turns) >= max_turns:
                    break
                text = turn_text(str(t["speaker"]), str(t.get("text", "")), t.get("blip_caption"))
                when = start + timedelta(seconds=30 * i)  # keeps the spoken order
                turns.append(Turn(str(t["dia_id"]), n, str(t["speaker"]), text, when))
        known = {t.dia_id for t in turns}
        questions = []
        for qa in sample.get("qa") or []:
            category = int(qa.get("category", 0))
            if category not in CATEGORIES:
                continue
            evidence = parse_evidence(qa.get("evidence") or [], known)
            if evidence:
                questions.append(Question(str(qa["question"]), category, evidence))
        sample_id = str(sample.get("sample_id") or f"conv-{index}")
        out.append(Conversation(sample_id, tuple(turns), tuple(questions)))
    return out


def ingest(engine: Engine, conv: Conversation) -> tuple[str, dict[int, str]]:
    """Create the conversation's agent and append its turns; (agent, entry id -> dia_id)."""
    agent = f"locomo-{conv.sample_id}"
    engine.add_agent(agent)
    id_to_dia: dict[int, str] = {}
    by_session: dict[int, list[Turn]] = {}
    for t in conv.turns:
        by_session.setdefault(t.session, []).append(t)
    for session, turns in by_session.items():
        entries = [
            NewEntry(
                thread=f"session_{session}",
                kind="message",
                role="user",
                user=t.speaker,
                text=t.text,
                created_at=t.when,
                meta={"dia_id": t.dia_id},
            )
            for t in turns
        ]
        result = engine.append(agent, entries)
        id_to_dia.update(zip(result.ids, (t.dia_id for t in turns), strict=True))
    return agent, id_to_dia


def recall_at(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Share of `evidence` found among the first k of `ranked`."""
    top = set(ranked[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def _summary(rows: Sequence[dict[str, Any]], key: str) -> dict[str, float]:
    n = len(rows)
    return {f"recall@{k}": round(sum(r[key][k] for r in rows) / n, 4) if n else 0.0 for k in KS}


def run(
    data: str | Path,
    *,
    mode: str = "hybrid",
    limit_conversations: int | None = None,
    max_turns: int | None = None,
    home: str | Path | None = None,
    engine_factory: Callable[..., Any] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Ingest, index, ask, score. Returns the report (see the module doc for the measure)."""
    convs = load(data, max_turns)[: limit_conversations or None]
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    t0 = time.perf_counter()
    factory = engine_factory or scratch_engine
    with factory(home) as engine:
        semantic = semantic_available(engine)
        if mode in ("semantic",) and not semantic:
            raise InvalidInput("Semantic mode needs the vector index; use --mode fulltext.")
        agents = [(conv, *ingest(engine, conv)) for conv in convs]
        t_ingest = time.perf_counter()
        embedded = drain_index(engine)
        t_index = time.perf_counter()
        for conv, agent, id_to_dia in agents:
            baseline = BM25([t.document for t in conv.turns])
            dias = [t.dia_id for t in conv.turns]
            for q in conv.questions:
                start = time.perf_counter()
                result = engine.search(agent, q.text, scope="tape", mode=mode, limit=max(KS))
                latencies.append(1000 * (time.perf_counter() - start))
                ranked = [id_to_dia.get(h.id, "") for h in result.hits]
                base = [dias[i] for i in baseline.top(q.text, max(KS))]
                rows.append(
                    {
                        "category": q.category,
                        "product": {k: recall_at(ranked, q.evidence, k) for k in KS},
                        "bm25": {k: recall_at(base, q.evidence, k) for k in KS},
                    }
                )
            if progress:
                progress(f"{conv.sample_id}: {len(conv.questions)} questions")
    t_end = time.perf_counter()
    by_category = {}
    for cat, name in CATEGORIES.items():
        sub = [r for r in rows if r["category"] == cat]
        by_category[str(cat)] = {
            "name": name,
            "questions": len(sub),
            **_summary(sub, "product"),
            "baseline_bm25": _summary(sub, "bm25"),
        }
    return {
        "bench": "locomo",
        "data": str(data),
        "mode": mode,
        "semantic_index": semantic,
        "conversations": len(convs),
        "turns": sum(len(c.turns) for c in convs),
        "questions": len(rows),
        "measure": "evidence recall@k: share of a question's evidence dia_ids in the top k, "
        "averaged over questions of categories 1-4",
        "overall": _summary(rows, "product"),
        "baseline_bm25": _summary(rows, "bm25"),
        "by_category": by_category,
        "targets": TARGETS,
        "search_ms": {
            "p50": round(percentile(latencies, 50), 2),
            "p95": round(percentile(latencies, 95), 2),
        },
        "seconds": {
            "ingest": round(t_ingest - t0, 2),
            "index": round(t_index - t_ingest, 2),
            "ask": round(t_end - t_index, 2),
        },
        "embedded": embedded,
        "machine": machine(),
    }


def render(report: dict[str, Any]) -> str:
    """The report as text lines, figures next to targets."""
    from app.benchmarks.common import pct
    from app.benchmarks.machine import machine_line

    o, b = report["overall"], report["baseline_bm25"]
    lines = [
        machine_line(report["machine"]),
        f"LoCoMo {report['data']}: {report['conversations']} conversations, "
        f"{report['turns']} turns, {report['questions']} questions (cat 1-4); "
        f"mode {report['mode']}, semantic index {'on' if report['semantic_index'] else 'off'}",
        f"{'':14}{'recall@5':>10}{'recall@10':>11}",
        f"{'tapemind':14}{pct(o['recall@5']):>10}{pct(o['recall@10']):>11}",
        f"{'BM25 baseline':14}{pct(b['recall@5']):>10}{pct(b['recall@10']):>11}",
        f"{'target':14}{'≥' + pct(TARGETS['recall@5']).strip():>10}"
        f"{'≥' + pct(TARGETS['recall@10']).strip():>11}",
    ]
    for cat, c in report["by_category"].items():
        lines.append(
            f"  {cat} {c['name']:<11}{pct(c['recall@5']):>10}{pct(c['recall@10']):>11}"
            f"   (BM25 {pct(c['baseline_bm25']['recall@5']).strip()} / "
            f"{pct(c['baseline_bm25']['recall@10']).strip()}, {c['questions']} q)"
        )
    s = report["search_ms"]
    lines.append(
        f"search latency p50 {s['p50']} ms, p95 {s['p95']} ms; seconds {report['seconds']}"
    )
    return "\n".join(lines)
