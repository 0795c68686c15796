"""Per-agent sequence numbers on PostgreSQL: gap-free under concurrent writers.

The embedded home hands them out under SQLite's one write lock. PostgreSQL has many
writers at once (several hosts, threads in each), so the agent's row is the lock: the
UPDATE below takes its row lock (as SELECT … FOR UPDATE would) and holds it until the
transaction ends, so a second writer of the same agent waits for the first to commit or
roll back and then reads the counter it left. A rolled-back append gives its numbers back
with its rows; writers of other agents never wait. A database sequence would not do:
`nextval` is never rolled back, so a failed append would leave a gap.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

from app.errors import NotFound


def reserve(conn: Connection, agent_id: int, count: int) -> int:
    """Reserve `count` sequence numbers for agent `agent_id` inside the caller's
    transaction; returns the first (the others follow it without a gap).

    Raises:
        NotFound: no agent `agent_id`.
    """
    if count <= 0:
        raise ValueError("reserve at least one sequence number")
    first = conn.execute(
        text(
            "UPDATE agents SET next_seq = next_seq + :n WHERE id = :agent RETURNING next_seq - :n"
        ),
        {"n": count, "agent": agent_id},
    ).scalar_one_or_none()
    if first is None:
        raise NotFound(f"No agent with id {agent_id} in this database.")
    return int(first)
