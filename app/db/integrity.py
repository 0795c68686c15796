"""Is a home's database whole? A quick check at every open, a full one in `tapemind doctor`.

At open (`check_at_open`), before anything writes:
- the file: not empty (an empty `tapemind.db` is not a new home: `init` makes a new
  home's database, so an empty one lost its contents), SQLite, and as long as its header
  says (a truncated file is refused);
- SQLite's `PRAGMA quick_check` (the b-tree structure of every page: ~0.4 s per 100 MB on
  the 2-core test machine), skipped when the file and its `-wal` are exactly as the last
  good check saw them (`.checked` in the home keeps their size, time and inode);
- a database found damaged while in use (SQLITE_CORRUPT) is recorded in `damaged.json`
  in the home, and every open is refused until `tapemind doctor` finds it whole again.

A refused database is never reset, migrated or written into. `doctor` runs `PRAGMA
integrity_check` (every index against its table too) and the foreign-key check; with
`repair` it rebuilds what can be rebuilt from the rows (indexes: REINDEX; the full-text
tables: FTS5 'rebuild'), never the rows themselves.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.db import disk
from app.errors import HomeDamaged

CHECKED_FILE = ".checked"
DAMAGED_FILE = "damaged.json"
_MAGIC = b"SQLite format 3\x00"
_KEEP = "Tapemind will not open it, so nothing more is written into it (and it is never reset)"
_DOCTOR = (
    "Run `tapemind doctor` to see what is damaged and whether it can be repaired; keep a "
    "copy of the file before anything else."
)
# SQLite's result codes for a damaged file (the extended codes share the low byte).
CORRUPT_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def header_problem(db: Path) -> str | None:
    """What is wrong with the file itself, or None: empty, not SQLite, truncated."""
    with db.open("rb") as fh:
        head = fh.read(100)
        size = fh.seek(0, os.SEEK_END)
    if not head:
        return "empty"
    if len(head) < 100 or not head.startswith(_MAGIC):
        return "not SQLite"
    page = int.from_bytes(head[16:18], "big") or 65536
    pages = int.from_bytes(head[28:32], "big")
    # The header's page count is valid when written by the same change as the header.
    if head[24:28] == head[92:96] and size < pages * page:
        return f"truncated: {size:,} bytes of the {pages * page:,} its header records"
    return None


def refuse_empty(db: Path) -> HomeDamaged:
    return HomeDamaged(
        f"{db} is empty (0 bytes): this home's data is not in it (a failed copy, or a "
        "disk that lost it). Tapemind will not make it a new, empty home. Restore it from "
        "a backup; if this home was never used (an `init` that failed), delete the file "
        "and run `tapemind init` again."
    )


def refuse(db: Path, what: str) -> HomeDamaged:
    return HomeDamaged(f"The home's database {db} is damaged ({what}). {_KEEP}. {_DOCTOR}")


def _stamp(db: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, path in (("db", db), ("wal", db.with_name(db.name + "-wal"))):
        try:
            st = path.stat()
        except FileNotFoundError:
            continue
        out.update(
            {f"{name}_size": st.st_size, f"{name}_mtime": st.st_mtime_ns, f"{name}_ino": st.st_ino}
        )
    return out


def _connect(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(db, timeout=30.0, isolation_level=None)


def damaged_note(home: Path) -> dict[str, Any] | None:
    """What `damaged.json` says (None: the database was not found damaged in use)."""
    try:
        data = json.loads((home / DAMAGED_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"detail": "recorded as damaged"}
    return data if isinstance(data, dict) else {"detail": "recorded as damaged"}


def mark_damaged(home: Path, detail: str) -> None:
    """Record that the database was found damaged in use (best effort: a full disk)."""
    note = {"at": datetime.now(UTC).isoformat(timespec="seconds"), "detail": detail[:300]}
    with contextlib.suppress(OSError):
        (home / DAMAGED_FILE).write_text(json.dumps(note), encoding="utf-8")
    with contextlib.suppress(OSError):
        (home / CHECKED_FILE).unlink()


def check_at_open(db: Path) -> None:
    """Refuse a database that is empty, truncated, damaged or recorded as damaged.

    Raises HomeDamaged (what and what to do), or DiskFull when the disk is too full for
    SQLite to read it."""
    home = db.parent
    problem = header_problem(db)
    if problem == "empty":
        raise refuse_empty(db)
    if problem is not None and problem != "not SQLite":  # a stranger's file: home.py says
        raise refuse(db, problem)
    note = damaged_note(home)
    if note is not None:
        raise refuse(db, f"found damaged on {note.get('at', '?')}: {note.get('detail', '?')}")
    stamp = _stamp(db)
    with contextlib.suppress(OSError, ValueError):
        if json.loads((home / CHECKED_FILE).read_text(encoding="utf-8")) == stamp:
            return
    verdict = _quick_check(db)
    if verdict != "ok":
        raise refuse(db, f"SQLite's quick check: {verdict}")
    with contextlib.suppress(OSError):
        (home / CHECKED_FILE).write_text(json.dumps(_stamp(db)), encoding="utf-8")


def _quick_check(db: Path) -> str:
    try:
        conn = _connect(db)
        try:
            found = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if disk.is_full(db):
            raise disk.full(
                db.parent,
                doing=disk.CANNOT_READ,
            ) from None
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF in CORRUPT_CODES:
            return str(exc)
        raise
    return "ok" if found == ["ok"] else "; ".join(found)


@dataclass(frozen=True)
class DoctorReport:
    """What `tapemind doctor` found in a home's database."""

    database: str
    whole: bool  # SQLite's integrity check and the foreign-key check found nothing
    problems: tuple[str, ...]  # SQLite's words (table, index and page numbers; no row text)
    repaired: tuple[str, ...]  # what `repair` rebuilt
    repairable: bool  # every problem is in an index or a full-text table, rebuilt from rows
    size_bytes: int
    seconds: float
    advice: str


def doctor(db: Path, *, repair: bool = False) -> DoctorReport:
    """The full check of a home's database; with `repair`, rebuild its indexes and
    full-text tables when only they are damaged. Clears `damaged.json` when whole."""
    started = time.perf_counter()
    problem = header_problem(db)
    if problem is not None:
        advice = refuse_empty(db) if problem == "empty" else refuse(db, problem)
        return _report(db, (problem,), (), started, advice=advice.message)
    problems = _integrity(db)
    repaired: tuple[str, ...] = ()
    if problems and repair and _only_derived(problems):
        repaired = _rebuild(db)
        problems = _integrity(db)
    return _report(db, tuple(problems), repaired, started)


def _integrity(db: Path) -> list[str]:
    try:
        conn = _connect(db)
        try:
            found = [str(r[0]) for r in conn.execute("PRAGMA integrity_check(100)")]
            keys = conn.execute("PRAGMA foreign_key_check").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if disk.is_full(db):
            raise disk.full(db.parent, doing=disk.CANNOT_READ) from None
        return [str(exc)]
    out = [] if found == ["ok"] else found
    out += [f"row {r[1]} of {r[0]} refers to a missing row of {r[2]}" for r in keys[:20]]
    return out


def _only_derived(problems: list[str]) -> bool:
    """Whether every problem is one an index or full-text rebuild repairs (SQLite names the
    index: "row 12 missing from index x", "wrong # of entries in index x")."""
    return all(("index" in p and "page" not in p) or "_fts" in p for p in problems)


def _rebuild(db: Path) -> tuple[str, ...]:
    conn = _connect(db)
    try:
        done = []
        conn.execute("REINDEX")
        done.append("every index (REINDEX)")
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE sql LIKE '%USING fts5(%'")
        ]
        for table in tables:
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
            done.append(f"full-text table {table}")
        return tuple(done)
    finally:
        conn.close()


def _report(
    db: Path,
    problems: tuple[str, ...],
    repaired: tuple[str, ...],
    started: float,
    advice: str | None = None,
) -> DoctorReport:
    home = db.parent
    whole = not problems
    if advice is not None:
        pass
    elif whole:
        with contextlib.suppress(OSError):
            (home / DAMAGED_FILE).unlink()
        advice = "The database is whole; nothing to do."
    elif _only_derived(list(problems)):
        advice = (
            "Only indexes or full-text tables are damaged: run `tapemind doctor --repair` "
            "to rebuild them from the rows (keep a copy of the file first)."
        )
    else:
        advice = (
            f"Rows of the database are damaged. Keep a copy of {db} and its -wal file, then "
            "restore the home from a backup (an `export`, or a copy of the home). Tapemind "
            "will not open it until it is whole."
        )
    try:
        size = db.stat().st_size
    except OSError:
        size = 0
    return DoctorReport(
        database=str(db),
        whole=whole,
        problems=problems,
        repaired=repaired,
        repairable=bool(problems) and _only_derived(list(problems)),
        size_bytes=size,
        seconds=round(time.perf_counter() - started, 3),
        advice=advice,
    )
