"""Re-score full-text tape hits with BM25 statistics of the agent's own tape.

FTS5's bm25() counts term frequencies over the whole table, i.e. over every
agent of the home: a word one agent says all the time looks rare to another
agent with a big tape, and its ranking shifts with other agents' text. So the
best POOL hits by FTS5's bm25 are re-scored in Python with Okapi BM25 (k1 1.2,
b 0.75) where N is the agent's own entry count and each term's document
frequency is counted among the agent's rows only (one FTS5 count per query
term, restricted by the agent token). The term frequencies and lengths come
from the stored token strings; the average length is the pool's.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from sqlmodel import Session

from app.text import agent_token, query_groups

K1 = 1.2
B = 0.75
POOL = 100


def _df(s: Session, agent_id: int, group: tuple[str, ...]) -> int:
    terms = " OR ".join(f'"{t}"' for t in group)
    expr = f"{agent_token(agent_id)} AND ({terms})"
    row = (
        s.connection()
        .exec_driver_sql("SELECT count(*) FROM tape_fts WHERE tape_fts MATCH ?", (expr,))
        .first()
    )
    return int(row[0]) if row else 0


def rescore(
    s: Session, agent_id: int, entry_count: int, query: str, pool: Sequence[tuple[int, float]]
) -> list[tuple[int, float]]:
    """(id, agent-local BM25) for the pool's entries, best first."""
    groups = query_groups(query)
    if not pool or not groups:
        return list(pool)
    ids = [i for i, _ in pool]
    marks = ", ".join("?" * len(ids))
    rows = (
        s.connection()
        .exec_driver_sql(f"SELECT rowid, tokens FROM tape_fts WHERE rowid IN ({marks})", tuple(ids))
        .all()
    )
    docs = {int(i): Counter(str(t).split()[1:]) for i, t in rows}
    lengths = {i: sum(c.values()) for i, c in docs.items()}
    avg = (sum(lengths.values()) / len(lengths)) if lengths else 1.0
    n = max(entry_count, max((len(docs), 1)))
    idf = {}
    for group in groups:
        df = min(_df(s, agent_id, group), n)
        idf[group] = math.log(1 + (n - df + 0.5) / (df + 0.5))
    out = []
    for i in ids:
        tf_doc = docs.get(i)
        if tf_doc is None:
            continue
        norm = K1 * (1 - B + B * lengths[i] / (avg or 1.0))
        score = 0.0
        for group, weight in idf.items():
            tf = sum(tf_doc.get(t, 0) for t in group)
            if tf:
                score += weight * tf * (K1 + 1) / (tf + norm)
        out.append((i, score))
    out.sort(key=lambda p: -p[1])
    return out
