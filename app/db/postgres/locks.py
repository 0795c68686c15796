"""Background jobs run once across every host of a database: advisory locks.

Each host runs the indexer, snapshots, maintenance and the distiller on a timer; on a
shared database only one of them may do a given job at a time. A transaction-scoped
advisory lock is that one-at-a-time: it ends with the transaction (a host that dies
drops it with its connection, so no lock outlives its holder), and a host that does not
get it skips this round instead of queueing behind the holder.
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


# The key of the lock the process that owns a home kept in PostgreSQL holds while it has
# the database open: the embedded home's `.lock`, for a home with no single directory.
OWNER_JOB = "tapemind home owner"


def hold_owner(engine: Engine) -> Connection | None:
    """A connection holding the database's owner lock for as long as it stays open (closing
    it, or the process dying, lets it go), or None when another process holds it.

    Until vectors live in the database (they are in the home directory's index), a second
    process writing the same memories would embed them into an index the first never
    reads; so, as on the embedded home, one process at a time owns the database."""
    conn = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    got = conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": job_key(OWNER_JOB)})
    if bool(got.scalar_one()):
        return conn
    conn.close()
    return None
