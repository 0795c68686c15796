"""The SQL side of search: filter conditions, full-text ids and regex ids.

Everything here runs inside a read transaction the caller opened, through the sqlite3
driver (`app.db.store.dbapi`): these run on every search and `context` call, and
SQLAlchemy's statement compile cost more than the queries themselves.
"""

from __future__ import annotations

import time
from typing import Any

import regex
from sqlmodel import Session

from app.db import Filters, Qmark, Tx, dbapi, memory_conditions, tape_conditions
from app.errors import InvalidInput
from app.limits import MAX_REGEX_CHARS
from app.recall import rare_terms
from app.recall.documents import Documents
from app.runtime import AgentLike
from app.text import groups_expression, query_groups

REGEX_SCAN_ROWS = 50_000
# Full-text: rows taken from FTS5 per row wanted before the filters, the first pool and
# the largest before the unbounded try; an agent with this share of a home's rows is
# not restricted by its agent token inside FTS5 (see fulltext_ids).
FTS_OVERFETCH = 4
FTS_MIN_POOL = 64
FTS_MAX_POOL = 20_000
DOMINANT_SHARE = 0.9


def _row_counts(db: Any, arow: AgentLike, kind: str) -> tuple[int, int]:
    """(the home's full-text rows of `kind`, the agent's), from counts kept up to date by
    triggers and the tape's sequence numbers: O(agents)."""
    if kind == "memory":
        sql = (
            "SELECT sum(n), sum(CASE WHEN agent_id = ? THEN n ELSE 0 END) FROM memory_class_counts"
        )
    else:
        sql = (
            "SELECT sum(next_seq - 1), sum(CASE WHEN id = ? THEN next_seq - 1 ELSE 0 END) "
            "FROM agents"
        )
    total, mine = db.execute(sql, (arow.id,)).fetchone()
    return int(total or 0), int(mine or 0)


def fulltext_ids(
    s: Tx,
    arow: AgentLike,
    kind: str,
    query: str,
    f: Filters,
    n: int,
    *,
    counts: dict[Any, tuple[Any, float]] | None = None,
    documents: Documents | None = None,
) -> list[tuple[int, float]]:
    """(id, bm25 score, higher is better) of the best `n` full-text matches.

    FTS5 ranks every row that matches any query term before a LIMIT applies, so the
    cost grows with the matches (thousands for common words at 100k rows). Three things
    keep it down:
    - the best `L` rows are taken from the FTS table alone and only those are joined
      with their table for the filters; when fewer than `n` pass, `L` grows (the last
      try is unbounded);
    - an agent holding most rows of the home (the usual single-agent home) is not
      restricted by its agent token inside FTS5, whose bm25 would walk that token's
      whole posting list for its IDF (the filters check the agent instead). Such a
      token's IDF is clamped to ~0 by FTS5, so scores do not change;
    - when the query's terms match more rows than `rare_terms.POSTINGS_BUDGET`, the
      rarest terms pick a pool that every term then ranks (`app.recall.rare_terms`).
    `counts`: a cache of large document counts, kept by the caller for the home.
    `documents`: the token strings of `kind`'s table that the caller scores again.
    """
    assert arow.id is not None
    db = dbapi(s)
    groups = query_groups(query)
    if not groups:
        return []
    table = "memory_fts" if kind == "memory" else "tape_fts"
    total, mine = _row_counts(db, arow, kind)
    conditions = memory_conditions(arow, f) if kind == "memory" else tape_conditions(arow, f)
    if isinstance(db, Qmark):
        alias = "m" if kind == "memory" else "e"
        return rare_terms.best_rows(
            db,
            table,
            groups,
            conditions,
            n,
            total,
            alias=alias,
            cache=counts,
            documents=documents,
            agent_id=arow.id,
        )
    restrict = None if not total or mine >= DOMINANT_SHARE * total else arow.id
    terms = [t for g in groups for t in g]
    budget = rare_terms.POSTINGS_BUDGET
    df: dict[rare_terms.Group, int] = {}
    split = False
    # No term is in more rows than the table holds (`total` counts every row of the
    # kind, the full-text table fewer or as many): when even that many postings fit
    # the budget the query cannot split, and counting its terms (a doclist read
    # each) is skipped. A short query in a home of hundreds of rows; never at 100k.
    if len(terms) * total > budget:
        df = rare_terms.group_counts(groups, rare_terms.document_counts(db, table, terms, counts))
        split = sum(df.values()) > budget
    expr = groups_expression(rare_terms.pick(groups, df, budget) if split else groups, restrict)
    if expr is None:
        return []  # no term is in the index
    where, params = conditions
    if kind == "memory":
        join = "memories m ON m.id = t.id"
        ok = f"m.id IS NOT NULL AND {where}"
    else:
        join = "tape_entries e ON e.id = t.id"
        ok = f"e.id IS NOT NULL AND {where}"
    sql = (
        f"SELECT t.id, t.score, {ok} FROM (SELECT rowid AS id, bm25({table}) AS score "
        f"FROM {table} WHERE {table} MATCH ? ORDER BY score LIMIT ?) t "
        f"LEFT JOIN {join} ORDER BY t.score"
    )
    bound = max(FTS_OVERFETCH * n, rare_terms.POOL if split else FTS_MIN_POOL)
    while True:
        # The driver directly: SQLAlchemy's text() compile costs more than this query.
        rows = db.execute(sql, (*params, expr, bound)).fetchall()  # `ok` comes first
        kept = [(int(i), -float(r)) for i, r, good in rows if good]
        if len(kept) >= n or len(rows) < bound or bound < 0:
            break
        bound = bound * 8 if bound * 8 <= FTS_MAX_POOL else -1  # -1: no limit
    if split:
        scores = rare_terms.bm25(db, table, [i for i, _ in kept], df, total, documents)
        kept = sorted(((i, scores.get(i, 0.0)) for i, _ in kept), key=lambda p: -p[1])
    return kept[:n]


def regex_ids(
    s: Session, arow: AgentLike, kind: str, pattern: str, f: Filters, n: int, deadline: float
) -> list[tuple[int, float]]:
    """Ids (newest first) whose text matches `pattern`, within the time budget."""
    if len(pattern) > MAX_REGEX_CHARS:
        raise InvalidInput(
            f"The regex is {len(pattern)} characters, over the limit of {MAX_REGEX_CHARS}: "
            "shorten it, or search for its words with mode fulltext."
        )
    try:
        compiled = regex.compile(pattern, regex.IGNORECASE)
    except regex.error as exc:
        # The regex module's message names the fault and its position, never the pattern.
        raise InvalidInput(f"Invalid regex: {str(exc)[:200]}.") from None
    if kind == "memory":
        where, params = memory_conditions(arow, f)
        sql = f"SELECT m.id, m.text FROM memories m WHERE {where} ORDER BY m.id DESC LIMIT ?"
    else:
        where, params = tape_conditions(arow, f)
        sql = f"SELECT e.id, e.content FROM tape_entries e WHERE {where} ORDER BY e.id DESC LIMIT ?"
    out: list[tuple[int, float]] = []
    for row_id, body in dbapi(s).execute(sql, (*params, REGEX_SCAN_ROWS)):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        try:
            # concurrent: a slow pattern lets go of the GIL, so the host's other calls run.
            found = compiled.search(body, timeout=remaining, concurrent=True)
        except TimeoutError:
            raise InvalidInput(
                "The regex took too long (it backtracks catastrophically or the tape is "
                "large): simplify it, anchor it, or narrow the search with --thread/--since.",
                for_agents="The regex took too long (it backtracks catastrophically, or there "
                "is much to search): simplify or anchor it, or narrow the search with the "
                "thread, since and until arguments.",
            ) from None
        if found:
            out.append((int(row_id), 1.0))
            if len(out) >= n:
                break
    return out
