"""Recall mode 2, exploration: low-level search over memories and the tape.

Orthogonal parameters: scope (memories, tape, all), mode (hybrid, fulltext,
semantic, regex), filters (category, status, thread, time) and paging. Every
hit says why it matched: its score parts.

Full-text uses the FTS5 rows written with each memory and entry (see
`app.text.terms`), so rows not yet embedded are found too. Regex runs on the
`regex` module with a per-search time budget, so a catastrophic pattern ends
with a clear error instead of a hang. Semantic and hybrid search need the
vector index (`app.index.service.RETRIEVAL`); hybrid fuses the ranked lists with
reciprocal rank fusion.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session

from app.clock import check_window
from app.db import Filters, dbapi
from app.errors import InvalidInput, TapemindError
from app.index import RETRIEVAL
from app.limits import MAX_QUERY_CHARS, MAX_SEARCH_LIMIT, MAX_SEARCH_OFFSET
from app.memory import MEMORY_COLUMNS, check_category, memory_of
from app.models import STATUSES, Memory, TapeEntry
from app.recall import rare_terms, turn_weights, turns
from app.recall.adjacent import NEIGHBOUR_POOL, smooth
from app.recall.documents import Documents
from app.recall.fulltext import fulltext_ids, regex_ids
from app.recall.fusion import fuse
from app.recall.rerank import POOL, rescore_pool
from app.runtime import AgentLike, Runtime, agent_ref
from app.tape import ENTRY_COLUMNS, entry_of

SCOPES = ("memories", "tape", "all")
MODES = ("hybrid", "fulltext", "semantic", "regex")
REGEX_BUDGET_S = 1.0
# The score parts of a hit that semantic search alone found, by its own cosine: any
# other part is a word in common, or (tape) similar turns around it in its thread.
_SEMANTIC_PARTS = frozenset({"semantic", "rrf"})


@dataclass(frozen=True)
class SearchHit:
    """One match. `why` holds the score parts (e.g. fulltext, semantic, rrf)."""

    kind: str  # memory | tape
    id: int
    score: float
    why: Mapping[str, float] = field(default_factory=dict)
    memory: Memory | None = None
    entry: TapeEntry | None = None
    # Kept for the clients that read it, always False: hits found by meaning alone under
    # the home's similarity floor, sharing no word with the query, are left out.
    weak: bool = False

    @property
    def text(self) -> str:
        if self.memory is not None:
            return self.memory.text
        return self.entry.text if self.entry is not None else ""


@dataclass(frozen=True)
class SearchResult:
    query: str
    scope: str
    mode: str
    hits: tuple[SearchHit, ...]
    offset: int
    limit: int
    has_more: bool
    # Why a part of the search was skipped (e.g. nothing embedded yet: full-text only).
    notes: tuple[str, ...] = ()


def validate(
    query: str,
    scope: str,
    mode: str,
    limit: int,
    offset: int,
    category: str | None,
    status: str | None,
) -> Filters:
    if scope not in SCOPES:
        raise InvalidInput(f"Unknown scope: use one of {', '.join(SCOPES)}.")
    if mode not in MODES:
        raise InvalidInput(f"Unknown mode: use one of {', '.join(MODES)}.")
    if not query or not query.strip():
        raise InvalidInput("The query is empty: give words to search for.")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"The query is {len(query)} characters; keep it under {MAX_QUERY_CHARS} "
            "(search for the key words, not a whole document)."
        )
    if not (1 <= limit <= MAX_SEARCH_LIMIT) or not (0 <= offset <= MAX_SEARCH_OFFSET):
        raise InvalidInput(f"limit must be 1-{MAX_SEARCH_LIMIT} and offset 0-{MAX_SEARCH_OFFSET}.")
    if category is not None:
        check_category(category)
    if status is not None and status not in (*STATUSES, "any"):
        raise InvalidInput(f"Unknown status: use one of {', '.join(STATUSES)} or any.")
    every = ("active", "archived", "superseded")
    statuses: tuple[str, ...] = every if status == "any" else (status or "active",)
    return Filters(category=category, statuses=statuses)


def load_hits(
    s: Session, agent: str, ranked: Sequence[tuple[tuple[str, int], float, dict[str, float]]]
) -> list[SearchHit]:
    """The hits of a ranked page, with their memory or entry (rows gone meanwhile are left out)."""
    db = dbapi(s)
    mem_ids = [int(i) for (k, i), _, _ in ranked if k == "memory"]
    tape_ids = [int(i) for (k, i), _, _ in ranked if k == "tape"]
    mems: dict[int, Memory] = {}
    entries: dict[int, TapeEntry] = {}
    if mem_ids:
        marks = ", ".join("?" * len(mem_ids))
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN ({marks})"
        mems = {int(r[0]): memory_of(r, agent) for r in db.execute(sql, mem_ids)}
    if tape_ids:
        marks = ", ".join("?" * len(tape_ids))
        sql = f"SELECT {ENTRY_COLUMNS} FROM tape_entries WHERE id IN ({marks})"
        entries = {int(r[0]): entry_of(r, agent) for r in db.execute(sql, tape_ids)}
    hits = []
    for (kind, row_id), score, why in ranked:
        if kind == "memory" and row_id in mems:
            hits.append(SearchHit("memory", row_id, score, why, memory=mems[row_id]))
        elif kind == "tape" and row_id in entries:
            hits.append(SearchHit("tape", row_id, score, why, entry=entries[row_id]))
    return hits


def search(
    rt: Runtime,
    agent: str,
    query: str,
    *,
    scope: str = "memories",
    mode: str = "hybrid",
    category: str | None = None,
    status: str | None = None,
    thread: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 10,
    offset: int = 0,
) -> SearchResult:
    """Search one agent's memories and/or tape. See the module doc."""
    f = validate(query, scope, mode, limit, offset, category, status)
    check_window(since, until)
    f = Filters(f.category, f.statuses, thread, since, until)
    kinds = (
        ("memory", "tape")
        if scope == "all"
        else (("memory",) if scope == "memories" else ("tape",))
    )
    want = offset + limit + 1
    retrieval = rt.services.get(RETRIEVAL)
    counts = rare_terms.count_cache(rt)
    if mode == "semantic" and retrieval is None:
        raise InvalidInput(
            "Semantic search needs the vector index, which is not available "
            "in this home; use --mode fulltext.",
            for_agents="Semantic search is not available in this home; search with mode "
            '"fulltext".',
        )
    notes: list[str] = []
    with rt.read() as s:
        arow = agent_ref(s, agent)
        lists: dict[str, list[tuple[tuple[str, int], float]]] = {}
        extra_why: dict[tuple[str, int], dict[str, float]] = {}
        # The query's embedding and nearest rows are fetched on a worker thread while
        # the full-text queries below run (see RetrievalService.begin).
        ahead = retrieval if mode in ("semantic", "hybrid") else None
        pending = {
            kind: ahead.begin(s, arow, kind, query, _semantic_n(kind, want)) if ahead else None
            for kind in kinds
        }
        deadline = time.monotonic() + REGEX_BUDGET_S
        for kind in kinds:
            if mode == "regex":
                lists[f"regex:{kind}"] = [
                    ((kind, i), sc) for i, sc in regex_ids(s, arow, kind, query, f, want, deadline)
                ]
                continue
            if mode in ("fulltext", "hybrid") and kind == "tape":
                by_model = _turns(
                    s, arow, query, f, want, counts, retrieval if mode == "hybrid" else None,
                    pending[kind], notes,
                )  # fmt: skip
                lists["turns:tape"] = [((kind, i), sc) for i, sc, _ in by_model]
                for i, _, parts in by_model:
                    extra_why[(kind, i)] = parts
                continue
            elif mode in ("fulltext", "hybrid"):
                lists[f"fulltext:{kind}"] = [
                    ((kind, i), sc)
                    for i, sc in fulltext_ids(s, arow, kind, query, f, want, counts=counts)
                ]
            if mode in ("semantic", "hybrid") and retrieval is not None:
                if kind == "tape":
                    # Semantic tape hits are smoothed over their thread too.
                    near = _semantic(
                        retrieval, s, arow, kind, query, f, _semantic_n(kind, want), mode, notes,
                        pending[kind],
                    )  # fmt: skip
                    smoothed = smooth(
                        s,
                        [(i, max(sc, 0.0)) for i, sc in near],
                        want,
                        since=f.since,
                        until=f.until,
                        label="semantic",
                    )
                    lists[f"semantic:{kind}"] = [((kind, i), sc) for i, sc, _ in smoothed]
                    for i, _, parts in smoothed:
                        extra_why.setdefault((kind, i), {}).update(
                            {
                                f"semantic_{k}" if k == "neighbours" else k: v
                                for k, v in parts.items()
                            }
                        )
                else:
                    lists[f"semantic:{kind}"] = [
                        ((kind, i), sc)
                        for i, sc in _semantic(
                            retrieval, s, arow, kind, query, f, want, mode, notes, pending[kind]
                        )
                    ]
        named = {
            name.split(":")[0] if len(kinds) == 1 else name: items for name, items in lists.items()
        }
        fused: list[tuple[Any, float, dict[str, float]]]
        if list(named) == ["turns"]:
            # Tape search alone: the turn model's scores are the ranking (no fusion).
            fused = [(key, score, {}) for key, score in named["turns"]]
        else:
            # Scope "all": the tape's one ranked list stands for both its routes.
            memory_lists = sum(1 for n in named if n.endswith(":memory"))
            fused = fuse(named, {"turns:tape": float(max(memory_lists, 1))})
        # One vocabulary whatever the scope: a hit says its kind, so the lists' ":kind"
        # goes; a tape hit's smoothed score is given as its parts (its own score under
        # the list's name, its neighbours' beside it), not twice.
        ranked = [
            (
                key,
                score,
                {
                    **{n.split(":")[0]: v for n, v in why.items() if not n.startswith("turns")},
                    **extra_why.get(key, {}),
                },
            )
            for key, score, why in fused
        ]
        if retrieval is not None and mode in ("semantic", "hybrid"):
            ranked = _relevant(ranked, retrieval.similarity_floor(s))
        hits = load_hits(s, agent, ranked[offset : offset + limit])
    return SearchResult(
        query=query,
        scope=scope,
        mode=mode,
        hits=tuple(hits),
        offset=offset,
        limit=limit,
        has_more=len(ranked) > offset + limit,
        notes=tuple(notes),
    )


def _turns(
    s: Session,
    arow: AgentLike,
    query: str,
    f: Filters,
    want: int,
    counts: dict[Any, tuple[int, float]],
    retrieval: Any,
    pending: Any,
    notes: list[str],
) -> list[tuple[int, float, dict[str, float]]]:
    """Tape hits ranked by the turn model (`app.recall.turns`)."""
    found, semantic = tape_candidates(s, arow, query, f, want, counts, retrieval, pending, notes)
    weights = turn_weights.HYBRID if semantic else turn_weights.FULLTEXT
    return turns.rank(found, query, weights)


def tape_candidates(
    s: Session,
    arow: AgentLike,
    query: str,
    f: Filters,
    want: int,
    counts: dict[Any, tuple[int, float]],
    retrieval: Any = None,
    pending: Any = None,
    notes: list[str] | None = None,
) -> tuple[list[turns.Candidate], bool]:
    """The turn model's candidates: full-text hits re-scored with the agent's own
    statistics and, with `retrieval` (hybrid mode), the nearest turns by meaning; and
    whether the meaning part answered (nothing embedded yet: words only)."""
    assert arow.id is not None
    size = max(want, turns.CANDIDATES)
    # The entries' token strings are scored up to three times: read once.
    docs = Documents(dbapi(s), "tape_fts")
    pool = fulltext_ids(s, arow, "tape", query, f, max(size, POOL), counts=counts, documents=docs)
    lexical = rescore_pool(s, arow.id, arow.next_seq - 1, query, pool, docs)
    near = None
    if retrieval is not None:
        n = _semantic_n("tape", want)
        near = _semantic(
            retrieval, s, arow, "tape", query, f, n, "hybrid", [] if notes is None else notes,
            pending,
        )  # fmt: skip
    found = turns.candidates(
        s, lexical, near, since=f.since, until=f.until, want=want, documents=docs
    )
    return found, bool(near)


def _relevant(
    ranked: list[tuple[Any, float, dict[str, float]]], floor: float
) -> list[tuple[Any, float, dict[str, float]]]:
    """`ranked` without the hits only semantic search found, under `floor` (the
    similarity below which `context` treats a neighbour as unrelated) and sharing no
    word with the query. A semantic or hybrid search would otherwise fill its page with
    the nearest rows however far; a query about nothing stored finds nothing."""
    return [
        (key, score, why)
        for key, score, why in ranked
        if not (set(why) <= _SEMANTIC_PARTS and why.get("semantic", 0.0) < floor)
    ]


def _semantic_n(kind: str, want: int) -> int:
    """Semantic rows wanted: tape hits are smoothed over their neighbours, so more."""
    return max(want, NEIGHBOUR_POOL) if kind == "tape" else want


def _semantic(
    retrieval: Any,
    s: Session,
    arow: AgentLike,
    kind: str,
    query: str,
    f: Filters,
    n: int,
    mode: str,
    notes: list[str],
    pending: Any = None,
) -> list[tuple[int, float]]:
    """Semantic ids; in hybrid mode an index that cannot answer yet leaves a note and
    the full-text part stands alone, in semantic mode its error says what to do."""
    try:
        return list(retrieval.semantic_search(s, arow, kind, query, f, n, pending=pending))
    except TapemindError as exc:
        if mode == "semantic" or exc.code != "index_not_ready":
            raise
        # A note in the result, read by people and agents alike: what happened, without
        # either's advice (these hits are the full-text ones already).
        what = getattr(exc, "what", "the vector index cannot answer yet")
        notes.append(f"Semantic {kind} search skipped, full-text only: {what}.")
        return []
