"""Which full-text hits share only single Chinese characters with the query.

A Chinese query's terms are its bigrams and its single characters (`app.text.terms`):
the characters let "绿茶" find "红茶", but they also let "用户喜欢喝什么" find every
memory holding 用 (利用, 沿用, 多用数据), which bm25 ranks low yet still ranks. Search
shows such hits in order and that is fine; `context` injects them, and with room in
the budget four unrelated memories came in on one shared character. When some hit
shares a bigram or a word with the query (a clear signal), the hits that share only
characters are weak: `context` leaves them out unless semantic search vouches for them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.db import Qmark, Tx, dbapi, id_list
from app.recall import terms_column
from app.text import CJK_LETTERS, groups_expression, query_groups

_ONE_CJK = re.compile(rf"[{CJK_LETTERS}]")


def _strong_groups(query: str) -> list[tuple[str, ...]]:
    """The query's terms that are more than one CJK character: words and bigrams."""
    return [g for g in query_groups(query) if not _ONE_CJK.fullmatch(g[0])]


def character_only(s: Tx, query: str, ids: Sequence[int]) -> set[int]:
    """Of the memory full-text hits `ids`, those sharing only single CJK characters with
    `query`, when at least one of `ids` shares more; else none (with no clear signal,
    a shared character is the best evidence there is). One FTS5 query over `ids`."""
    strong = _strong_groups(query)
    if not ids or not strong or len(strong) == len(query_groups(query)):
        return set()  # no character term, or nothing but: every hit is alike
    db = dbapi(s)
    if isinstance(db, Qmark):
        matched = terms_column.matching(db, "memory_fts", ids, strong)
    else:
        expr = groups_expression(strong, None)
        assert expr is not None
        marks, bound = id_list(ids)
        sql = f"SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? AND rowid IN ({marks})"
        matched = {int(r[0]) for r in db.execute(sql, (expr, *bound))}
    return set(ids) - matched if matched else set()
