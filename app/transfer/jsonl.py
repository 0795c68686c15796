"""Export a whole home as JSON Lines, and import such a file into an empty home.

The format is one header line, then one line per row: {"table": …, "row": {…}},
tables in foreign-key order, rows in primary-key order, so exporting, importing
into an empty home and exporting again gives the same lines (bar the header's
time). Derived data (full-text rows, the embedding queue, the vector index) is
not exported: import rebuilds it, and every imported row starts unembedded.
Secret values never appear: vault tables are not exported at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Table, insert, select, text
from sqlmodel import SQLModel

from app.db import NOT_EXPORTED, NOT_EXPORTED_PREFIXES, SECRET_COLUMNS, fulltext
from app.errors import InvalidInput
from app.events import Event, event_name
from app.runtime import Runtime
from app.tape import EMBEDDED_KINDS

FORMAT = 1


def _tables(rt: Runtime) -> list[Table]:
    with rt.store.engine.connect() as conn:
        present = (
            {r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))}
            if rt.store.is_sqlite
            else None
        )
        conn.rollback()
    out = []
    for table in SQLModel.metadata.sorted_tables:
        if table.name in NOT_EXPORTED or table.name.startswith(NOT_EXPORTED_PREFIXES):
            continue
        if present is not None and table.name not in present:
            continue
        out.append(table)
    return out


def _rows(rt: Runtime, table: Table) -> Iterator[dict[str, Any]]:
    with rt.store.read() as s:
        order = list(table.primary_key.columns) or list(table.columns)
        for row in s.execute(select(table).order_by(*order)).mappings():
            data = dict(row)
            for col_name in [c for (t, c) in SECRET_COLUMNS if t == table.name]:
                data[col_name] = None
            yield data


def export(rt: Runtime, out: IO[str]) -> dict[str, int]:
    """Write the home to `out`; returns rows written per table."""
    tables = _tables(rt)
    counts: dict[str, int] = {}
    header = {
        "tapemind_export": FORMAT,
        "schema": rt.store.schema_version(),
        "exported_at": rt.now_iso(),
    }
    out.write(json.dumps(header, ensure_ascii=False) + "\n")
    for table in tables:
        n = 0
        for row in _rows(rt, table):
            out.write(
                json.dumps({"table": table.name, "row": row}, ensure_ascii=False, sort_keys=True)
                + "\n"
            )
            n += 1
        counts[table.name] = n
    return counts


def import_(rt: Runtime, path: Path) -> dict[str, int]:
    """Load an export into this home, which must be empty. All or nothing."""
    known = {t.name: t for t in _tables(rt)}
    batches: dict[str, list[dict[str, Any]]] = {}
    try:
        handle = path.open("r", encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"Cannot read {path}: {exc.strerror}.") from None
    with handle:
        try:
            header_line = handle.readline()
            header = json.loads(header_line) if header_line.strip() else None
        except (json.JSONDecodeError, UnicodeDecodeError):
            header = None
        if not isinstance(header, dict) or header.get("tapemind_export") != FORMAT:
            raise InvalidInput(f"{path} is not a Tapemind export (its first line is no header).")
        if int(header.get("schema", 0)) > rt.store.schema_version():
            raise InvalidInput(
                f"{path} was exported by a newer Tapemind (schema {header['schema']}); "
                "upgrade tapemind to import it."
            )
        for number, line in enumerate(handle, start=2):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                table, row = item["table"], item["row"]
            except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
                raise InvalidInput(f"{path}, line {number}: not an export row.") from None
            if table not in known:
                raise InvalidInput(f"{path}, line {number}: unknown table {table!r}.")
            batches.setdefault(table, []).append(row)

    with rt.write() as s:
        conn = s.connection()
        busy = conn.execute(text("SELECT (SELECT count(*) FROM agents)")).scalar()
        if busy:
            raise InvalidInput(
                "This home is not empty: import only into a new home "
                "(tapemind --home NEW_DIR init, then tapemind --home NEW_DIR import FILE)."
            )
        if rt.store.is_sqlite:
            # memories.superseded_by may point forward; check keys at commit.
            conn.execute(text("PRAGMA defer_foreign_keys = ON"))
        for name, table in known.items():
            rows = batches.get(name)
            if rows:
                columns = {c.name for c in table.columns}
                conn.execute(
                    insert(table), [{k: v for k, v in r.items() if k in columns} for r in rows]
                )
        now = rt.now_iso()
        conn.execute(
            text(
                "INSERT INTO embed_queue (kind, item_id, agent_id, enqueued_at) "
                "SELECT 'memory', id, agent_id, :now FROM memories WHERE status != 'forgotten'"
            ),
            {"now": now},
        )
        kinds = ", ".join(f"'{k}'" for k in EMBEDDED_KINDS)
        conn.execute(
            text(
                "INSERT INTO embed_queue (kind, item_id, agent_id, enqueued_at) "
                f"SELECT 'tape', id, agent_id, :now FROM tape_entries WHERE kind IN ({kinds}) "
                "AND erased_at IS NULL AND content != ''"
            ),
            {"now": now},
        )
        fulltext.rebuild(conn)
    counts = {name: len(rows) for name, rows in batches.items()}
    rt.bus.publish(Event(event_name("home.import"), None, (), counts))
    return counts


def export_to_path(rt: Runtime, path: Path) -> dict[str, int]:
    """Export atomically: a partial file never replaces a good one."""
    tmp = path.with_name(path.name + ".partial")
    try:
        with tmp.open("w", encoding="utf-8") as out:
            counts = export(rt, out)
            out.flush()
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InvalidInput(f"Cannot write {path}: {exc.strerror}.") from None
    return counts
