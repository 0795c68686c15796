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
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import SQLModel

from app.db import (
    NOT_EXPORTED,
    NOT_EXPORTED_PREFIXES,
    SECRET_COLUMNS,
    catch_up_sequences,
    fulltext,
    write_order,
)
from app.errors import InvalidInput
from app.events import Event, event_name
from app.limits import MAX_ID
from app.models import CATEGORIES, KINDS, ROLES, STATUSES
from app.runtime import Runtime
from app.tape import EMBEDDED_KINDS, encodable, label

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


# A line of an export holds one row: an entry of a million characters, escaped, fits.
MAX_LINE_CHARS = 16 * 1024 * 1024
# Columns an import checks against what the engine writes (a file is input like any other).
_CHOICES = {
    ("tape_entries", "kind"): KINDS,
    ("tape_entries", "role"): ROLES,
    ("memories", "category"): CATEGORIES,
    ("memories", "status"): STATUSES,
}
_LABELS = {"tape_entries": ("thread", "turn", "user", "source_key")}


def _rows_of(path: Path, known: dict[str, Table], schema: int) -> dict[str, list[dict[str, Any]]]:
    """The rows of an export file by table, checked line by line (InvalidInput naming
    the line, never its content)."""
    if not path.is_file():
        raise InvalidInput(f"{path} is not a file: give the path of an export (JSON Lines).")
    batches: dict[str, list[dict[str, Any]]] = {}
    try:
        handle = path.open("r", encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"Cannot read {path}: {exc.strerror}.") from None
    with handle:
        try:
            header_line = handle.readline(MAX_LINE_CHARS)
            header = json.loads(header_line) if header_line.strip() else None
        except (ValueError, UnicodeDecodeError, RecursionError):
            header = None
        if not isinstance(header, dict) or header.get("tapemind_export") != FORMAT:
            raise InvalidInput(f"{path} is not a Tapemind export (its first line is no header).")
        made_by = header.get("schema", 0)
        if not isinstance(made_by, int) or isinstance(made_by, bool):
            raise InvalidInput(f"{path}: its header names no schema version.")
        if made_by > schema:
            raise InvalidInput(
                f"{path} was exported by a newer Tapemind (schema {min(made_by, 10**6)}); "
                "upgrade tapemind to import it."
            )
        number = 1
        while True:
            try:
                line = handle.readline(MAX_LINE_CHARS + 1)
            except UnicodeDecodeError:
                raise InvalidInput(f"{path}, line {number + 1}: not UTF-8 text.") from None
            if not line:
                break
            number += 1
            if len(line) > MAX_LINE_CHARS:
                raise InvalidInput(f"{path}, line {number}: longer than any export row.")
            if not line.strip():
                continue
            table, row = _row(path, number, line, known)
            batches.setdefault(table, []).append(row)
    return batches


def _row(path: Path, number: int, line: str, known: dict[str, Table]) -> tuple[str, dict[str, Any]]:
    where = f"{path}, line {number}"
    try:
        item = json.loads(line)
        table, row = item["table"], item["row"]
    except (ValueError, KeyError, TypeError, RecursionError):
        raise InvalidInput(f"{where}: not an export row.") from None
    if not isinstance(table, str) or table not in known or not isinstance(row, dict):
        raise InvalidInput(f"{where}: not a row of a table this home exports.")
    columns = {c.name for c in known[table].columns}
    clean = {k: v for k, v in row.items() if k in columns}
    for name, value in clean.items():
        if value is not None and not isinstance(value, str | int | float):
            raise InvalidInput(f"{where}: column {name} holds a list or an object.")
        if isinstance(value, str) and not encodable(value):
            raise InvalidInput(f"{where}: column {name} is not valid Unicode.")
        if isinstance(value, int) and not -MAX_ID - 1 <= value <= MAX_ID:
            raise InvalidInput(f"{where}: column {name} is out of range.")
        choices = _CHOICES.get((table, name))
        if choices is not None and value not in choices:
            raise InvalidInput(f"{where}: column {name} is not one of {', '.join(choices)}.")
    for name in _LABELS.get(table, ()):
        label(clean.get(name), name, where, required=False)
    # Never from a file: a token hash there would let whoever wrote it act as the agent.
    for col_name in [c for (t, c) in SECRET_COLUMNS if t == table]:
        clean[col_name] = None
    return table, clean


def import_(rt: Runtime, path: Path) -> dict[str, int]:
    """Load an export into this home, which must be empty. All or nothing; a file that
    does not hold what an export holds is refused with the line that says so."""
    known = {t.name: t for t in _tables(rt)}
    batches = _rows_of(path, known, rt.store.schema_version())
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
        try:
            for name in write_order(conn, list(known)):
                if rows := batches.get(name):
                    conn.execute(insert(known[name]), rows)
        except (SQLAlchemyError, ValueError, TypeError, OverflowError) as exc:
            raise _refused(path, exc) from None
        # The rows came with their ids: new ones are handed out past them.
        catch_up_sequences(conn, [t for t, table in known.items() if "id" in table.c])
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


def _refused(path: Path, exc: BaseException) -> InvalidInput:
    # The database's own words name a constraint or a column, not the file's content.
    reason = str(getattr(exc, "orig", exc)).splitlines()[0][:200]
    return InvalidInput(
        f"{path} does not fit an empty home ({reason}): nothing was imported. Import an "
        "export made by `tapemind export`, unchanged."
    )


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
