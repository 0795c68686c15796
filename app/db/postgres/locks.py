"""One at a time across every host of a database: advisory locks.

- `hold_writer`: every write transaction, so writes follow one another as on SQLite.
- `hold_job`: a background job's run (the indexer, snapshots, maintenance, the
  distiller), which spans many transactions: a session lock, held by a connection of its
  own until the run ends. A host that does not get it skips this round instead of
  queueing behind the holder.
- `try_job`: the same for work that fits in one transaction.

Each ends with its transaction or connection: a host that dies drops its locks with its
connections, so no lock outlives its holder.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import Connection, Engine, text


def job_key(job: str) -> int:
    """A stable signed 64-bit key for `job` (PostgreSQL's `hashtext` may change between
    major versions; hosts on different versions must agree)."""
    return int.from_bytes(hashlib.sha256(job.encode()).digest()[:8], "big", signed=True)


def try_job(conn: Connection, job: str) -> bool:
    """Whether this transaction now holds `job`'s lock (held until it commits or rolls
    back); False at once when another transaction, on any host, holds it."""
    got = conn.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": job_key(job)})
    return bool(got.scalar_one())


def hold_job(engine: Engine, job: str, *, wait: bool) -> Connection | None:
    """A connection holding `job`'s lock across transactions (a job's run spans many)
    until `release_job`, or None when another host holds it and `wait` is false. The
    lock goes with the connection too: a host that dies mid-job lets it go."""
    conn = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    try:
        if wait:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": job_key(job)})
            return conn
        got = conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": job_key(job)})
        if bool(got.scalar_one()):
            return conn
    except BaseException:
        conn.close()
        raise
    conn.close()
    return None


def release_job(conn: Connection, job: str) -> None:
    """Let `job`'s lock go and hand the connection back. A pooled connection outlives
    its `close()`, and its session's locks with it: the lock is released first, and a
    connection that cannot release it is thrown away (its session ends, and the lock)."""
    try:
        conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": job_key(job)})
    except BaseException:
        conn.invalidate()
        raise
    finally:
        conn.close()


# Every write transaction of every host takes this lock first, so writes to a home on
# PostgreSQL follow one another as they do on SQLite (one writer at a time): what the
# engine reads in a write (an agent's next sequence number, a memory's neighbours before
# it is confronted, a conflict still open) cannot change under it. Writes are short
# (a few ms); reads never take it.
WRITER_JOB = "tapemind writer"


def hold_writer(conn: Connection, wait_s: float) -> None:
    """Take the writer lock for the rest of `conn`'s transaction, waiting at most
    `wait_s` seconds (then PostgreSQL raises LockNotAvailable)."""
    conn.execute(text(f"SET LOCAL lock_timeout = '{int(wait_s * 1000)}ms'"))
    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": job_key(WRITER_JOB)})
    conn.execute(text("SET LOCAL lock_timeout = 0"))
