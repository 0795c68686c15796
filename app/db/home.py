"""Where a home lives, and what makes a directory a Tapemind home.

A home is one directory: `tapemind.db` (the truth), `index/` (the vector index,
derived data), and whatever later features keep beside them. It is chosen by
`--home`, else `TAPEMIND_HOME`, else the platform's user data directory.

A home whose truth is a PostgreSQL database keeps `database.json` instead of
`tapemind.db`: the database's URL (0600: it may hold a password), written by
`tapemind init --database URL` so every later command finds it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sqlite3
import stat
from pathlib import Path

import platformdirs

from app.db import disk, integrity
from app.errors import HomeError

DB_NAME = "tapemind.db"
DATABASE_FILE = "database.json"


def resolve(home: str | os.PathLike[str] | None = None) -> Path:
    if home:
        return Path(home).expanduser().resolve()
    env = os.environ.get("TAPEMIND_HOME")
    if env:
        return Path(env).expanduser().resolve()
    return Path(platformdirs.user_data_dir("tapemind", appauthor=False))


def db_path(home: Path) -> Path:
    return home / DB_NAME


def is_home(home: Path) -> bool:
    """Whether `home` holds a home's truth: its SQLite file, or where its database is."""
    return db_path(home).exists() or (home / DATABASE_FILE).exists()


def database_url(home: Path) -> str | None:
    """The URL of the database a home keeps elsewhere (`database.json`), or None: its
    truth is its own `tapemind.db`."""
    path = home / DATABASE_FILE
    if not path.exists():
        return None
    keep_private(path)  # it may hold the database's password
    try:
        url = json.loads(path.read_text(encoding="utf-8")).get("url")
    except (OSError, ValueError, AttributeError):
        url = None
    if not isinstance(url, str) or not url.strip():
        raise HomeError(
            f"{path} does not say where this home's database is (it should be JSON with a "
            '"url"). Write it again with `tapemind --home DIR init --database URL`; '
            "nothing was changed."
        )
    return url.strip()


def keep_database_url(home: Path, url: str) -> None:
    """Write `database.json` for a new home (0600, atomically: a half-written file would
    leave a home that cannot be opened)."""
    path = home / DATABASE_FILE
    fresh = path.with_name(f".{DATABASE_FILE}.new")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"url": url}, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(fresh, path)


def check_openable(home: Path, *, create: bool) -> None:
    """Refuse, with what to do, a home that does not exist or is not ours."""
    if home.exists() and not home.is_dir():
        raise HomeError(f"{home} is a file, not a Tapemind home directory.")
    if db_path(home).exists():
        check_database(db_path(home))
        return
    if (home / DATABASE_FILE).exists():
        return  # its database is checked when it is opened
    if not create:
        if home.exists() and any(home.iterdir()):
            raise HomeError(
                f"{home} is not a Tapemind home (no {DB_NAME} in it). Point --home or "
                "TAPEMIND_HOME at your home, or create one in an empty directory with "
                "`tapemind --home DIR init`."
            )
        raise HomeError(
            f"No Tapemind home at {home}. Create one with "
            f"`tapemind --home {shlex.quote(str(home))} init` "
            "(or choose another with --home DIR / TAPEMIND_HOME)."
        )
    if home.exists() and any(p.name != ".lock" for p in home.iterdir()):
        raise HomeError(
            f"{home} already holds other files; Tapemind only creates a home in an empty "
            "or new directory, so nothing of yours is mixed with it."
        )
    home.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        home.chmod(0o700)  # memories and the tape are private to the owner


def check_database(db: Path) -> None:
    """Refuse a `tapemind.db` that is not ours, or is empty, truncated or damaged, before
    anything opens it for writing (opening switches a database to WAL mode, which would
    change a stranger's file; a damaged one is never written into: `integrity.py`)."""
    fix = "Point --home or TAPEMIND_HOME at your Tapemind home; nothing was changed."
    if not db.is_file():
        raise HomeError(f"{db} is not a database file. {fix}")
    try:
        problem = integrity.header_problem(db)
    except OSError as exc:
        raise HomeError(f"Cannot read {db}: {exc.strerror}. {fix}") from None
    if problem == "empty":
        raise integrity.refuse_empty(db)
    if problem == "not SQLite":
        raise HomeError(f"{db} is not a Tapemind database (not SQLite at all). {fix}")
    if problem is not None:
        raise integrity.refuse(db, problem)
    conn = sqlite3.connect(db)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        if disk.is_full(db):
            raise disk.full(db.parent, doing=disk.CANNOT_READ) from None
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF in integrity.CORRUPT_CODES:
            raise integrity.refuse(db, str(exc)) from None
        raise HomeError(f"{db} is not a readable Tapemind database ({exc}). {fix}") from None
    finally:
        conn.close()
    if tables and "migrations" not in tables:
        raise HomeError(
            f"{db} is an SQLite database of another program (it has no Tapemind migrations). {fix}"
        )
    integrity.check_at_open(db)


def doctor_home(
    home: str | os.PathLike[str] | None = None, *, repair: bool = False
) -> integrity.DoctorReport:
    """`tapemind doctor`: the full check of the database of the home at `home` (see
    `resolve`); with `repair`, damaged indexes and full-text tables are rebuilt from the
    rows. Raises HomeError when there is no database there."""
    db = db_path(resolve(home))
    if not db.is_file():
        raise HomeError(f"No Tapemind database at {db}: nothing to check.")
    return integrity.doctor(db, repair=repair)


def keep_private(path: Path) -> bool:
    """Check a secret file of the home (agents' tokens, the host's owner token, a vault key
    wrapped by a passphrase) before trusting it: a plain file of this user that only they
    can read. A looser mode (a copy restored from a backup, a `chmod -R`) is made 0600 and
    True returned, so the caller can say the file may have been read. A symbolic link, or
    a file of another user, is refused (HomeError): someone else could have put it there.
    POSIX only; elsewhere the home's folder permissions are all there is."""
    if os.name != "posix":
        return False
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
        raise HomeError(
            f"{path} is not a plain file of this user (a symbolic link, or another user's): "
            "Tapemind does not read secrets from it. Remove it; Tapemind writes a new one."
        )
    if st.st_mode & 0o077:
        os.chmod(path, 0o600)
        return True
    return False
