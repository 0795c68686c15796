"""Full-text reads on a PostgreSQL home: the `terms` column, ranked as FTS5 ranks.

The embedded home asks FTS5 for matches (`MATCH`), their bm25 (`bm25()`), a term's
document count (`fts5vocab`) and a row's stored tokens. On PostgreSQL the same tokens
are a `tsvector` in each row (`app.db.postgres.tokens`): GIN finds the rows holding a
query's terms, and the ranking is not PostgreSQL's `ts_rank` (it knows no document
frequencies) but FTS5's own Okapi BM25, computed here over the stored tokens with the
document counts PostgreSQL counts (`rare_terms.bm25`, the formula the embedded home
re-ranks its pools with). So a search orders its hits as on the embedded home, up to
the average length (the candidates', where FTS5 takes the table's).

Every function takes the `dbapi` of the caller's transaction (`app.db.Qmark`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.db import tsquery

# The table each full-text name stands for on PostgreSQL (its `terms` column).
TABLES = {"memory_fts": "memories", "tape_fts": "tape_entries"}
Group = tuple[str, ...]


# What PostgreSQL's statistics say of a `terms` column: the lexemes ANALYZE found in
# the most rows, with the share of rows holding each. Counting such a word's rows
# through GIN reads its whole posting list: 200-450 ms each for words that half of
# 1,000,000 memories hold, and 50-100 ms even with the count capped (the bitmap is
# built before the first row). Kept with the home's count cache, read again after
# STATISTICS_TTL_S. ANALYZE keeps up to 10 x STATISTICS lexemes (`schema.create` sets
# it on both columns; autovacuum analyzes a table as its rows change).
STATISTICS = 1000
STATISTICS_TTL_S = 600.0
_STATISTICS_KEY = "\0statistics"


@dataclass(frozen=True)
class CommonWords:
    """The rows holding each of the column's most common lexemes (estimated from
    ANALYZE's sample), and about how many a lexeme held by more would have had to be
    listed (`floor`)."""

    counts: dict[str, int]
    floor: int


def document_counts(
    db: Any, fts: str, terms: Sequence[str], cache: dict[Any, Any] | None = None
) -> dict[str, int]:
    """How many rows of `fts`'s table hold each of `terms` (every agent's, as fts5vocab
    counts them). A lexeme PostgreSQL's statistics list is not counted: its share of
    the table's rows, as ANALYZE measured it, stands for its count. The others are
    counted through GIN, one statement for all, up to the statistics' floor (a count
    there is "at least that many"); every one, exactly, before the table's first
    ANALYZE."""
    if not terms:
        return {}
    common = _common_words(db, fts, cache)
    out = dict.fromkeys(terms, 0)
    rest = [t for t in terms if common is None or t not in common.counts]
    if common is not None:
        out.update({t: common.counts[t] for t in terms if t in common.counts})
    if not rest:
        return out
    literals = [tsquery([(t,)], None) for t in rest]
    matching = f"SELECT 1 FROM {TABLES[fts]} WHERE terms @@ CAST(q.t AS tsquery)"
    if common is not None:
        counted = f"(SELECT count(*) FROM ({matching} LIMIT {int(common.floor)}) AS held)"
    else:
        counted = f"(SELECT count(*) FROM {TABLES[fts]} WHERE terms @@ CAST(q.t AS tsquery))"
    rows = db.execute(
        f"SELECT q.i, {counted} FROM unnest(CAST(? AS text[])) WITH ORDINALITY AS q(t, i)",
        (literals,),
    ).fetchall()
    for i, n in rows:
        out[rest[int(i) - 1]] = int(n or 0)
    return out


def _common_words(db: Any, fts: str, cache: dict[Any, Any] | None) -> CommonWords | None:
    """The column's `CommonWords`, from `cache` while fresh; None before ANALYZE."""
    now = time.monotonic()
    key = (fts, _STATISTICS_KEY)
    held = cache.get(key) if cache is not None else None
    if held is not None and now - held[1] < STATISTICS_TTL_S:
        return held[0] if isinstance(held[0], CommonWords) else None
    row = db.execute(
        "SELECT CAST(CAST(s.most_common_elems AS text) AS text[]), s.most_common_elem_freqs, "
        "s.null_frac, c.reltuples FROM pg_stats s "
        "JOIN pg_class c ON c.oid = to_regclass(quote_ident(s.schemaname) || '.' || "
        "quote_ident(s.tablename)) "
        "WHERE s.schemaname = current_schema() AND s.tablename = ? AND s.attname = 'terms'",
        (TABLES[fts],),
    ).fetchone()
    common = _from_statistics(row)
    if cache is not None:
        cache[key] = (common or False, now)
    return common


def _from_statistics(row: Any) -> CommonWords | None:
    """`CommonWords` from pg_stats' row (None when ANALYZE has not listed any)."""
    if row is None or not row[0] or not row[1] or row[3] is None or float(row[3]) <= 0:
        return None
    words, shares = list(row[0]), [float(f) for f in row[1]]
    # Per-word shares of the non-null rows, then their minimum, maximum (and nulls').
    rows = float(row[3]) * (1.0 - float(row[2] or 0.0))
    counts = {w: max(1, round(f * rows)) for w, f in zip(words, shares, strict=False)}
    return CommonWords(counts, max(1, round(shares[len(words)] * rows)) + 1)


def agent_counts(db: Any, agent_id: int, groups: Sequence[Group]) -> list[int]:
    """How many of the agent's tape entries hold each group (its variants together)."""
    out: list[int] = []
    for group in groups:
        literal = tsquery([group], None)
        row = db.execute(
            "SELECT count(*) FROM tape_entries WHERE agent_id = ? AND terms @@ CAST(? AS tsquery)",
            (agent_id, literal),
        ).fetchone()
        out.append(int(row[0] or 0))
    return out


def matching(db: Any, fts: str, ids: Sequence[int], groups: Sequence[Group]) -> set[int]:
    """Those of rows `ids` that hold any term of `groups`."""
    literal = tsquery(groups, None)
    if literal is None or not ids:
        return set()
    rows = db.execute(
        f"SELECT id FROM {TABLES[fts]} WHERE id = ANY(CAST(? AS bigint[])) "
        "AND terms @@ CAST(? AS tsquery)",
        ([int(i) for i in ids], literal),
    )
    return {int(r[0]) for r in rows}


def stored_tokens(db: Any, fts: str, ids: Sequence[int]) -> list[tuple[int, str]]:
    """(id, token string) of the rows of `ids` that are indexed: the tokens in their
    order, as the embedded home's FTS5 row holds them (agent token first).

    PostgreSQL puts each row's lexemes back in position order itself (`unnest`, then
    `string_agg`): one row back per document, where handing each lexeme to Python cost
    twice the time, and parsing the `tsvector`'s text form ~0.3 ms a row. A lexeme past
    256 positions in one row keeps its first 256 (PostgreSQL's limit), so a very long
    text's most repeated words count a little less than on SQLite."""
    rows = db.execute(
        "SELECT t.id, string_agg(u.lexeme, ' ' ORDER BY p, u.lexeme) "
        f"FROM {TABLES[fts]} t, unnest(t.terms) u, "
        "unnest(coalesce(u.positions, CAST('{0}' AS smallint[]))) p "
        "WHERE t.id = ANY(CAST(? AS bigint[])) AND t.terms IS NOT NULL GROUP BY t.id",
        ([int(i) for i in ids],),
    )
    return [(int(row_id), str(tokens)) for row_id, tokens in rows]
