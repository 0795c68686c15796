"""Bringing a PostgreSQL database to this version's schema, once, whichever host is first.

The embedded home's numbered migrations are SQLite's DDL. A PostgreSQL database is made
from the SQLModel classes instead (`schema.create`), so its upgrade is: every table and
index the classes declare and the database lacks is created, every column a class has
and its table lacks is added (the migrations after the first only ever add), and the
migrations' numbers are recorded as applied, so the same checks as the embedded home's
(a database written by a newer Tapemind is refused) hold. Hosts starting together wait
for each other on an advisory lock: one upgrades, the others find it done.
"""

from __future__ import annotations

from sqlalchemy import Connection, inspect, text
from sqlalchemy.schema import CreateColumn

from app.db.postgres.schema import create, metadata

# The key of the advisory lock an upgrade holds ("tapemind schema" as a 64-bit number).
UPGRADE_LOCK = 0x7461_7065_5F73_6368


def upgrade(conn: Connection, migrations: dict[int, str], applied_at: str) -> list[int]:
    """Create what the database lacks and record `migrations` (number -> name) as
    applied, inside the caller's transaction; returns the numbers recorded now."""
    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": UPGRADE_LOCK})
    create(conn)
    _add_missing_columns(conn)
    done = {int(r[0]) for r in conn.execute(text("SELECT id FROM migrations"))}
    fresh = sorted(n for n in migrations if n not in done)
    for number in fresh:
        conn.execute(
            text("INSERT INTO migrations (id, name, applied_at) VALUES (:n, :name, :at)"),
            {"n": number, "name": migrations[number], "at": applied_at},
        )
    return fresh


def _add_missing_columns(conn: Connection) -> None:
    present = inspect(conn)
    for table in metadata().sorted_tables:
        have = {c["name"] for c in present.get_columns(table.name)}
        for column in table.columns:
            if column.name not in have:
                ddl = CreateColumn(column).compile(dialect=conn.dialect)
                conn.execute(text(f'ALTER TABLE "{table.name}" ADD COLUMN IF NOT EXISTS {ddl}'))
