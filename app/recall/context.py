"""Recall mode 1, injection: `context`, the call an agent makes at the start of every turn.

Few parameters, good defaults. Candidates come from routes:
- thread: recent memories of this thread;
- user: recent memories about this user;
- query: memories relevant to the query (full-text, plus semantic when the
  vector index is available); semantic neighbours under the model's similarity
  floor, and full-text hits sharing only single Chinese characters with a query
  whose words other hits share (`app.recall.lexical_signal`), are below relevance;
- core: the agent's strongest memories (important preferences and facts),
  so even a bare call returns something useful. When the query route found a
  relevant memory, a core memory it did not find is left out: the query says
  what the turn is about, and filling the budget with the agent's strongest
  unrelated memories buries the answer (a Chinese question about drinks got 17
  memories, 9 of them core-only); a pinned one (importance 0.9 or more) stays.
  Thread and user memories are injected whatever the query: the conversation's own
  recent memories are context by design.
A memory about a person (its `user`) is injected only for that person when the call
names one, and its line says whom it is about.
The routes (`app.recall.routes`) are fused with weighted reciprocal rank fusion, each candidate
weighted by its current strength (`app.memory.strength`), and packed greedily under a
hard token budget (`app.text.tokens`). The result is the block to inject plus a
manifest: what was included, what was dropped and why (over_budget,
below_relevance, archived), tokens used. Every call is stored as a recall
record and counts as a recall for the memories it injected.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from sqlmodel import col, select

from app.db import RecallRow, Tx, dbapi, id_list
from app.errors import InvalidInput
from app.events import record
from app.limits import MAX_BUDGET, MAX_QUERY_CHARS
from app.memory import anchor_time, strength
from app.models import AgentSettings
from app.recall.fusion import ROUTE_K, rrf
from app.recall.routes import core, query_route, recent
from app.runtime import AgentLike, Runtime, agent_ref, agent_row
from app.text import count_tokens, one_line

ROUTE_WEIGHTS = {"query": 1.0, "thread": 0.8, "user": 0.6, "core": 0.35}
HEADER = "Memories (tapemind; cite [m<id>] when you use one):"

_OPEN_CONFLICTS_SQL = (
    "SELECT existing_id, challenger_id FROM conflicts WHERE agent_id = ? AND status = 'open'"
)
INSERT_RECALL_SQL = (
    'INSERT INTO recalls (agent_id, at, mode, thread, "user", query, budget, '
    "tokens_used, included, dropped, over_budget, latency_ms) "
    "VALUES (?, ?, 'context', ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"
)
_CANDIDATE_COLUMNS = (
    "id, category, text, created_at, status, importance, use_count, "
    'last_recalled_at, last_used_at, last_reinforced_at, "user"'
)


class _Candidate(NamedTuple):
    """What packing needs of a memory (read without the ORM; a tuple, not a frozen
    dataclass: ~50 are built per call, and a frozen dataclass's __init__ costs ~2 µs)."""

    id: int
    category: str
    text: str
    created_at: str
    status: str
    importance: float
    use_count: int
    last_recalled_at: str | None
    last_used_at: str | None
    last_reinforced_at: str | None
    user: str | None  # the person the memory is about, if any


@dataclass(frozen=True)
class ContextItem:
    memory_id: int
    category: str
    text: str
    score: float
    routes: tuple[str, ...]
    tokens: int


@dataclass(frozen=True)
class DroppedItem:
    memory_id: int
    reason: str  # over_budget | below_relevance | archived
    score: float


@dataclass(frozen=True)
class ContextBlock:
    """The text to inject and its manifest."""

    text: str
    included: tuple[ContextItem, ...]
    dropped: tuple[DroppedItem, ...]
    tokens_used: int
    budget: int
    recall_id: int
    latency_ms: float

    @property
    def included_ids(self) -> tuple[int, ...]:
        return tuple(i.memory_id for i in self.included)


_HEADER_TOKENS = count_tokens(HEADER) + 1


def dropped_summary(reasons: Iterable[str]) -> str:
    """How many memories were left out and why: "20 over budget, 3 below relevance"."""
    counts: dict[str, int] = {}
    for reason in reasons:
        counts[reason] = counts.get(reason, 0) + 1
    return ", ".join(f"{n} {r.replace('_', ' ')}" for r, n in counts.items())


# What could pass for the block's own structure inside a memory's text: line breaks (a text
# holding "\n- [m1] (preference, …) …" would add a memory line of its own, and
# "\n\n(9 memories, …)" a manifest), and the block's citation marks ([m12]).
_CITATION = re.compile(r"\[(m\d+)\]", re.IGNORECASE)


def block_line(text: str) -> str:
    """`text` as one line of the block: on one line, and a citation mark inside it loses
    its brackets, so only the block itself writes "- [m<id>]"."""
    return _CITATION.sub(r"\1", one_line(text))


def _line(row: _Candidate, disputed: Sequence[int] = ()) -> str:
    # A memory about a person says whom: "用户要求 4 个空格缩进" is about that user only.
    about = f", about {block_line(row.user)}" if row.user else ""
    # Both sides of an open conflict stay active until the owner settles it: each says so,
    # or a model reads two contradicting memories as two facts.
    against = "".join(f"; disputed by m{other}, not settled" for other in disputed)
    text = block_line(row.text)
    return f"- [m{row.id}] ({row.category}{about}, {row.created_at[:10]}{against}) {text}"


def _disputes(s: Tx, arow: AgentLike) -> dict[int, list[int]]:
    """memory id -> the memories it is in an open conflict with (indexed; mostly none)."""
    out: dict[int, list[int]] = {}
    for existing, challenger in dbapi(s).execute(_OPEN_CONFLICTS_SQL, (arow.id,)):
        out.setdefault(int(existing), []).append(int(challenger))
        out.setdefault(int(challenger), []).append(int(existing))
    return out


@lru_cache(maxsize=8192)
def _line_tokens(line: str) -> int:
    """Tokens of a packed line: the same memories come back turn after turn, and
    counting ~100 candidates' lines by regex was a fifth of a context call."""
    return count_tokens(line) + 1


@lru_cache(maxsize=256)
def _settings(stored: str) -> AgentSettings:
    """An agent's settings from their stored JSON (frozen, so one parse per distinct text)."""
    return AgentSettings.parse(stored)


def _candidates(s: Tx, ids: Sequence[int]) -> dict[int, _Candidate]:
    if not ids:
        return {}
    marks, bound = id_list(ids)
    sql = f"SELECT {_CANDIDATE_COLUMNS} FROM memories WHERE id IN ({marks})"
    make = _Candidate._make
    return {r[0]: make(r) for r in dbapi(s).execute(sql, bound)}


# A memory remembered with this importance or more is kept in mind in every turn (a
# standing rule: "always answer in Chinese"), whatever the query; the remember tool
# says so.
PINNED_IMPORTANCE = 0.9


def _without_unasked_core(
    scored: list[tuple[float, _Candidate]], via: dict[int, list[str]], asked: bool
) -> list[tuple[float, _Candidate]]:
    """`scored` less the memories only the core route brought, when the call asked
    something: the query then gives the signal, and core memories are for calls that
    have none. A query nothing relevant answers injects nothing rather than the agent's
    strongest memories about something else; pinned ones stay. Removing a key from RRF
    leaves every other memory's score as it was."""
    if not asked:
        return scored
    return [
        (sc, row)
        for sc, row in scored
        if via[row.id] != ["core"] or row.importance >= PINNED_IMPORTANCE
    ]


def context(
    rt: Runtime,
    agent: str,
    *,
    thread: str | None = None,
    user: str | None = None,
    query: str | None = None,
    budget: int | None = None,
) -> ContextBlock:
    """Build the memory block to inject for one turn (see the module doc).

    Raises InvalidInput for a budget that is not a positive number of tokens or a
    query over the length limit; NotFound for an unknown agent.
    """
    started = time.perf_counter()
    if budget is not None and not (0 < budget <= MAX_BUDGET):
        raise InvalidInput(f"budget must be between 1 and {MAX_BUDGET} tokens.")
    if query is not None and len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"The query is {len(query)} characters, over the limit of {MAX_QUERY_CHARS}; "
            "give key words."
        )
    query = query.strip() if query else None
    now = rt.clock.now()
    # Driver-level transactions (no Session set-up): every statement here and in
    # _store_recall goes through dbapi().
    with rt.read_driver() as s:
        arow = agent_ref(s, agent)
        settings = _settings(arow.settings)
        budget = budget or settings.recall_budget
        routes: dict[str, list[int]] = {}
        weak: set[int] = set()
        archived: list[int] = []
        if query:
            routes["query"], weak, archived = query_route(rt, s, arow, query)
        if thread:
            routes["thread"] = recent(s, arow, "thread", thread)
        if user:
            routes["user"] = recent(s, arow, "user", user)
        routes["core"] = core(s, arow)
        fused = dict(rrf(routes, ROUTE_WEIGHTS, k=ROUTE_K))
        via: dict[int, list[str]] = {}
        for name, ids in routes.items():
            for memory_id in ids:
                via.setdefault(memory_id, []).append(name)
        rows = _candidates(s, list(fused))
        disputes = _disputes(s, arow)
        scored: list[tuple[float, _Candidate]] = []
        for memory_id, base in fused.items():
            row = rows.get(memory_id)
            if row is None or row.status != "active":
                continue
            if user and row.user and row.user != user:
                continue  # about someone else: never injected as if about this person
            anchor = anchor_time(
                row.created_at, row.last_recalled_at, row.last_used_at, row.last_reinforced_at
            )
            power = strength(now, anchor, settings.half_life_days, row.importance, row.use_count)
            scored.append((base * (0.5 + 0.5 * power), row))
        considered = {row.id for _, row in scored}
        scored = _without_unasked_core(scored, via, asked=bool(query))
        # Core memories the query made irrelevant are not candidates: those the query
        # route judged weak are listed below relevance, the rest (unrelated) nowhere.
        unasked = considered - {row.id for _, row in scored}
        scored.sort(key=lambda pair: (-pair[0], -pair[1].id))

    used = _HEADER_TOKENS
    included: list[ContextItem] = []
    dropped: list[DroppedItem] = []
    lines = []
    for score, row in scored:
        line = _line(row, disputes.get(row.id, ()))
        cost = _line_tokens(line)
        if used + cost > budget:
            dropped.append(DroppedItem(row.id, "over_budget", round(score, 5)))
            continue
        used += cost
        lines.append(line)
        included.append(
            ContextItem(row.id, row.category, row.text, round(score, 5), tuple(via[row.id]), cost)
        )
    # A weak semantic neighbour that another route (thread, user, core) brought in is
    # not "dropped": one row per memory in the recall record.
    below = (weak - set(fused)) | (weak & unasked)
    dropped.extend(DroppedItem(i, "below_relevance", 0.0) for i in sorted(below))
    dropped.extend(DroppedItem(i, "archived", 0.0) for i in archived)
    text = "\n".join([HEADER, *lines]) if lines else ""
    tokens_used = used if lines else 0
    latency_ms = (time.perf_counter() - started) * 1000.0
    # The record is the owner's to read: a value of the vault in the query (or a label)
    # is kept out of it, as out of any other write.
    in_thread, for_user, asked = (rt.redact(v) if v else v for v in (thread, user, query))
    recall_id = _store_recall(
        rt, arow, in_thread, for_user, asked, budget, tokens_used, included, dropped, latency_ms
    )
    return ContextBlock(
        text=text,
        included=tuple(included),
        dropped=tuple(dropped),
        tokens_used=tokens_used,
        budget=budget,
        recall_id=recall_id,
        latency_ms=round(latency_ms, 3),
    )


def _store_recall(
    rt: Runtime,
    arow: AgentLike,
    thread: str | None,
    user: str | None,
    query: str | None,
    budget: int,
    tokens_used: int,
    included: Sequence[ContextItem],
    dropped: Sequence[DroppedItem],
    latency_ms: float,
) -> int:
    """Store the recall record and count the recall, durably, before `context` returns.

    One short write transaction of plain driver statements (the recall row, its items in
    one executemany, one UPDATE of the injected memories, the audit row): the ORM version
    of this was most of a context call's time."""
    now = rt.now_iso()
    over = sum(1 for d in dropped if d.reason == "over_budget")
    ids = [it.memory_id for it in included]
    with rt.write_driver() as s:
        db = dbapi(s)
        cur = db.execute(
            INSERT_RECALL_SQL,
            (
                arow.id, now, thread, user, query, budget, tokens_used,
                len(included), len(dropped), over, latency_ms,
            ),
        )  # fmt: skip
        recall_id = int(cur.fetchone()[0])
        items = [
            (recall_id, it.memory_id, rank, 1, "included", it.score)
            for rank, it in enumerate(included)
        ] + [
            (recall_id, d.memory_id, len(included) + rank, 0, d.reason, d.score)
            for rank, d in enumerate(dropped)
        ]
        if items:
            db.executemany(
                "INSERT INTO recall_items (recall_id, memory_id, rank, included, reason, "
                "score) VALUES (?, ?, ?, ?, ?, ?)",
                items,
            )
        if ids:
            db.execute(
                "UPDATE memories SET recall_count = recall_count + 1, last_recalled_at = ? "
                f"WHERE id IN ({', '.join('?' * len(ids))})",
                (now, *ids),
            )
        record(
            s,
            now,
            "memory.recall",
            agent=arow.name,
            actor="agent",
            ids=ids,
            counts={
                "included": len(ids),
                "dropped": len(dropped),
                "over_budget": over,
                "tokens": tokens_used,
            },
        )
        return recall_id


def recall_history(rt: Runtime, agent: str, *, limit: int = 50) -> list[dict[str, object]]:
    """Recent recall records of an agent (counts and latency only)."""
    with rt.read() as s:
        arow = agent_row(s, agent)
        rows = s.exec(
            select(RecallRow)
            .where(RecallRow.agent_id == arow.id)
            .order_by(col(RecallRow.id).desc())
            .limit(limit)
        ).all()
        return [
            {
                "id": r.id,
                "at": r.at,
                "thread": r.thread,
                "user": r.user,
                "budget": r.budget,
                "tokens_used": r.tokens_used,
                "included": r.included,
                "dropped": r.dropped,
                "over_budget": r.over_budget,
                "latency_ms": r.latency_ms,
            }
            for r in rows
        ]
