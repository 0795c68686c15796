"""Re-score full-text tape hits with BM25 statistics of the agent's own tape.

FTS5's bm25() counts term frequencies over the whole table, i.e. over every
agent of the home: a word one agent says all the time looks rare to another
agent with a big tape, and its ranking shifts with other agents' text. So the
best POOL hits by FTS5's bm25 are re-scored in Python with Okapi BM25
(`app.recall.okapi`) where N is the agent's own entry count and each term's
document frequency is counted among the agent's rows only (one FTS5 count per
query term, restricted by the agent token). The term frequencies and lengths come
from the stored token strings; the average length is the pool's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.db import Qmark, Tx, dbapi
from app.recall import okapi, terms_column
from app.recall.documents import Documents
from app.text import agent_token, query_groups

POOL = 100


def document_counts(s: Tx, agent_id: int, groups: Sequence[tuple[str, ...]]) -> list[int]:
    """How many of the agent's entries hold each term (its variants together): one FTS5
    count per term restricted by the agent token, all in one statement."""
    if not groups:
        return []
    if isinstance(dbapi(s), Qmark):
        return terms_column.agent_counts(dbapi(s), agent_id, groups)
    count = "(SELECT count(*) FROM tape_fts WHERE tape_fts MATCH ?)"
    token = agent_token(agent_id)
    params = [f"{token} AND ({' OR '.join(f'{chr(34)}{t}{chr(34)}' for t in g)})" for g in groups]
    row = dbapi(s).execute(f"SELECT {', '.join([count] * len(groups))}", params).fetchone()
    return [int(n or 0) for n in row]


@dataclass(frozen=True)
class RescoredPool:
    """The pool re-scored: (id, agent-local BM25) best first, each entry's token count,
    and the statistics they were scored with."""

    hits: list[tuple[int, float]]
    lengths: Mapping[int, int]
    statistics: okapi.Scorer | None


def rescore_pool(
    s: Tx,
    agent_id: int,
    entry_count: int,
    query: str,
    pool: Sequence[tuple[int, float]],
    documents: Documents | None = None,
) -> RescoredPool:
    """The pool's entries re-scored with the agent's own BM25 statistics. `documents`:
    the tape's token strings already read for this search (else read here)."""
    groups = query_groups(query)
    if not pool or not groups:
        return RescoredPool(list(pool), {}, None)
    ids = [i for i, _ in pool]
    docs = (documents or Documents(dbapi(s), "tape_fts")).words(ids)
    lengths = {i: n for i, (_, n) in docs.items()}
    avg = (sum(lengths.values()) / len(lengths)) if lengths else 1.0
    n = max(entry_count, max((len(docs), 1)))
    counts = document_counts(s, agent_id, groups)
    idf = {group: okapi.smooth_idf(n, df) for group, df in zip(groups, counts, strict=True)}
    stats = okapi.Scorer(idf, avg)
    out = [(i, stats.score(*docs[i])) for i in ids if i in docs]
    out.sort(key=lambda p: -p[1])
    return RescoredPool(out, lengths, stats)


def rescore(
    s: Tx, agent_id: int, entry_count: int, query: str, pool: Sequence[tuple[int, float]]
) -> list[tuple[int, float]]:
    """(id, agent-local BM25) for the pool's entries, best first."""
    return rescore_pool(s, agent_id, entry_count, query, pool).hits
