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

from collections.abc import Sequence
from typing import Any

from app.db import tsquery

# The table each full-text name stands for on PostgreSQL (its `terms` column).
TABLES = {"memory_fts": "memories", "tape_fts": "tape_entries"}
Group = tuple[str, ...]


def document_counts(db: Any, fts: str, terms: Sequence[str]) -> dict[str, int]:
    """How many rows of `fts`'s table hold each of `terms` (every agent's, as fts5vocab
    counts them): one GIN count per term, in one statement."""
    if not terms:
        return {}
    literals = [tsquery([(t,)], None) for t in terms]
    rows = db.execute(
        f"SELECT q.i, (SELECT count(*) FROM {TABLES[fts]} WHERE terms @@ CAST(q.t AS tsquery)) "
        "FROM unnest(CAST(? AS text[])) WITH ORDINALITY AS q(t, i)",
        (literals,),
    ).fetchall()
    out = dict.fromkeys(terms, 0)
    for i, n in rows:
        out[terms[int(i) - 1]] = int(n or 0)
    return out


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
