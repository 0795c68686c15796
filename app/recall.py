"""Recall mode 1, injection: `context`, the call an agent makes at the start of every turn.

Few parameters, good defaults. Candidates come from routes:
- thread: recent memories of this thread;
- user: recent memories about this user;
- query: memories relevant to the query (full-text, plus semantic when the
  vector index is available);
- core: the agent's strongest memories (important preferences and facts),
  so even a bare call returns something useful.
The routes are fused with weighted reciprocal rank fusion, each candidate
weighted by its current strength (`app.strength`), and packed greedily under a
hard token budget (`app.tokens`). The result is the block to inject plus a
manifest: what was included, what was dropped and why (over_budget,
below_relevance, archived), tokens used. Every call is stored as a recall
record and counts as a recall for the memories it injected.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import insert, update
from sqlmodel import Session, col, select

from .db.schema import AgentRow, MemoryRow, RecallItemRow, RecallRow
from .errors import InvalidInput
from .events import record
from .models import AgentSettings
from .runtime import Runtime, agent_row
from .search import MAX_QUERY_CHARS, Filters, fulltext_ids, fuse
from .strength import anchor_time, strength
from .tokens import count_tokens

ROUTE_WEIGHTS = {"query": 1.0, "thread": 0.8, "user": 0.6, "core": 0.35}
ROUTE_DEPTH = 30
CORE_DEPTH = 12
RRF_K = 20
MAX_BUDGET = 32_000
HEADER = "Memories (tapemind; cite [m<id>] when you use one):"


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


def _line(row: MemoryRow) -> str:
    return f"- [m{row.id}] ({row.category}, {row.created_at[:10]}) {row.text}"


def _recent(s: Session, arow: AgentRow, column: object, value: str) -> list[int]:
    return list(
        s.exec(
            select(MemoryRow.id)
            .where(MemoryRow.agent_id == arow.id, MemoryRow.status == "active", column == value)
            .order_by(col(MemoryRow.updated_at).desc())
            .limit(ROUTE_DEPTH)
        ).all()
    )


def _core(s: Session, arow: AgentRow) -> list[int]:
    return list(
        s.exec(
            select(MemoryRow.id)
            .where(MemoryRow.agent_id == arow.id, MemoryRow.status == "active")
            .order_by(col(MemoryRow.importance).desc(), col(MemoryRow.updated_at).desc())
            .limit(CORE_DEPTH)
        ).all()
    )


def _query_route(
    rt: Runtime, s: Session, arow: AgentRow, query: str
) -> tuple[list[int], set[int], list[int]]:
    """(ranked relevant ids, ids judged below relevance, archived ids that match)."""
    active = Filters(statuses=("active",))
    lexical = fulltext_ids(s, arow, "memory", query, active, ROUTE_DEPTH)
    lists: dict[str, list[tuple[int, float]]] = {"fulltext": lexical}
    weak: set[int] = set()
    retrieval = rt.services.get("retrieval")
    if retrieval is not None:
        semantic = retrieval.semantic_ids(s, arow, "memory", query, active, ROUTE_DEPTH)
        floor = getattr(retrieval, "min_similarity", 0.0)
        lexical_ids = {i for i, _ in lexical}
        weak = {i for i, sim in semantic if sim < floor and i not in lexical_ids}
        lists["semantic"] = [(i, sim) for i, sim in semantic if i not in weak]
    archived = [
        i for i, _ in fulltext_ids(s, arow, "memory", query, Filters(statuses=("archived",)), 10)
    ]
    order = [memory_id for memory_id, _, _ in fuse(lists, k=RRF_K)]
    return order, weak - set(order), archived


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
        raise InvalidInput(f"budget must be between 1 and {MAX_BUDGET} tokens, got {budget}.")
    if query is not None and len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"The query is over {MAX_QUERY_CHARS} characters; give key words.")
    query = query.strip() if query else None
    now = rt.clock.now()
    with rt.read() as s:
        arow = agent_row(s, agent)
        settings = AgentSettings.from_dict(json.loads(arow.settings))
        budget = budget or settings.recall_budget
        routes: dict[str, list[int]] = {}
        weak: set[int] = set()
        archived: list[int] = []
        if query:
            routes["query"], weak, archived = _query_route(rt, s, arow, query)
        if thread:
            routes["thread"] = _recent(s, arow, MemoryRow.thread, thread)
        if user:
            routes["user"] = _recent(s, arow, MemoryRow.user, user)
        routes["core"] = _core(s, arow)
        fused = {
            memory_id: score
            for memory_id, score, _ in fuse(
                {name: [(i, 0.0) for i in ids] for name, ids in routes.items()},
                ROUTE_WEIGHTS,
                k=RRF_K,
            )
        }
        via: dict[int, list[str]] = {}
        for name, ids in routes.items():
            for memory_id in ids:
                via.setdefault(memory_id, []).append(name)
        rows = {
            r.id: r for r in s.exec(select(MemoryRow).where(col(MemoryRow.id).in_(list(fused))))
        }
        scored: list[tuple[float, MemoryRow]] = []
        for memory_id, base in fused.items():
            row = rows.get(memory_id)
            if row is None or row.status != "active":
                continue
            anchor = anchor_time(
                row.created_at, row.last_recalled_at, row.last_used_at, row.last_reinforced_at
            )
            power = strength(now, anchor, settings.half_life_days, row.importance, row.use_count)
            scored.append((base * (0.5 + 0.5 * power), row))
        scored.sort(key=lambda pair: (-pair[0], -pair[1].id))

    used = count_tokens(HEADER) + 1
    included: list[ContextItem] = []
    dropped: list[DroppedItem] = []
    lines = []
    for score, row in scored:
        line = _line(row)
        cost = count_tokens(line) + 1
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
    dropped.extend(DroppedItem(i, "below_relevance", 0.0) for i in sorted(weak - set(fused)))
    dropped.extend(DroppedItem(i, "archived", 0.0) for i in archived)
    text = "\n".join([HEADER, *lines]) if lines else ""
    tokens_used = used if lines else 0
    latency_ms = (time.perf_counter() - started) * 1000.0
    recall_id = _store_recall(
        rt, arow, thread, user, query, budget, tokens_used, included, dropped, latency_ms
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
    arow: AgentRow,
    thread: str | None,
    user: str | None,
    query: str | None,
    budget: int,
    tokens_used: int,
    included: Sequence[ContextItem],
    dropped: Sequence[DroppedItem],
    latency_ms: float,
) -> int:
    now = rt.now_iso()
    over = sum(1 for d in dropped if d.reason == "over_budget")
    with rt.write() as s:
        rec = RecallRow(
            agent_id=arow.id or 0,
            at=now,
            mode="context",
            thread=thread,
            user=user,
            query=query,
            budget=budget,
            tokens_used=tokens_used,
            included=len(included),
            dropped=len(dropped),
            over_budget=over,
            latency_ms=latency_ms,
        )
        s.add(rec)
        s.flush()
        assert rec.id is not None
        items = [
            {
                "recall_id": rec.id,
                "memory_id": it.memory_id,
                "rank": rank,
                "included": 1,
                "reason": "included",
                "score": it.score,
            }
            for rank, it in enumerate(included)
        ] + [
            {
                "recall_id": rec.id,
                "memory_id": d.memory_id,
                "rank": len(included) + rank,
                "included": 0,
                "reason": d.reason,
                "score": d.score,
            }
            for rank, d in enumerate(dropped)
        ]
        if items:
            s.execute(insert(RecallItemRow), items)
        ids = [it.memory_id for it in included]
        if ids:
            s.execute(
                update(MemoryRow)
                .where(col(MemoryRow.id).in_(ids))
                .values(recall_count=MemoryRow.recall_count + 1, last_recalled_at=now)
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
        return rec.id


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
