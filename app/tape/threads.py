"""An agent's threads: each with its entry and turn counts and its first and last time.

Read from the tape's (agent, thread, seq) index in one grouped query, so every
thread is listed however long the tape is.
"""

from __future__ import annotations

from app.clock import from_iso
from app.db import dbapi
from app.errors import InvalidInput
from app.models import ThreadSummary
from app.runtime import Runtime, agent_ref

MAX_THREADS = 10_000


def threads(rt: Runtime, agent: str, *, limit: int = 1000) -> list[ThreadSummary]:
    """The agent's threads, the most recently written first (at most `limit`)."""
    if not 0 < limit <= MAX_THREADS:
        raise InvalidInput(f"limit must be between 1 and {MAX_THREADS} threads.")
    with rt.read_driver() as tx:
        arow = agent_ref(tx, agent)
        rows = dbapi(tx).execute(
            "SELECT thread, count(*), count(DISTINCT turn), min(created_at), max(created_at) "
            "FROM tape_entries WHERE agent_id = ? GROUP BY thread "
            "ORDER BY max(created_at) DESC, thread LIMIT ?",
            (arow.id, limit),
        )
        return [
            ThreadSummary(str(name), int(n), int(turns), from_iso(first), from_iso(last))
            for name, n, turns, first, last in rows
        ]
