"""The database of a home: connections, pragmas, transactions and upgrades.

SQLite runs in WAL mode so the desktop app, the MCP host and the CLI can read
while one of them writes. Write transactions start with BEGIN IMMEDIATE: the
write lock is taken up front, so two processes appending to one agent queue
behind each other (busy timeout) instead of failing half-way with SQLITE_BUSY
on lock upgrade. Anything not SQLite (PostgreSQL, for a team's shared memory)
gets the driver's ordinary transactions.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Engine as SAEngine
from sqlalchemy import create_engine, event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool
from sqlmodel import Session

from app.db import disk, integrity
from app.db.migrations import MIGRATIONS, latest
from app.db.qmark import Qmark
from app.errors import HomeDamaged, HomeError, InvalidInput, TapemindError, WriteBusy
from app.limits import MAX_ID

log = logging.getLogger(__name__)

_WRITE = "tapemind_write"
BUSY_TIMEOUT_S = 30.0


def _sqlite_engine(path: Path) -> SAEngine:
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False},
        # A pool of per-thread connections: SQLite connections are cheap and the
        # UI reads from a thread pool while one thread writes.
        pool_size=8,
        max_overflow=8,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        # Let us emit BEGIN ourselves (pysqlite's implicit BEGIN is DEFERRED).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        # NORMAL in WAL mode: a committed transaction survives a process crash
        # (kill -9); only an OS crash or power loss can lose the last commits.
        cur.execute("PRAGMA synchronous=NORMAL")
        # Checkpoint every ~40 MB of WAL instead of every 4 MB: each checkpoint
        # fsyncs, and on a busy disk those fsyncs were most of an append's wall
        # time (single appends 430/s -> 1,100/s on the 2-core test machine).
        cur.execute("PRAGMA wal_autocheckpoint=10000")
        cur.execute("PRAGMA journal_size_limit=67108864")
        # Deleted content is overwritten, not just unlinked from the b-tree: a
        # forgotten memory or erased entry must not linger in free pages.
        cur.execute("PRAGMA secure_delete=ON")
        cur.execute("PRAGMA temp_store=MEMORY")
        cur.execute("PRAGMA cache_size=-32000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        immediate = conn.get_execution_options().get(_WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _sqlite_code(exc: BaseException) -> int | None:
    """SQLite's result code behind `exc`: the driver's error, or SQLAlchemy's wrapper of it."""
    return getattr(getattr(exc, "orig", exc), "sqlite_errorcode", None)


def _out_of_range() -> InvalidInput:
    return InvalidInput(
        f"A number in this call is out of range: ids and counts are at most {MAX_ID}. "
        "Nothing was changed; use an id you were given."
    )


# What PostgreSQL says of SQL in SQLite's dialect (an FTS5 table, bm25(), MATCH): a
# path not ported yet (see "Storage backends" in ARCHITECTURE.md). Its transaction is
# rolled back, so nothing is half-done.
_SQLITE_ONLY = frozenset({"UndefinedTable", "UndefinedFunction", "SyntaxError"})


def _postgres_refusal(exc: BaseException) -> TapemindError | None:
    name = type(getattr(exc, "orig", exc)).__name__
    if name == "NumericValueOutOfRange":  # an id past 64 bits, as on SQLite
        return _out_of_range()
    if name == "LockNotAvailable":  # the writer lock (`postgres.hold_writer`)
        return _busy("the home's PostgreSQL database")
    if name not in _SQLITE_ONLY:
        return None
    return HomeError(
        "This command does not run on a home kept in PostgreSQL yet; it runs on an "
        "embedded home (a directory without --database). Nothing was changed.",
        code="not_on_postgresql",
    )


def _busy(database: str) -> WriteBusy:
    return WriteBusy(
        f"{database[:1].upper()}{database[1:]} stayed locked by another writer for "
        f"{BUSY_TIMEOUT_S:.0f} s: this change was not written, and everything "
        "written before is intact. Try again; if it keeps happening, look for a "
        "Tapemind process that is stuck (`tapemind serve`, an import).",
        for_agents="Tapemind was busy with another long write: nothing of this call "
        "was written, and nothing before it was lost. Call again in a moment.",
    )


@contextmanager
def _numbers_in_range() -> Iterator[None]:
    """A number too large for SQLite's 64-bit integers (an id of 2**63) names nothing:
    the caller's mistake, said as such, not a failure inside Tapemind."""
    try:
        yield
    except OverflowError:
        raise _out_of_range() from None


class Tx(Protocol):
    """A transaction as the hot paths (`context`, appends, `remember`) use it: a Session,
    or a `DriverTx` with no ORM at all. Code typed with `Tx` reaches the database through
    `dbapi` only, so the type checker refuses ORM calls on a path that may get a DriverTx."""

    @property
    def info(self) -> dict[Any, Any]: ...


class DriverTx:
    """A transaction on a pooled sqlite3 connection, without SQLAlchemy's Session (see
    `Store.driver_read`). It has what `dbapi` and `app.events.record` use of a Session,
    `info`, and nothing else: code that needs the ORM fails loudly on it."""

    __slots__ = ("info",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.info: dict[str, Any] = {"_dbapi": conn}


BIND_MAX = 900  # ids bound as parameters in one statement (SQLite < 3.32 allows 999)


def id_list(ids: Sequence[int]) -> tuple[str, list[int]]:
    """The inside of `IN (...)` for integer `ids`, and the parameters it binds: bound
    while few, so a hot query with varying ids is one cached statement (a new list of
    literals is a new statement to compile, ~50 µs for 90 ids); literals past BIND_MAX."""
    if len(ids) <= BIND_MAX:
        return ", ".join("?" * len(ids)), [int(i) for i in ids]
    return ", ".join(str(int(i)) for i in ids), []


# Columns whose bare name is a keyword in one backend's SQL. PostgreSQL reads a bare
# `user` as current_user: a SELECT returns the role's name and an INSERT names no column,
# with no error. Quoted, the name means the column in SQLite and PostgreSQL alike.
KEYWORD_COLUMNS = frozenset({"user"})


def column_list(names: Sequence[str]) -> str:
    """`names` joined for a SELECT's or an INSERT's list of columns, the keywords among
    them quoted (`KEYWORD_COLUMNS`), so the one text serves both backends."""
    return ", ".join(f'"{n}"' if n in KEYWORD_COLUMNS else n for n in names)


def dbapi(session: Tx) -> Any:
    """The DBAPI connection under `session`'s transaction, for hot paths.

    The ORM costs about half a millisecond per statement on this class of
    machine; appends and `remember` run a handful of statements each, so they
    use the driver directly (qmark SQL) inside the same transaction: the sqlite3
    connection itself, or on PostgreSQL the psycopg one taking the same SQL (`Qmark`).
    """
    cached = session.info.get("_dbapi")
    if cached is None:  # session.connection() costs ~70 µs a call; a write makes several
        assert isinstance(session, Session), "a DriverTx carries its connection from the start"
        raw = session.connection().connection.driver_connection
        cached = session.info["_dbapi"] = raw if isinstance(raw, sqlite3.Connection) else Qmark(raw)
    return cached


def json_field(db: Any, column: str, key: str) -> str:
    """SQL for the text of `key` in the JSON object in `column`, on `db`'s backend (a
    `dbapi` connection): SQLite's json_extract, or PostgreSQL's ->> on a jsonb cast.
    `key` is a name of ours, never a caller's text."""
    if not key.isidentifier():
        raise ValueError(f"not a JSON key of ours: {key!r}")
    if isinstance(db, Qmark):
        return f"(CAST({column} AS jsonb) ->> '{key}')"
    return f"json_extract({column}, '$.{key}')"


def is_postgres(session: Tx) -> bool:
    """Whether `session`'s transaction is on PostgreSQL (else the embedded SQLite)."""
    return isinstance(dbapi(session), Qmark)


class Store:
    """Owns the SQLAlchemy engine of one home and hands out transactions."""

    def __init__(self, engine: SAEngine) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"
        database = engine.url.database
        self.where = str(Path(database).parent) if self.is_sqlite and database else "database"
        self.db = Path(database) if self.is_sqlite and database else None
        # Set when SQLite found the file damaged: nothing more is written into it.
        self.damaged: HomeDamaged | None = None

    @classmethod
    def open_sqlite(cls, path: Path) -> Store:
        return cls(_sqlite_engine(path))

    @classmethod
    def open_url(cls, url: str) -> Store:
        """A database URL: PostgreSQL (psycopg 3, the `postgresql` extra), or another
        SQLAlchemy URL for tests. No SQLite pragmas apply."""
        scheme = url.split(":", 1)[0].split("+", 1)[0].lower()
        if scheme in ("postgresql", "postgres"):
            from app.db import postgres  # a home on SQLite never loads it

            return cls(postgres.engine_for(url))
        return cls(create_engine(url, poolclass=NullPool))

    @property
    def is_postgres(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    @property
    def _snapshot(self) -> dict[str, Any]:
        return {"isolation_level": "REPEATABLE READ"} if self.is_postgres else {}

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write transaction: committed on success, rolled back on any error."""
        if self.damaged is not None:
            raise self.damaged
        with Session(self.engine, expire_on_commit=False, autoflush=False) as session:
            try:
                # BEGIN IMMEDIATE: the write lock, waited for up to the busy timeout.
                conn = session.connection(execution_options={_WRITE: True})
                if self.is_postgres:  # the same lock across every host of the database
                    from app.db import postgres

                    postgres.hold_writer(conn, BUSY_TIMEOUT_S)
                yield session
                session.commit()
            except BaseException as exc:
                session.rollback()
                if (refused := self._refusal(exc)) is not None:
                    raise refused from None
                raise

    def _refusal(self, exc: BaseException) -> TapemindError | None:
        """What a failed write tells its caller when SQLite refused it for a reason the
        owner can act on (the disk is full; another writer held the lock too long)."""
        if isinstance(exc, OverflowError):
            return _out_of_range()
        if self.is_postgres:
            return _postgres_refusal(exc)
        code = _sqlite_code(exc)
        primary = code & 0xFF if isinstance(code, int) else None
        if primary == sqlite3.SQLITE_FULL or (
            primary in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN)
            and self.db is not None
            and disk.is_full(self.db)
        ):
            return disk.full(self.where)
        if primary in integrity.CORRUPT_CODES and self.db is not None:
            # Found damaged in use: recorded, so no process writes into it until `doctor`
            # finds it whole; this one refuses every write from now on.
            integrity.mark_damaged(self.db.parent, str(getattr(exc, "orig", exc)))
            self.damaged = integrity.refuse(self.db, str(getattr(exc, "orig", exc)))
            return self.damaged
        if code == sqlite3.SQLITE_BUSY:
            return _busy(f"The home's database ({self.where})")
        return None

    @contextmanager
    def _driver(self) -> Iterator[sqlite3.Connection]:
        """A pooled sqlite3 connection, handed back to the pool (which rolls back
        whatever is left open) at the end."""
        fairy = self.engine.raw_connection()
        try:
            yield fairy.driver_connection  # type: ignore[misc]
        finally:
            fairy.close()

    @contextmanager
    def driver_read(self) -> Iterator[Tx]:
        """`read` on the sqlite3 connection itself: BEGIN, then back to the pool (which
        rolls back). For hot paths that run driver statements only (`dbapi`): opening
        and closing a Session cost ~60 µs, this ~10. Not SQLite: a `read` Session."""
        if not self.is_sqlite:
            with self.read() as session:
                yield session
            return
        with self._refusing(), self._driver() as conn, _numbers_in_range():
            conn.execute("BEGIN")
            yield DriverTx(conn)

    @contextmanager
    def driver_write(self) -> Iterator[Tx]:
        """`write` on the sqlite3 connection itself (BEGIN IMMEDIATE ... COMMIT), for
        hot paths as `driver_read`; rolled back on any error, a refusal (full disk, lock
        held too long) reported as `write` does. Not SQLite: a `write` Session."""
        if self.damaged is not None:
            raise self.damaged
        if not self.is_sqlite:
            with self.write() as session:
                yield session
            return
        with self._driver() as conn:
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield DriverTx(conn)
                conn.commit()
            except BaseException as exc:
                conn.rollback()
                if (refused := self._refusal(exc)) is not None:
                    raise refused from None
                raise

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read transaction: one consistent snapshot of the database."""
        # Leaving the block closes the session: its transaction ends without
        # expiring loaded rows, so values read inside stay readable after.
        with (
            self._refusing(),
            Session(self.engine, expire_on_commit=False, autoflush=False) as session,
            _numbers_in_range(),
        ):
            # SQLite's read is a snapshot by itself (WAL); PostgreSQL's default, READ
            # COMMITTED, would let a commit land between two statements of one read.
            session.connection(execution_options=self._snapshot)
            yield session

    @contextmanager
    def _refusing(self) -> Iterator[None]:
        """Reads report a full disk or a damaged file as writes do, not as a traceback."""
        try:
            yield
        except Exception as exc:
            if (refused := self._refusal(exc)) is not None and not isinstance(refused, WriteBusy):
                raise refused from None
            raise

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def job(self, name: str, *, wait: bool) -> Iterator[bool]:
        """Whether this process runs job `name` now, for the length of the block: on
        PostgreSQL, where several hosts serve one database, the job's advisory lock
        (waited for when `wait`, else False at once when another host holds it); on the
        embedded home, always (its one owner runs every job)."""
        if not self.is_postgres:
            yield True
            return
        from app.db import postgres

        held = postgres.hold_job(self.engine, name, wait=wait)
        try:
            yield held is not None
        finally:
            if held is not None:
                postgres.release_job(held, name)

    def checkpoint(self) -> None:
        """After forget and erase: let no old copy of the removed text stay readable.

        SQLite: copy the WAL into the database and truncate it, so page images of
        deleted text do not linger in the -wal file (with readers active SQLite
        checkpoints what it can). PostgreSQL: an update leaves the row's old version
        in the table, text and all, until a VACUUM removes it; this runs one over the
        database (outside any transaction, as VACUUM must), which skips the pages
        nothing changed on. A version another host's open transaction can still see
        stays until a later vacuum (autovacuum's). Best effort on both: what called it
        has committed, and autovacuum would get there later."""
        if self.is_postgres:
            try:
                with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                    conn.exec_driver_sql("VACUUM")
            except DBAPIError as exc:
                log.warning("VACUUM after a removal failed (%s)", type(exc.orig).__name__)
            return
        if not self.is_sqlite:
            return
        with self.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.rollback()

    # -- schema -----------------------------------------------------------------

    def _applied(self) -> set[int]:
        with self.engine.connect() as conn:
            exists = conn.execute(
                text("SELECT name FROM sqlite_master WHERE type='table' AND name='migrations'")
                if self.is_sqlite
                else text(
                    "SELECT table_name FROM information_schema.tables WHERE table_name='migrations'"
                )
            ).first()
            applied = (
                {int(r[0]) for r in conn.execute(text("SELECT id FROM migrations"))}
                if exists is not None
                else set()
            )
            conn.rollback()
            return applied

    def schema_version(self) -> int:
        """The newest migration applied to this database (0 for a new one)."""
        return max(self._applied(), default=0)

    def upgrade(self, applied_at: str) -> list[int]:
        """Apply every known migration the database lacks; returns their numbers.

        Migrations are tracked one by one (not by the highest number), so a
        migration merged late with a lower number is still applied. Raises
        HomeError when the database records a migration this version lacks:
        it was written by a newer Tapemind; DiskFull or HomeDamaged as writes do.
        """
        with self._refusing():
            return self._upgrade(applied_at)

    def _upgrade(self, applied_at: str) -> list[int]:
        unknown = self._applied() - set(MIGRATIONS)
        if unknown:
            raise HomeError(
                f"This home's database has schema {max(unknown)}, but this Tapemind knows "
                f"schema {latest()} at most: it was written by a newer version. "
                "Upgrade tapemind (pip install -U tapemind) to open it; nothing was changed."
            )
        if self.is_postgres:
            from app.db.postgres.upgrade import upgrade

            with self.engine.begin() as conn:
                return upgrade(conn, {n: name for n, (name, _) in MIGRATIONS.items()}, applied_at)
        done_before = self._applied()
        applied: list[int] = []
        for number in sorted(n for n in MIGRATIONS if n not in done_before):
            name, fn = MIGRATIONS[number]
            with self.engine.connect() as conn:
                conn = conn.execution_options(**{_WRITE: True})
                with conn.begin():
                    if number == 1:
                        conn.execute(
                            text(
                                "CREATE TABLE IF NOT EXISTS migrations ("
                                "id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                                "applied_at TEXT NOT NULL)"
                            )
                        )
                    # Another process may have upgraded while we waited for the lock.
                    done = conn.execute(
                        text("SELECT 1 FROM migrations WHERE id = :n"), {"n": number}
                    ).first()
                    if done is None:
                        fn(conn)
                        conn.execute(
                            text(
                                "INSERT INTO migrations (id, name, applied_at) "
                                "VALUES (:n, :name, :at)"
                            ),
                            {"n": number, "name": name, "at": applied_at},
                        )
                        applied.append(number)
        return applied
