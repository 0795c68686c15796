"""Tape entries written to PostgreSQL: rows, sequence numbers and full-text terms at once.

This is the storage half of an append (what `app.tape.ledger.append_in` does with SQLite
statements): the caller has redacted, hashed and tokenised the entries already
(`app.tape.prepared.Ready` has this shape), and does the rest of the append (the embed
queue, the audit row, the event) in the same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy import Connection, insert

from app.clock import to_iso
from app.db.postgres.schema import metadata
from app.db.postgres.sequence import reserve
from app.db.postgres.tokens import tsvector_literal
from app.models import NewEntry


class StoredEntry(Protocol):
    """An entry as it will be stored: redacted text and meta, hash and full-text terms."""

    @property
    def entry(self) -> NewEntry: ...
    @property
    def meta_json(self) -> str | None: ...
    @property
    def content_hash(self) -> str: ...
    @property
    def terms(self) -> tuple[str, ...]: ...


def insert_entries(
    conn: Connection, agent_id: int, items: Sequence[StoredEntry], now: str
) -> list[tuple[int, int]]:
    """Write `items` as agent `agent_id`'s next entries, in order, inside the caller's
    transaction; returns each one's (id, seq). Ids come from the table's own sequence
    (unique across hosts, with gaps); seqs from the agent's row (gap-free, `reserve`)."""
    if not items:
        return []
    first = reserve(conn, agent_id, len(items))
    table = metadata().tables["tape_entries"]
    rows = [
        {
            "agent_id": agent_id,
            "seq": first + offset,
            "thread": r.entry.thread,
            "turn": r.entry.turn,
            "user": r.entry.user,
            "kind": r.entry.kind,
            "role": r.entry.role,
            "content": r.entry.text,
            "content_hash": r.content_hash,
            "meta": r.meta_json,
            "source_key": r.entry.source_key,
            "created_at": to_iso(r.entry.created_at) if r.entry.created_at else now,
            "terms": tsvector_literal(r.terms, agent_id),
        }
        for offset, r in enumerate(items)
    ]
    result = conn.execute(
        insert(table).returning(table.c.id, table.c.seq, sort_by_parameter_order=True), rows
    )
    return [(int(i), int(s)) for i, s in result]
