"""Full-text queries made of common words: the rarest words pick the rows, every word ranks them.

FTS5 computes bm25 for every row that matches any OR-ed term before a LIMIT applies,
and its cost per row grows with the number of terms. A question over a big home often
holds words thousands of rows share (用户, 早上, "project", and the single characters a
Chinese question is also split into): ranking all of them took 20–40 ms at 100,000
memories. So when a query's terms together match more than POSTINGS_BUDGET rows:
- FTS5 gets only the rarest terms within that budget (a common term's IDF is small,
  so the rare ones decide the top anyway) and returns a candidate pool ranked by them;
- the pool is ranked again in Python by Okapi BM25 over every term, with FTS5's own
  formula (k1 1.2, b 0.75, IDF ln((N − n + 0.5) / (n + 0.5)) floored at 1e-6, a
  term's variants counted together), document counts from fts5vocab and lengths from
  the stored token strings (the average length is the pool's).
A row that holds none of the picked terms is not a candidate: it shares only words
with thousands of others. Queries under the budget are ranked by FTS5 as before.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from app.db import Qmark, tsquery
from app.recall import okapi, terms_column
from app.recall.documents import Documents
from app.runtime import Runtime, Slot

POSTINGS_BUDGET = 4000  # rows FTS5 ranks per query, about, before the split applies
POOL = 100  # candidates ranked again over every term (200 cost ~1 ms more, same recall)
COUNT_CACHE_S = 600.0
COUNT_CACHE_MIN = 200  # rare words are cheap to count and change fast: not cached
COUNT_CACHE_SIZE = 50_000
VOCAB = {"memory_fts": "memory_fts_vocab", "tape_fts": "tape_fts_vocab"}
VOCAB_CHUNK = 400  # terms per vocabulary lookup (SQLite's bound parameters are limited)

Group = okapi.Group


DOCUMENT_COUNTS: Slot[dict[Any, tuple[Any, float]]] = Slot("fts_document_counts")


def count_cache(rt: Runtime) -> dict[Any, tuple[Any, float]]:
    """The home's cache of large document counts (kept with the open runtime)."""
    return rt.services.setdefault(DOCUMENT_COUNTS, dict)


def document_counts(
    db: Any, table: str, terms: Sequence[str], cache: dict[Any, tuple[Any, float]] | None
) -> dict[str, int]:
    """How many rows of the full-text `table` hold each term (0 when none).

    Counting a term's rows reads its whole doclist, so common words are costly to look
    up: they are also the ones every query repeats, hence a cache of the large counts
    only (`cache` lives as long as the home is open). A stale large count only shifts
    which rare words are picked."""
    now = time.monotonic()
    if cache is not None and len(cache) > COUNT_CACHE_SIZE:
        cache.clear()
    out = dict.fromkeys(terms, 0)
    missing: list[str] = []
    for term in out:
        hit = cache.get((table, term)) if cache is not None else None
        if hit is None or now - hit[1] > COUNT_CACHE_S:
            missing.append(term)
        else:
            out[term] = hit[0]
    # The terms not cached in one statement per chunk (SQLite hands fts5vocab each
    # value of the IN list as a term lookup): a statement per term was ~70 % more.
    for start in range(0, len(missing), VOCAB_CHUNK):
        chunk = missing[start : start + VOCAB_CHUNK]
        for term, doc in _vocabulary(db, table, chunk, cache):
            out[term] = n = int(doc or 0)
            if cache is not None and n >= COUNT_CACHE_MIN:
                cache[(table, term)] = (n, now)
    return out


def _vocabulary(
    db: Any, table: str, terms: list[str], cache: dict[Any, tuple[Any, float]] | None
) -> Any:
    """(term, rows holding it) for `terms` that some row holds."""
    if isinstance(db, Qmark):
        return terms_column.document_counts(db, table, terms, cache).items()
    sql = f"SELECT term, doc FROM {VOCAB[table]} WHERE term IN ({', '.join('?' * len(terms))})"
    return db.execute(sql, terms)


def group_counts(groups: Sequence[Group], counts: dict[str, int]) -> dict[Group, int]:
    """Rows per query term, its variants ("hikes", "hike") added up."""
    return {g: sum(counts.get(t, 0) for t in g) for g in groups}


def pick(
    groups: Sequence[Group],
    df: dict[Group, int],
    budget: int,
    *,
    first_at_most: int | None = None,
) -> list[Group]:
    """The rarest terms that match something, within `budget` rows; at least one, unless
    even the rarest matches more than `first_at_most` rows (then none: no lexical signal
    worth its cost)."""
    picked: list[Group] = []
    spent = 0
    for group in sorted((g for g in groups if df[g]), key=lambda g: (df[g], g)):
        if picked and spent + df[group] > budget:
            break
        if not picked and first_at_most is not None and df[group] > first_at_most:
            break
        picked.append(group)
        spent += df[group]
    return picked


def bm25(
    db: Any,
    table: str,
    ids: Sequence[int],
    df: dict[Group, int],
    rows: int,
    documents: Documents | None = None,
) -> dict[int, float]:
    """Okapi BM25 (higher is better) of rows `ids` of `table` over the terms of `df`,
    in a table of `rows` rows, weighed as FTS5 weighs them. `documents`: the rows'
    token strings, when the caller scores them again (else read here)."""
    if not ids:
        return {}
    docs = (documents or Documents(db, table)).whole(ids)
    lengths = [n for _, n in docs.values()]
    average = (sum(lengths) / len(lengths)) if lengths else 1.0
    scorer = okapi.Scorer({g: okapi.fts5_idf(rows, n) for g, n in df.items()}, average)
    return {i: scorer.score(doc, n) for i, (doc, n) in docs.items()}


def best_rows(
    db: Any,
    table: str,
    groups: Sequence[Group],
    where: tuple[str, Sequence[Any]],
    n: int,
    rows: int,
    *,
    alias: str = "t",
    cache: dict[Any, tuple[Any, float]] | None = None,
    documents: Documents | None = None,
    agent_id: int | None = None,
) -> list[tuple[int, float]]:
    """(id, BM25, higher is better) of the best `n` rows of `table` that hold a query
    term and pass `where` (SQL over the table as `alias`, and its parameters), on a
    PostgreSQL home (`terms_column`). As on SQLite, the rarest terms within the budget
    pick the candidates when the query is common; every term ranks them, with FTS5's
    formula over the stored tokens, in a table of `rows` rows.

    `agent_id`: the rows are that agent's (`where` says so too). Its token is ANDed into
    the query, so GIN intersects the terms' rows with the agent's before any row is
    read: at 1,000,000 memories over 100 agents the match took 20-55 ms instead of
    115-165 ms, where checking `agent_id` row by row read every agent's matches."""
    terms = [t for g in groups for t in g]
    df = group_counts(groups, document_counts(db, table, terms, cache))
    picked = pick(groups, df, POSTINGS_BUDGET) if sum(df.values()) > POSTINGS_BUDGET else groups
    literal = tsquery([g for g in picked if df[g]], agent_id)
    if literal is None:
        return []
    condition, params = where
    candidates = [
        int(r[0])
        for r in db.execute(
            f"SELECT {alias}.id FROM {terms_column.TABLES[table]} {alias} "
            f"WHERE {condition} AND {alias}.terms @@ CAST(? AS tsquery)",
            (*params, literal),
        )
    ]
    scores = bm25(db, table, candidates, df, rows, documents)
    return sorted(scores.items(), key=lambda p: (-p[1], p[0]))[:n]
