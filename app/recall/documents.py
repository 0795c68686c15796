"""The stored token strings of the full-text rows one search scores, read once.

A tape search scores the same rows up to three times: FTS5's pool ranked again over
every term (`rare_terms`), its best hits with the agent's own statistics (`rerank`),
and the candidates' lengths (`turns`). Each read the rows' token strings from SQLite
and padded them (`okapi.padded`) for itself; one `Documents` per search reads and pads
each row once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.db import Qmark, id_list
from app.recall import okapi, terms_column


class Documents:
    """Rows of one full-text table (`memory_fts`, `tape_fts`) by rowid, read on demand
    through the DB-API connection `db` of the caller's transaction."""

    def __init__(self, db: Any, table: str) -> None:
        self._db = db
        self._table = table
        # rowid -> (the padded token string, where its words start in it, its token
        # count less one, its word count)
        self._rows: dict[int, tuple[str, int, int, int]] = {}

    def _read(self, ids: Sequence[int]) -> list[int]:
        wanted = [int(i) for i in ids]
        missing = [i for i in dict.fromkeys(wanted) if i not in self._rows]
        if missing and isinstance(self._db, Qmark):
            for i, tokens in terms_column.stored_tokens(self._db, self._table, missing):
                self._rows[i] = _parsed(tokens)
        elif missing:
            marks, bound = id_list(missing)
            sql = f"SELECT rowid, tokens FROM {self._table} WHERE rowid IN ({marks})"
            for i, raw in self._db.execute(sql, bound):
                self._rows[int(i)] = _parsed(str(raw))
        return [i for i in wanted if i in self._rows]

    def whole(self, ids: Sequence[int]) -> dict[int, tuple[str, int]]:
        """The rows of `ids` that exist: their padded token string, agent token included,
        and its token count less one (the agent token's)."""
        rows = self._rows
        return {i: (rows[i][0], rows[i][2]) for i in self._read(ids)}

    def words(self, ids: Sequence[int]) -> dict[int, tuple[str, int]]:
        """The rows of `ids` that exist: their padded words (the agent token left out)
        and their word count."""
        rows = self._rows
        return {i: (rows[i][0][rows[i][1] :], rows[i][3]) for i in self._read(ids)}


def _parsed(tokens: str) -> tuple[str, int, int, int]:
    # The first token is the agent's: not a word, so not counted in a row's length. In
    # the padded string the words start after it and its doubled separator.
    first = tokens.find(" ")
    if first < 0:
        return okapi.padded(tokens), len(tokens) + 2, 0, 0
    spaces = tokens.count(" ")
    return okapi.padded(tokens), first + 2, spaces, spaces if first + 1 < len(tokens) else 0
