"""The order an import writes tables in, so each row's references find their rows.

The SQLModel classes' order serves SQLite, which checks an import's references at
commit (`defer_foreign_keys`). PostgreSQL checks each statement's at once, and its
tables carry the references the migrations declare beside the classes' own
(`postgres.schema`): a decision names its memory, a conflict both of its memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def write_order(conn: Any, names: Sequence[str]) -> list[str]:
    """`names` in the order rows may be written into them on `conn`'s backend."""
    if conn.dialect.name != "postgresql":
        return list(names)
    from app.db.postgres.schema import metadata  # a home on SQLite never loads it

    ranked = {t.name: i for i, t in enumerate(metadata().sorted_tables)}
    return sorted(names, key=lambda n: ranked.get(n, len(ranked)))
