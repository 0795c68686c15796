"""Rounds of a background job on a database several hosts serve: one host per round.

Each host runs the health snapshots, maintenance and the distiller on its own timer. On
a shared database the first host whose timer fires in a period claims that period's
round (a `meta` row, `round.<job>`, holding when it was last claimed); the others skip
until the next one. The claim is a write, so it is taken under the writer lock every
write takes (`postgres.hold_writer`): two hosts asking at once cannot both win.
"""

from __future__ import annotations

from datetime import datetime

from app.clock import from_iso, to_iso
from app.db.store import Tx, dbapi

# A round claimed this much of the period ago still counts: the host that claimed it
# comes back after one period by its own timer, a little early or late.
SLACK = 0.9


def claim(tx: Tx, job: str, now: datetime, every_s: float) -> bool:
    """Whether this host runs `job`'s round now (and records that it does), inside the
    caller's write transaction; False when another host claimed one less than a period
    (`every_s`, less the slack) ago."""
    db = dbapi(tx)
    key = f"round.{job}"
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    if row is not None and row[0]:
        try:
            since = (now - from_iso(str(row[0]))).total_seconds()
        except ValueError:
            since = every_s  # unreadable: claim it anew
        if 0 <= since < every_s * SLACK:
            return False
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, to_iso(now)),
    )
    return True
