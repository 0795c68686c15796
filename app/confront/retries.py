"""A retried `remember` is not a second one: the caller's key finds the first's result.

A client that sent `remember` and lost the answer (the host committed and died, the
connection dropped) sends it again. Without a key a retry is mostly harmless (the exact
text is a duplicate), but not always: a candidate that opened a conflict would open a
second one. With `key`, the retry returns what the first call decided, writing nothing.
The key is stored on the call's decision (migration 14), unique per agent.
"""

from __future__ import annotations

from app.confront.arbiter.reasons import params_of
from app.db import Tx, dbapi
from app.memory import MEMORY_COLUMNS, memory_of
from app.models import RememberResult
from app.runtime import AgentLike


def by_key(s: Tx, arow: AgentLike, key: str) -> RememberResult | None:
    """The result of the agent's earlier `remember` with this key, if there was one."""
    db = dbapi(s)
    found = db.execute(
        "SELECT action, target_id, memory_id, conflict_id, arbiter, reason, reason_code, "
        "reason_params FROM decisions "
        "WHERE agent_id = ? AND request_key = ?",
        (arow.id, key),
    ).fetchone()
    if found is None:
        return None
    action, target_id, memory_id, conflict_id, arbiter, reason, code, params = found
    shown = memory_id if memory_id is not None else target_id
    row = None
    if shown is not None:
        row = db.execute(f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ?", (shown,)).fetchone()
    sources = (
        tuple(
            int(r[0])
            for r in db.execute(
                "SELECT entry_id FROM provenance WHERE memory_id = ? ORDER BY entry_id", (shown,)
            )
        )
        if shown is not None
        else ()
    )
    return RememberResult(
        decision=str(action),
        memory=memory_of(row, arow.name) if row is not None else None,
        target_id=target_id,
        reason=str(reason),
        arbiter=str(arbiter),
        source_ids=sources,
        conflict_id=conflict_id,
        reason_code=code,
        reason_params=params_of(params),
    )


def tag(s: Tx, arow: AgentLike, key: str) -> None:
    """Put `key` on the decision this transaction just stored (the write lock is held:
    the agent's newest decision is this call's)."""
    dbapi(s).execute(
        "UPDATE decisions SET request_key = ? WHERE id = "
        "(SELECT max(id) FROM decisions WHERE agent_id = ?)",
        (key, arow.id),
    )
