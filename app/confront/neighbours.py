"""A candidate memory's nearest active memories, for confrontation at write time.

Full-text and vector neighbours are fused (`app.recall.fusion.fuse`), so unembedded memories count.
The vector half also holds the agent's memories still waiting to be embedded
(`app.index.waiting`): remembered moments ago, they are not in the vector index yet.
The vector half (the candidate's embedding and the HNSW query) runs on the retrieval
service's worker thread while this thread ranks full-text neighbours: numpy, chromadb and
SQLite's FTS5 ranking release the GIL, so the two overlap on a second core.

Full-text neighbours: the candidate's Latin words and CJK bigrams, each on its own and
OR-ed, restricted to the rarest within a postings budget (document frequencies from
fts5vocab), ranked by bm25.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

from app.confront.arbiter import Neighbour
from app.confront.arbiter.evaluate import fulltext_overlap
from app.db import Filters, Qmark, dbapi
from app.index import RETRIEVAL
from app.recall import fuse, rare_terms
from app.runtime import AgentLike, Runtime

log = logging.getLogger(__name__)

NEIGHBOURS = 10
RANKED = 4 * NEIGHBOURS  # full-text rows ranked before the agent and status filter
MAX_TERMS = 16
POSTINGS_BUDGET = 4000  # memories ranked by full-text per candidate, at most (about)


def neighbours(rt: Runtime, s: Session, arow: AgentLike, body: str) -> list[Neighbour]:
    """The candidate's nearest active memories: full-text and vector lists fused."""

    retrieval = rt.services.get(RETRIEVAL)
    # The candidate's embedding and the vector query run on the retrieval service's
    # worker thread while this one ranks full-text neighbours (see `begin`).
    pending = retrieval.begin(s, arow, "memory", body, NEIGHBOURS) if retrieval else None
    lists: dict[str, list[tuple[int, float]]] = {"fulltext": fulltext_neighbours(rt, s, arow, body)}
    cosines: dict[int, float] = {}
    if retrieval is not None:
        active = Filters(statuses=("active",))
        try:
            found = retrieval.semantic_ids(
                s, arow, "memory", body, active, NEIGHBOURS, pending=pending
            )
            lists["semantic"] = [(int(i), float(c)) for i, c in found]
        except Exception:  # the index is derived data: full-text alone still confronts
            log.exception("vector neighbours failed; confronting with full-text only")
            lists["semantic"] = []
        try:
            waiting = retrieval.waiting_ids(s, arow, body, NEIGHBOURS)
        except Exception:  # an embedder that fails now: the other lists still confront
            log.exception("not-yet-embedded neighbours failed; confronting without them")
            waiting = []
        if waiting:
            merged = dict(lists["semantic"]) | dict(waiting)
            lists["semantic"] = sorted(merged.items(), key=lambda p: -p[1])[:NEIGHBOURS]
        cosines = dict(lists["semantic"])
    ids = [key for key, _, _ in fuse(lists)[:NEIGHBOURS]]
    if not ids:
        return []
    rows = {
        int(r[0]): r
        for r in dbapi(s).execute(
            "SELECT id, text, category FROM memories WHERE id IN "
            f"({', '.join(str(int(i)) for i in ids)}) AND status = 'active'"
        )
    }
    return [
        Neighbour(
            id=i,
            text=rows[i][1],
            category=rows[i][2],
            similarity=cosines.get(i),
            fulltext_score=fulltext_overlap(body, rows[i][1]),
        )
        for i in ids
        if i in rows
    ]


def neighbour_terms(body: str) -> list[str]:
    """FTS terms for a whole candidate sentence: Latin words and CJK bigrams, each on its
    own (OR-ed), so a paraphrase that shares a few words still matches. Search's query
    syntax would need a Chinese sentence to appear verbatim, as one phrase."""
    from app.text import _IS_CJK, _words

    terms: list[str] = []
    for word in _words(body):
        if _IS_CJK.match(word) and len(word) > 1:
            terms.extend(word[i : i + 2] for i in range(len(word) - 1))
        elif _IS_CJK.match(word) or len(word) > 1 or word.isdigit():
            terms.append(word)
    unique = list(dict.fromkeys(terms))
    return unique[:MAX_TERMS]


def _pick_terms(s: Session, terms: Sequence[str], cache: dict[Any, tuple[Any, float]]) -> list[str]:
    """The rarest terms, within a postings budget: they decide bm25's top anyway, and
    ranking every memory that shares a common word ("user", "用户") would cost tens of
    milliseconds at 100,000 memories. Document frequencies come from fts5vocab."""
    counts = rare_terms.document_counts(dbapi(s), "memory_fts", terms, cache)
    df: dict[rare_terms.Group, int] = {(t,): n for t, n in counts.items()}
    limit = 5 * POSTINGS_BUDGET
    return [g[0] for g in rare_terms.pick(list(df), df, POSTINGS_BUDGET, first_at_most=limit)]


def fulltext_neighbours(
    rt: Runtime, s: Session, arow: AgentLike, body: str
) -> list[tuple[int, float]]:
    """(id, bm25 score, higher is better) of the active memories sharing the rarest terms."""
    terms = _pick_terms(s, neighbour_terms(body), rare_terms.count_cache(rt))
    if not terms:
        return []
    db = dbapi(s)
    if isinstance(db, Qmark):  # PostgreSQL: GIN intersects with the agent's rows first
        where = ("m.agent_id = ? AND m.status = 'active'", (arow.id,))
        rows = int(db.execute("SELECT coalesce(sum(n), 0) FROM memory_class_counts").fetchone()[0])
        return rare_terms.best_rows(
            db,
            "memory_fts",
            [(t,) for t in terms],
            where,
            NEIGHBOURS,
            rows,
            alias="m",
            cache=rare_terms.count_cache(rt),
            agent_id=arow.id,
        )
    # No agent token in the MATCH: the agent is filtered after ranking, and ANDing the
    # agent's token would merge a doclist as long as the agent's memory count every call.
    expr = " OR ".join('"' + t + '"' for t in terms)
    # Rank in FTS5 alone, then look up the best few rows: joining `memories` for every
    # match (up to POSTINGS_BUDGET rows) cost as much as bm25 itself. Exact: when the
    # best RANKED rows hold NEIGHBOURS of this agent's active memories, they are its best
    # NEIGHBOURS; otherwise (other agents, retired memories) the full join answers.
    ranked = db.execute(
        "SELECT rowid, bm25(memory_fts) FROM memory_fts WHERE memory_fts MATCH ? "
        "ORDER BY bm25(memory_fts) LIMIT ?",
        (expr, RANKED),
    ).fetchall()
    if ranked:
        marks = ", ".join(str(int(i)) for i, _ in ranked)
        keep = {
            int(i)
            for (i,) in db.execute(
                f"SELECT id FROM memories WHERE id IN ({marks}) AND agent_id = ? "
                "AND status = 'active'",
                (arow.id,),
            )
        }
        best = [(int(i), -float(r)) for i, r in ranked if int(i) in keep][:NEIGHBOURS]
        if len(best) == NEIGHBOURS or len(ranked) < RANKED:
            return best
    rows = db.execute(
        "SELECT m.id, bm25(memory_fts) FROM memory_fts JOIN memories m "
        "ON m.id = memory_fts.rowid WHERE memory_fts MATCH ? AND m.agent_id = ? "
        "AND m.status = 'active' ORDER BY bm25(memory_fts) LIMIT ?",
        (expr, arow.id, NEIGHBOURS),
    )
    return [(int(i), -float(r)) for i, r in rows]
