"""`tapemind migrate`: a home moved to another database and back, under its lock.

The home directory stays where it is; what changes is where its truth is kept: its own
`tapemind.db` (the embedded home) or a PostgreSQL database (`database.json`). The copy
is made and checked first (`app.transfer.move`) in a staging directory; only then is the
home switched, in an order that a crash at any point leaves a home that opens on one
complete copy: the new truth's file goes in before the old one goes out, and the new one
wins where both are (`database.json` is read first). The old truth is kept, never
deleted: its files go to `before-migrate-TIME/` (a PostgreSQL database is left as it
was), and the vector index, derived from the rows, is built again from them.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from app.db import home as homes
from app.engine import Engine
from app.errors import HomeError, InvalidInput
from app.host.connect import open_home

EMBEDDED = "embedded"
STAGING = ".migrating"


@dataclass(frozen=True)
class MoveReport:
    home: Path
    to: str  # "embedded" or "postgresql"
    rows: dict[str, int]
    kept: Path  # where the old truth's files went


def move_home(home: Path, to: str) -> MoveReport:
    """Move the truth of the home at `home` to `to`: a PostgreSQL URL, or "embedded"
    (back into the home's own file). Raises HomeError when a host has the home open or it
    is there already, InvalidInput when the target is not empty or the copy differs."""
    path = homes.resolve(home)
    if not homes.is_home(path):
        raise HomeError(f"No Tapemind home at {path}: nothing to migrate.")
    here = homes.database_url(path)
    if to == EMBEDDED and here is None:
        raise HomeError(f"{path} keeps its memories in its own {homes.DB_NAME} already.")
    if to != EMBEDDED and not to.lower().startswith(("postgresql://", "postgres://")):
        raise InvalidInput(
            "Migrate to a PostgreSQL URL (postgresql://USER@HOST/DB) or to `embedded`."
        )
    if here is not None and to == here:
        raise HomeError(f"{path} keeps its memories in that database already.")
    opened = open_home(path, role="migrate")
    if opened.remote:
        opened.close()
        raise HomeError(
            "A host has this home open (`tapemind serve` or the desktop app): stop it, "
            "then migrate. Nothing was changed."
        )
    url = None if to == EMBEDDED else to
    staging = path / STAGING
    try:
        try:
            shutil.rmtree(staging, ignore_errors=True)
            (staging / "work").mkdir(parents=True)
            with Engine.open(staging / "home", create=True, database_url=url) as target:
                rows = opened.engine.copy_to(target, staging / "work")
        finally:
            opened.engine.close()  # its file is whole and closed before it moves
        kept = _switch(path, staging / "home", to_embedded=url is None)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if opened.lock is not None:
            opened.lock.release()
    return MoveReport(path, EMBEDDED if url is None else "postgresql", rows, kept)


def _switch(path: Path, made: Path, *, to_embedded: bool) -> Path:
    stamp = f"before-migrate-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}"
    kept = path / stamp
    for n in range(2, 1000):  # two moves in one second keep two copies
        if not kept.exists():
            break
        kept = path / f"{stamp}-{n}"
    kept.mkdir()
    if to_embedded:
        # The file goes in while database.json still names the database; then that goes.
        for name in _sqlite_files(made):
            os.replace(made / name, path / name)
        os.replace(path / homes.DATABASE_FILE, kept / homes.DATABASE_FILE)
    else:
        # database.json goes in (and wins over tapemind.db); then the old file goes. From
        # one PostgreSQL database to another, the old URL is kept with the old copy.
        if (path / homes.DATABASE_FILE).exists():
            shutil.copy2(path / homes.DATABASE_FILE, kept / homes.DATABASE_FILE)
        os.replace(made / homes.DATABASE_FILE, path / homes.DATABASE_FILE)
        for name in _sqlite_files(path):
            os.replace(path / name, kept / name)
    index = path / "index"
    if index.exists():  # the old truth's vectors: built again from the rows
        os.replace(index, kept / "index")
    return kept


def _sqlite_files(where: Path) -> list[str]:
    return sorted(p.name for p in where.iterdir() if p.name.startswith(homes.DB_NAME))
