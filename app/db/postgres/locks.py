"""Background jobs run once across every host of a database: advisory locks.

Each host runs the indexer, snapshots, maintenance and the distiller on a timer; on a
shared database only one of them may do a given job at a time. A transaction-scoped
advisory lock is that one-at-a-time: it ends with the transaction (a host that dies
drops it with its connection, so no lock outlives its holder), and a host that does not
get it skips this round instead of queueing behind the holder.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import Connection, text


def job_key(job: str) -> int:
    """A stable signed 64-bit key for `job` (PostgreSQL's `hashtext` may change between
    major versions; hosts on different versions must agree)."""
    return int.from_bytes(hashlib.sha256(job.encode()).digest()[:8], "big", signed=True)


def try_job(conn: Connection, job: str) -> bool:
    """Whether this transaction now holds `job`'s lock (held until it commits or rolls
    back); False at once when another transaction, on any host, holds it."""
    got = conn.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": job_key(job)})
    return bool(got.scalar_one())
