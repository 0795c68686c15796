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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class TapeStatistics:
    """BM25 statistics of one agent's tape for one query: each term's IDF among the
    agent's entries, and the average token count of the pool they were taken on."""

    idf: Mapping[tuple[str, ...], float]
    average_length: float

    def score(self, tokens: Counter[str], length: int) -> float:
        """Okapi BM25 of a token count (a stored token string's words, or any text's)."""
        norm = K1 * (1 - B + B * length / (self.average_length or 1.0))
        total = 0.0
        for group, weight in self.idf.items():
            tf = sum(tokens.get(t, 0) for t in group)
            if tf:
                total += weight * tf * (K1 + 1) / (tf + norm)
        return total


@dataclass(frozen=True)
class RescoredPool:
    """The pool re-scored: (id, agent-local BM25) best first, each entry's token count,
    and the statistics they were scored with."""

    hits: list[tuple[int, float]]
    lengths: Mapping[int, int]
    statistics: TapeStatistics | None


def pool_tokens(s: Session, ids: Sequence[int]) -> dict[int, Counter[str]]:
    """The stored token strings of tape entries `ids`, counted (the agent token left out)."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    rows = (
        s.connection()
        .exec_driver_sql(f"SELECT rowid, tokens FROM tape_fts WHERE rowid IN ({marks})", tuple(ids))
        .all()
    )
    return {int(i): Counter(str(t).split()[1:]) for i, t in rows}


def rescore_pool(
    s: Session, agent_id: int, entry_count: int, query: str, pool: Sequence[tuple[int, float]]
) -> RescoredPool:
    """The pool's entries re-scored with the agent's own BM25 statistics."""
    groups = query_groups(query)
    if not pool or not groups:
        return RescoredPool(list(pool), {}, None)
    ids = [i for i, _ in pool]
    docs = pool_tokens(s, ids)
    lengths = {i: sum(c.values()) for i, c in docs.items()}
    avg = (sum(lengths.values()) / len(lengths)) if lengths else 1.0
    n = max(entry_count, max((len(docs), 1)))
    idf = {}
    for group in groups:
        df = min(_df(s, agent_id, group), n)
        idf[group] = math.log(1 + (n - df + 0.5) / (df + 0.5))
    stats = TapeStatistics(idf, avg)
    out = [(i, stats.score(docs[i], lengths[i])) for i in ids if i in docs]
    out.sort(key=lambda p: -p[1])
    return RescoredPool(out, lengths, stats)


def rescore(
    s: Session, agent_id: int, entry_count: int, query: str, pool: Sequence[tuple[int, float]]
) -> list[tuple[int, float]]:
    """(id, agent-local BM25) for the pool's entries, best first."""
    return rescore_pool(s, agent_id, entry_count, query, pool).hits
