"""The engine's driver SQL on psycopg: `?` placeholders, as the sqlite3 driver takes them.

The hot paths write their statements once, with qmark (`?`) parameters, and run them on
the driver connection of their transaction (`app.db.dbapi`). psycopg takes `%s` instead,
and reads a bare `%` as the start of one. `Qmark` wraps a psycopg connection so those
same texts run on PostgreSQL: each statement is rewritten once (cached), placeholders
outside quotes turned into `%s` and every literal `%` doubled, and the calls the hot
paths make of a sqlite3 connection (`execute`, `executemany`) answer the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=2048)
def translate(sql: str) -> str:
    """`sql` with its `?` placeholders as psycopg's `%s`: a `?` inside a quoted string
    or identifier is text and stays, and a literal `%` is doubled."""
    out: list[str] = []
    quote: str | None = None
    for ch in sql:
        if quote is not None:
            if ch == quote:
                quote = None
            out.append("%%" if ch == "%" else ch)
        elif ch in ("'", '"'):
            quote = ch
            out.append(ch)
        elif ch == "?":
            out.append("%s")
        elif ch == "%":
            out.append("%%")
        else:
            out.append(ch)
    return "".join(out)


class Qmark:
    """A psycopg connection that runs the embedded home's qmark SQL (see the module)."""

    __slots__ = ("conn",)

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement; the cursor, to fetch from or iterate, as sqlite3's."""
        return self.conn.execute(translate(sql), tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any:
        cursor = self.conn.cursor()
        batch = [tuple(r) for r in rows]
        if batch:
            cursor.executemany(translate(sql), batch)
        return cursor
