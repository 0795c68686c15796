"""Full-text search over the `terms` column: the embedded home's query rules, in SQL.

A query becomes the same term groups FTS5 is given (`app.text.query_groups`: stems, CJK
bigrams and characters, stop words dropped), written as a `tsquery`; GIN finds the rows
and `ts_rank` orders them. `ts_rank` is not FTS5's bm25 (it knows no document
frequencies), so the order of near ties can differ from the embedded home's.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

from app.db.postgres.schema import FULLTEXT_TABLES
from app.db.postgres.tokens import tsquery_literal
from app.text import query_groups


def search(
    conn: Connection,
    table: str,
    agent_id: int,
    query: str,
    *,
    limit: int = 20,
    any_term: bool = True,
) -> list[tuple[int, float]]:
    """The ids of agent `agent_id`'s rows of `table` (memories or tape_entries) that
    match `query`, best first, with their rank; `any_term`: a row needs one of the
    query's terms (else all of them)."""
    if table not in FULLTEXT_TABLES:
        raise ValueError(f"not a full-text table: {table}")
    q = tsquery_literal(query_groups(query), agent_id, any_term=any_term)
    if q is None:
        return []
    # The agent is filtered twice on purpose: its token in the tsquery (as the embedded
    # MATCH does) and its column, so a row can never answer another agent's query.
    rows = conn.execute(
        text(
            f"SELECT id, ts_rank(terms, q) AS rank FROM {table}, CAST(:q AS tsquery) AS q "
            "WHERE agent_id = :agent AND terms @@ q ORDER BY rank DESC, id LIMIT :n"
        ),
        {"q": q, "agent": agent_id, "n": limit},
    ).all()
    return [(int(i), float(r)) for i, r in rows]
