"""The tape: an append-only ledger of what happened, per agent.

Entries are never modified. `erase` (privacy) replaces an entry's content with
nothing and keeps its content hash as a tombstone, with an audit row saying so.
Sequence numbers are per agent, gap-free and monotonic: they are handed out
under the database write lock (BEGIN IMMEDIATE), so two processes appending to
one agent at once queue up instead of colliding.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from app.clock import check_window, from_iso, to_iso
from app.db import (
    AgentRow,
    EmbedQueueRow,
    ProvenanceRow,
    TapeEntryRow,
    column_list,
    dbapi,
    drop_terms,
    next_ids,
    purge,
    put_terms,
)
from app.errors import InvalidInput, NotFound
from app.events import record
from app.limits import MAX_READ
from app.models import KINDS, AppendResult, NewEntry, TapeEntry
from app.runtime import AgentLike, Runtime, agent_ref
from app.tape.entries import coerce_entry
from app.tape.prepared import Ready, prepare
from app.vault import echoes

EMBEDDED_KINDS = ("message", "compact")  # tape rows the indexer embeds for semantic search


# The columns a TapeEntry is made of, in the order `entry_of` reads them.
_ENTRY_FIELDS = (
    "id", "seq", "thread", "turn", "user", "kind", "role", "content", "content_hash",
    "created_at", "erased_at", "meta",
)  # fmt: skip
ENTRY_COLUMNS = column_list(_ENTRY_FIELDS)
INSERT_ENTRY_SQL = (
    'INSERT INTO tape_entries (id, agent_id, seq, thread, turn, "user", kind, role, content, '
    "content_hash, meta, source_key, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def entry_of(r: Sequence[Any], agent: str) -> TapeEntry:
    """A TapeEntry from a row selected with `ENTRY_COLUMNS` (the one row -> entry converter;
    hot paths read through the driver, without the ORM)."""
    return TapeEntry(
        id=r[0],
        agent=agent,
        seq=r[1],
        thread=r[2],
        turn=r[3],
        user=r[4],
        kind=r[5],
        role=r[6],
        text=r[7],
        content_hash=r[8],
        created_at=from_iso(r[9]),
        erased=r[10] is not None,
        meta=json.loads(r[11]) if r[11] else {},
    )


def to_entry(row: TapeEntryRow, agent: str) -> TapeEntry:
    """A TapeEntry from an ORM row."""
    return entry_of(tuple(getattr(row, name) for name in _ENTRY_FIELDS), agent)


def source_entries(s: Session, memory_id: int, agent: str) -> tuple[TapeEntry, ...]:
    """The tape entries memory `memory_id` was learned from (its provenance), in tape order."""
    rows = s.exec(
        select(TapeEntryRow)
        .join(ProvenanceRow, col(ProvenanceRow.entry_id) == col(TapeEntryRow.id))
        .where(ProvenanceRow.memory_id == memory_id)
        .order_by(col(TapeEntryRow.seq))
    ).all()
    return tuple(to_entry(e, agent) for e in rows)


def append_in(
    rt: Runtime, s: Session, arow: AgentLike, items: Sequence[Ready], actor: str = "agent"
) -> AppendResult:
    """Append entries made ready (`app.tape.prepared`) inside an open write transaction."""
    assert arow.id is not None
    db = dbapi(s)
    keys = [r.entry.source_key for r in items if r.entry.source_key]
    held: dict[str, int] = {}  # source_key -> id of the entry already on the tape
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        held.update(
            (k, int(i))
            for k, i in db.execute(
                f"SELECT source_key, id FROM tape_entries WHERE agent_id = ? "
                f"AND source_key IN ({marks})",
                (arow.id, *chunk),
            )
        )
    existing = tuple(held[k] for r in items if (k := r.entry.source_key) and k in held)
    seen: set[str] = set(held)
    fresh: list[Ready] = []
    for r in items:
        if r.entry.source_key:
            if r.entry.source_key in seen:
                continue
            seen.add(r.entry.source_key)
        fresh.append(r)
    if not fresh:
        return AppendResult(ids=(), skipped=len(items), existing=existing)

    now = rt.now_iso()
    new_ids = next_ids(db, "tape_entries", len(fresh))
    seq = arow.next_seq
    agent_id = arow.id  # a plain int: ORM attribute access costs per row
    rows = [
        (
            new_ids[offset], agent_id, seq + offset, r.entry.thread, r.entry.turn,
            r.entry.user, r.entry.kind, r.entry.role, r.entry.text, r.content_hash,
            r.meta_json, r.entry.source_key,
            to_iso(r.entry.created_at) if r.entry.created_at else now,
        )
        for offset, r in enumerate(fresh)
    ]  # fmt: skip
    # The ORM costs ~0.5 ms per statement; a batch of 50k entries is a few
    # executemany calls on the driver instead.
    db.executemany(INSERT_ENTRY_SQL, rows)
    put_terms(
        db, "tape_fts", [(row[0], agent_id, r.terms) for row, r in zip(rows, fresh, strict=True)]
    )
    db.executemany(
        "INSERT INTO embed_queue (kind, item_id, agent_id, enqueued_at) VALUES ('tape', ?, ?, ?)",
        [(r[0], agent_id, now) for r in rows if r[6] in EMBEDDED_KINDS and r[8].strip()],
    )
    db.execute("UPDATE agents SET next_seq = ? WHERE id = ?", (seq + len(rows), agent_id))
    arow.next_seq = seq + len(rows)
    ids = tuple(r[0] for r in rows)
    record(
        s, now, "tape.append", agent=arow.name, actor=actor, ids=ids, counts={"entries": len(ids)}
    )
    return AppendResult(ids=ids, skipped=len(items) - len(fresh), existing=existing)


def append(
    rt: Runtime,
    agent: str,
    entries: Sequence[NewEntry | Mapping[str, Any]],
    *,
    actor: str = "agent",
    bounded: bool = False,
) -> AppendResult:
    """Append a batch in one transaction: all entries are written, or none. The text is
    redacted and indexed before the write lock is taken (`app.tape.prepared`); `bounded`
    holds the call to what one agent's write over MCP may carry."""
    if isinstance(entries, NewEntry | Mapping) or not isinstance(entries, Sequence):
        raise InvalidInput("append takes a list of entries.")
    items = [coerce_entry(e, i) for i, e in enumerate(entries)]
    if not items:
        raise InvalidInput("Nothing to append: give at least one entry.")
    with rt.read_driver() as s:
        before = agent_ref(s, agent)
    if actor == "agent":
        echoes.check_writes(agent, before.secret_echoes)
    ready = prepare(rt, before, items, actor, bounded=bounded)
    with rt.write() as s:
        arow = agent_ref(s, agent)
        if actor == "agent":
            echoes.check_writes(agent, arow.secret_echoes)
        return append_in(rt, s, arow, ready, actor)


def read(
    rt: Runtime,
    agent: str,
    *,
    thread: str | None = None,
    turn: str | None = None,
    kinds: Sequence[str] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    around: int | None = None,
    limit: int = 100,
) -> list[TapeEntry]:
    """Entries of one agent in tape order.

    With `around`, the `limit` entries of that entry's thread nearest to it: the entry,
    then as many before it as after it (one more before when they cannot be even), the
    other side making up for a side that has too few. With `since`, the first `limit`
    entries from then on; otherwise the latest `limit` entries.
    """
    if limit <= 0:
        raise InvalidInput("limit must be a positive number.")
    check_window(since, until)
    limit = min(limit, MAX_READ)
    for k in kinds or ():
        if k not in KINDS:
            raise InvalidInput(f"Unknown kind {k!r}: use one of {', '.join(KINDS)}.")
    with rt.read() as s:
        arow = agent_ref(s, agent)
        q = select(TapeEntryRow).where(TapeEntryRow.agent_id == arow.id)
        if around is not None:
            anchor = s.get(TapeEntryRow, around)
            if anchor is None or anchor.agent_id != arow.id:
                raise NotFound(
                    f"No entry {around} on the tape of agent {agent!r}.",
                    for_agents=f"No entry {around} on your tape. Use an entry id that "
                    "`append`, `search` (scope tape) or `memory` (its sources) gave you.",
                )
            others = limit - 1
            same = q.where(TapeEntryRow.thread == anchor.thread)
            before = s.exec(
                same.where(TapeEntryRow.seq < anchor.seq)
                .order_by(TapeEntryRow.seq.desc())  # type: ignore[attr-defined]
                .limit(others)
            ).all()
            after = s.exec(
                same.where(TapeEntryRow.seq > anchor.seq)
                .order_by(col(TapeEntryRow.seq))
                .limit(others)
            ).all()
            n_after = min(len(after), others - min(len(before), (others + 1) // 2))
            n_before = min(len(before), others - n_after)
            window = [*reversed(before[:n_before]), anchor, *after[:n_after]]
            return [to_entry(r, agent) for r in window]
        if thread is not None:
            q = q.where(TapeEntryRow.thread == thread)
        if turn is not None:
            q = q.where(TapeEntryRow.turn == turn)
        if kinds:
            q = q.where(TapeEntryRow.kind.in_(list(kinds)))  # type: ignore[attr-defined]
        if until is not None:
            q = q.where(TapeEntryRow.created_at <= to_iso(until))
        if since is not None:
            q = q.where(TapeEntryRow.created_at >= to_iso(since))
            rows = s.exec(q.order_by(col(TapeEntryRow.seq)).limit(limit)).all()
        else:
            rows = list(
                reversed(
                    s.exec(
                        q.order_by(TapeEntryRow.seq.desc()).limit(limit)  # type: ignore[attr-defined]
                    ).all()
                )
            )
        return [to_entry(r, agent) for r in rows]


def get(rt: Runtime, entry_id: int, agent: str | None = None) -> TapeEntry:
    with rt.read() as s:
        row = s.get(TapeEntryRow, entry_id)
        owner = s.get(AgentRow, row.agent_id) if row else None
        if row is None or owner is None or (agent is not None and owner.name != agent):
            where = f" on the tape of agent {agent!r}" if agent else ""
            raise NotFound(
                f"No tape entry {entry_id}{where}. Find ids with `tapemind tape show`.",
                for_agents=f"No tape entry {entry_id} on your tape. Find ids with `tape`.",
            )
        return to_entry(row, owner.name)


def erase(rt: Runtime, entry_id: int) -> TapeEntry:
    """Owner's privacy erase: the content goes, its hash stays as a tombstone."""
    with rt.write() as s:
        row = s.get(TapeEntryRow, entry_id)
        if row is None:
            raise NotFound(f"No tape entry {entry_id}. Find ids with `tapemind tape show`.")
        owner = s.get(AgentRow, row.agent_id)
        assert owner is not None
        if row.erased_at is None:
            row.content = ""
            row.meta = None
            row.erased_at = rt.now_iso()
            s.add(row)
            drop_terms(dbapi(s), "tape_fts", [entry_id])
            purge(dbapi(s), "tape_fts")
            s.execute(
                EmbedQueueRow.__table__.delete().where(  # type: ignore[attr-defined]
                    (EmbedQueueRow.kind == "tape") & (EmbedQueueRow.item_id == entry_id)
                )
            )
            record(s, rt.now_iso(), "tape.erase", agent=owner.name, actor="owner", ids=[entry_id])
        s.flush()
        result = to_entry(row, owner.name)
    rt.store.checkpoint()
    return result
