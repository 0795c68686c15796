"""LongMemEval_S turn and session recall through the product's search.

Each question is its own agent, with its own haystack: each haystack session a thread
(named by its session id), each turn a tape message with its role (user or assistant),
dated by the session's `haystack_dates` entry (turns 30 s apart, so they keep their
order) and keeping its place in `meta` ("turn": "S:T", session S of the haystack, turn T
of it). Sessions are appended oldest first, as an agent would have written them. The
question is asked with `engine.search(scope="tape")` on a clock set to its
`question_date`. Abstention questions (id ending `_abs`) have no evidence and are left out.

Measures, per question against its own haystack, averaged over questions:
- turn recall_all@k: every `has_answer` turn is among the top k hits (1 or 0);
- turn recall_any@k: at least one is;
- session recall_all@k: every answer session is among the first k distinct sessions of
  the ranking (a ranking of turns, read `DEPTH` deep).
A plain BM25 over the same turn texts (`app.benchmarks.bm25`), per question, is computed
in the same run as the baseline.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.benchmarks.bm25 import BM25
from app.benchmarks.common import drain_index, pct, percentile, scratch_engine, semantic_available
from app.benchmarks.machine import machine, machine_line
from app.clock import ManualClock
from app.engine import Engine
from app.errors import InvalidInput
from app.models import NewEntry

QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
KS = (5, 10)
# Hits read per question: enough distinct sessions for session recall@10.
DEPTH = 50
MEASURES = tuple(
    f"{name}@{k}"
    for name in ("turn_recall_all", "turn_recall_any", "session_recall_all")
    for k in KS
)
TARGETS = {"turn_recall_all@5": 0.70, "turn_recall_all@10": 0.82, "session_recall_all@5": 0.92}
AGENT_PREFIX = "lme-"
TURN_GAP = timedelta(seconds=30)


@dataclass(frozen=True)
class Turn:
    """One haystack turn; `key` is "S:T" (session S of the haystack, turn T of it)."""

    key: str
    session: str
    role: str
    text: str
    when: datetime
    has_answer: bool


@dataclass(frozen=True)
class Question:
    question_id: str
    question_type: str
    text: str
    asked_at: datetime
    turns: tuple[Turn, ...]
    answer_sessions: tuple[str, ...]

    @property
    def answer_turns(self) -> tuple[str, ...]:
        return tuple(t.key for t in self.turns if t.has_answer)

    @property
    def agent(self) -> str:
        return AGENT_PREFIX + self.question_id


def parse_date(value: str) -> datetime:
    """'2023/05/21 (Sun) 19:50' -> an aware datetime (taken as UTC)."""
    cleaned = " ".join(part for part in str(value).split() if not part.startswith("("))
    for fmt in ("%Y/%m/%d %H:%M", "%Y/%m/%d"):
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise InvalidInput(f"Unreadable LongMemEval date {value!r}: expected '2023/05/21 (Sun) 19:50'.")


def read_json(path: str | Path) -> Any:
    """A JSON file, gzipped or plain (told apart by its first bytes, not its name)."""
    try:
        raw = Path(path).read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        return json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, EOFError) as exc:
        raise InvalidInput(f"Cannot read LongMemEval data {str(path)!r}: {exc}.") from None


def _turns(item: dict[str, Any]) -> list[Turn]:
    sessions = item.get("haystack_sessions") or []
    ids = item.get("haystack_session_ids") or []
    dates = item.get("haystack_dates") or []
    if not (len(sessions) == len(ids) == len(dates)):
        raise InvalidInput(
            f"Question {item.get('question_id')!r}: haystack_sessions, haystack_session_ids "
            "and haystack_dates must have one entry per session."
        )
    out = []
    for s, (session_id, date, turns) in enumerate(zip(ids, dates, sessions, strict=True)):
        start = parse_date(date)
        for t, turn in enumerate(turns):
            role = str(turn.get("role", "user"))
            out.append(
                Turn(
                    key=f"{s}:{t}",
                    session=str(session_id),
                    role=role if role in ("user", "assistant") else "user",
                    text=str(turn.get("content", "")),
                    when=start + t * TURN_GAP,
                    has_answer=bool(turn.get("has_answer")),
                )
            )
    return out


def load(path: str | Path) -> list[Question]:
    """Read a LongMemEval-format file (a JSON list of questions, gzipped or plain);
    abstention questions and questions without evidence are left out."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InvalidInput("LongMemEval data must be a JSON list of questions.")
    out = []
    for item in data:
        qid = str(item.get("question_id", ""))
        if not qid or qid.endswith("_abs"):
            continue
        turns = _turns(item)
        question = Question(
            question_id=qid,
            question_type=str(item.get("question_type", "")),
            text=str(item.get("question", "")),
            asked_at=parse_date(item.get("question_date", "")),
            turns=tuple(turns),
            answer_sessions=tuple(str(a) for a in item.get("answer_session_ids") or []),
        )
        if question.answer_turns and question.text.strip():
            out.append(question)
    return out


def _threads(turns: Sequence[Turn]) -> dict[str, str]:
    """Session position -> thread name: the session id, numbered when a haystack holds
    the same session twice (each copy stays its own thread)."""
    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    for t in turns:
        s = t.key.split(":")[0]
        if s not in out:
            seen[t.session] = seen.get(t.session, 0) + 1
            n = seen[t.session]
            out[s] = t.session if n == 1 else f"{t.session} ({n})"
    return out


def ingest(
    engine: Engine, q: Question, *, agent: str | None = None, max_turns: int | None = None
) -> int:
    """Create the question's agent (or `agent`) and append its haystack, oldest session
    first, up to `max_turns` turns; the number of entries written. An agent already
    there (a kept home) is reused."""
    name = agent or q.agent
    if any(a.name == name for a in engine.agents()):
        return 0
    engine.add_agent(name)
    threads = _threads(q.turns)
    by_session: dict[str, list[Turn]] = {}
    for t in q.turns:
        by_session.setdefault(t.key.split(":")[0], []).append(t)
    order = sorted(by_session, key=lambda s: (by_session[s][0].when, int(s)))
    written = 0
    for s in order:
        room = len(by_session[s]) if max_turns is None else max_turns - written
        if room <= 0:
            break
        entries = [
            NewEntry(
                thread=threads[s],
                kind="message",
                role=t.role,
                text=t.text,
                created_at=t.when,
                meta={"turn": t.key},
            )
            for t in by_session[s][:room]
        ]
        written += len(engine.append(name, entries).ids)
    return written


def _first_sessions(ranked: Iterable[str], k: int) -> list[str]:
    out: list[str] = []
    for session in ranked:
        if session not in out:
            out.append(session)
            if len(out) == k:
                break
    return out


def measures(q: Question, ranked: Sequence[str]) -> dict[str, float]:
    """The question's measures for a ranking of turn keys ("S:T"), best first."""
    answer = set(q.answer_turns)
    session_of = {t.key: t.session for t in q.turns}
    sessions = set(q.answer_sessions)
    out = {}
    for k in KS:
        top = set(ranked[:k])
        first = set(_first_sessions((session_of[r] for r in ranked if r in session_of), k))
        out[f"turn_recall_all@{k}"] = float(answer <= top)
        out[f"turn_recall_any@{k}"] = float(bool(answer & top))
        out[f"session_recall_all@{k}"] = float(sessions <= first)
    return {m: out[m] for m in MEASURES}


def _mean(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    n = len(rows)
    return {m: round(sum(r[m] for r in rows) / n, 4) if n else 0.0 for m in MEASURES}


def _summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        **_mean([r["product"] for r in rows]),
        "baseline_bm25": _mean([r["bm25"] for r in rows]),
    }


def ask(
    engine: Engine, clock: ManualClock | None, q: Question, mode: str
) -> tuple[list[str], float]:
    """The product's ranking of turn keys for `q`, and the search's milliseconds."""
    if clock is not None:
        clock.set(q.asked_at)
    start = time.perf_counter()
    result = engine.search(q.agent, q.text, scope="tape", mode=mode, limit=DEPTH)
    ms = 1000 * (time.perf_counter() - start)
    ranked = [str(h.entry.meta.get("turn", "")) for h in result.hits if h.entry is not None]
    return ranked, ms


def baseline(q: Question) -> list[str]:
    """A plain BM25's ranking of turn keys for `q`, over its own haystack."""
    index = BM25([t.text for t in q.turns])
    return [q.turns[i].key for i in index.top(q.text, DEPTH)]


def run(
    data: str | Path,
    *,
    mode: str = "hybrid",
    limit: int | None = None,
    home: str | Path | None = None,
    engine_factory: Callable[..., Any] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Ingest, index, ask, score. `home`: build the benchmark home there and keep it (a
    later run on it asks again without ingesting or embedding). See the module doc."""
    questions = load(data)[: limit or None]
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    clock = ManualClock(min((q.asked_at for q in questions), default=None))
    t0 = time.perf_counter()
    factory = engine_factory or scratch_engine
    with factory(home, clock=clock) as engine:
        semantic = semantic_available(engine)
        if mode == "semantic" and not semantic:
            raise InvalidInput("Semantic mode needs the vector index; use --mode fulltext.")
        written = 0
        for q in questions:
            clock.set(q.asked_at)
            written += ingest(engine, q)
        t_ingest = time.perf_counter()
        # Full-text needs no vectors: embedding ~40k long turns takes minutes.
        embedded = drain_index(engine) if mode != "fulltext" else 0
        t_index = time.perf_counter()
        for n, q in enumerate(questions, 1):
            ranked, ms = ask(engine, clock, q, mode)
            latencies.append(ms)
            rows.append(
                {
                    "type": q.question_type,
                    "product": measures(q, ranked),
                    "bm25": measures(q, baseline(q)),
                }
            )
            if progress and n % 20 == 0:
                progress(f"{n}/{len(questions)} questions asked")
    t_end = time.perf_counter()
    types = [t for t in QUESTION_TYPES if any(r["type"] == t for r in rows)]
    types += sorted({r["type"] for r in rows} - set(types))
    overall = _summary(rows)
    return {
        "bench": "longmemeval",
        "data": str(data),
        "mode": mode,
        "semantic_index": semantic,
        "questions": len(rows),
        "turns": sum(len(q.turns) for q in questions),
        "measure": "turn recall_all/any@k: every/any evidence turn in the top k; session "
        "recall_all@k: every answer session among the first k distinct sessions",
        "overall": {m: overall[m] for m in MEASURES},
        "baseline_bm25": overall["baseline_bm25"],
        "by_type": {t: _summary([r for r in rows if r["type"] == t]) for t in types},
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


_COLUMNS = (
    ("turn all@5", "turn_recall_all@5"),
    ("@10", "turn_recall_all@10"),
    ("any@5", "turn_recall_any@5"),
    ("@10", "turn_recall_any@10"),
    ("session@5", "session_recall_all@5"),
    ("@10", "session_recall_all@10"),
)


def _line(label: str, figures: dict[str, float], n: Any = "") -> str:
    cells = "".join(f"{pct(figures[key]):>{max(len(head) + 2, 9)}}" for head, key in _COLUMNS)
    return f"{label:30}{n!s:>4}{cells}"


def render(report: dict[str, Any]) -> str:
    """The report as text lines: the product and BM25 overall and per question type."""
    head = "".join(f"{h:>{max(len(h) + 2, 9)}}" for h, _ in _COLUMNS)
    lines = [
        machine_line(report["machine"]),
        f"LongMemEval {report['data']}: {report['questions']} questions (no abstention), "
        f"{report['turns']} turns; mode {report['mode']}, semantic index "
        f"{'on' if report['semantic_index'] else 'off'}",
        f"{'':30}{'n':>4}{head}",
        _line("tapemind", report["overall"], report["questions"]),
        _line("BM25 baseline", report["baseline_bm25"]),
    ]
    for name, t in report["by_type"].items():
        lines.append(_line(f"  {name}", t, t["questions"]))
        lines.append(_line("    BM25", t["baseline_bm25"]))
    targets = ", ".join(f"{k} ≥ {pct(v).strip()}" for k, v in report["targets"].items())
    s = report["search_ms"]
    lines.append(f"targets: {targets}")
    lines.append(
        f"search latency p50 {s['p50']} ms, p95 {s['p95']} ms; seconds {report['seconds']}"
    )
    return "\n".join(lines)
