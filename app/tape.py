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

from sqlalchemy import func, insert, text, update
from sqlmodel import Session, select

from .clock import from_iso, to_iso
from .db.schema import AgentRow, EmbedQueueRow, TapeEntryRow
from .errors import InvalidInput, NotFound
from .events import record
from .fulltext import index_tokens
from .models import KINDS, ROLES, AppendResult, NewEntry, TapeEntry
from .runtime import Runtime, agent_row
from .textnorm import entry_hash

MAX_ENTRY_BYTES = 1024 * 1024
MAX_LABEL_CHARS = 256
MAX_READ = 1000
EMBEDDED_KINDS = ("message", "compact")  # tape rows the indexer embeds for semantic search


def _label(value: Any, name: str, where: str, *, required: bool) -> str | None:
    if value is None or value == "":
        if required:
            raise InvalidInput(f"{where}: '{name}' is required.")
        return None
    if not isinstance(value, str | int):
        raise InvalidInput(f"{where}: '{name}' must be a string.")
    value = str(value)
    if len(value) > MAX_LABEL_CHARS:
        raise InvalidInput(f"{where}: '{name}' is longer than {MAX_LABEL_CHARS} characters.")
    return value


def coerce_entry(raw: NewEntry | Mapping[str, Any], index: int = 0) -> NewEntry:
    """Validate one entry (a NewEntry or a dict as in JSONL/MCP) or raise InvalidInput
    naming the entry and the field."""
    where = f"entry {index + 1}"
    if isinstance(raw, NewEntry):
        data: dict[str, Any] = {
            "thread": raw.thread,
            "turn": raw.turn,
            "kind": raw.kind,
            "role": raw.role,
            "text": raw.text,
            "user": raw.user,
            "created_at": raw.created_at,
            "meta": raw.meta,
            "source_key": raw.source_key,
        }
    elif isinstance(raw, Mapping):
        data = dict(raw)
        if "content" in data and "text" not in data:
            data["text"] = data.pop("content")
        known = {
            "thread",
            "turn",
            "kind",
            "role",
            "text",
            "user",
            "created_at",
            "time",
            "meta",
            "source_key",
        }
        unknown = set(data) - known
        if unknown:
            raise InvalidInput(
                f"{where}: unknown field(s) {', '.join(sorted(unknown))}; "
                "an entry has thread, turn, kind, role, text (and optional user, time, meta)."
            )
        if "time" in data and "created_at" not in data:
            data["created_at"] = data.pop("time")
    else:
        raise InvalidInput(f"{where}: must be an object with thread, kind, role and text.")

    kind = data.get("kind") or "message"
    if kind not in KINDS:
        raise InvalidInput(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}.")
    role = data.get("role")
    if role not in ROLES:
        raise InvalidInput(f"{where}: role {role!r} is not one of {', '.join(ROLES)}.")
    body = data.get("text")
    if not isinstance(body, str):
        raise InvalidInput(f"{where}: 'text' must be a string.")
    try:
        size = len(body.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{where}: 'text' is not valid Unicode ({exc.reason}).") from None
    if size > MAX_ENTRY_BYTES:
        raise InvalidInput(
            f"{where}: text is {size} bytes, over the 1 MiB limit for one entry; "
            "split it or store a summary and a pointer to the file."
        )
    created = data.get("created_at")
    if isinstance(created, str):
        try:
            created = from_iso(created)
        except ValueError:
            raise InvalidInput(f"{where}: time {created!r} is not an ISO 8601 time.") from None
    elif created is not None and not isinstance(created, datetime):
        raise InvalidInput(f"{where}: time must be an ISO 8601 string.")
    meta = data.get("meta")
    if meta is not None and not isinstance(meta, Mapping):
        raise InvalidInput(f"{where}: 'meta' must be an object.")
    return NewEntry(
        thread=_label(data.get("thread"), "thread", where, required=True) or "",
        turn=_label(data.get("turn"), "turn", where, required=False),
        user=_label(data.get("user"), "user", where, required=False),
        kind=kind,
        role=role,
        text=body,
        created_at=created,
        meta=meta,
        source_key=_label(data.get("source_key"), "source_key", where, required=False),
    )


def to_entry(row: TapeEntryRow, agent: str) -> TapeEntry:
    return TapeEntry(
        id=row.id,
        agent=agent,
        seq=row.seq,
        thread=row.thread,
        turn=row.turn,
        user=row.user,
        kind=row.kind,
        role=row.role,
        text=row.content,
        content_hash=row.content_hash,
        created_at=from_iso(row.created_at),
        erased=row.erased_at is not None,
        meta=json.loads(row.meta) if row.meta else {},
    )


def append_in(
    rt: Runtime, s: Session, arow: AgentRow, items: Sequence[NewEntry], actor: str = "agent"
) -> AppendResult:
    """Append validated entries inside an open write transaction."""
    assert arow.id is not None
    keys = [e.source_key for e in items if e.source_key]
    seen: set[str] = set()
    if keys:
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            seen.update(
                k
                for k in s.exec(
                    select(TapeEntryRow.source_key).where(
                        TapeEntryRow.agent_id == arow.id,
                        TapeEntryRow.source_key.in_(chunk),  # type: ignore[union-attr]
                    )
                )
                if k
            )
    fresh: list[NewEntry] = []
    for e in items:
        if e.source_key:
            if e.source_key in seen:
                continue
            seen.add(e.source_key)
        fresh.append(e)
    if not fresh:
        return AppendResult(ids=(), skipped=len(items))

    now = rt.now_iso()
    first_id = int(s.exec(select(func.coalesce(func.max(TapeEntryRow.id), 0))).one()) + 1
    seq = arow.next_seq
    rows = []
    for offset, e in enumerate(fresh):
        body = rt.redact(e.text)
        rows.append(
            {
                "id": first_id + offset,
                "agent_id": arow.id,
                "seq": seq + offset,
                "thread": e.thread,
                "turn": e.turn,
                "user": e.user,
                "kind": e.kind,
                "role": e.role,
                "content": body,
                "content_hash": entry_hash(body),
                "meta": rt.redact(json.dumps(dict(e.meta), ensure_ascii=False)) if e.meta else None,
                "source_key": e.source_key,
                "created_at": to_iso(e.created_at) if e.created_at else now,
            }
        )
    s.execute(insert(TapeEntryRow), rows)
    conn = s.connection()
    conn.exec_driver_sql(
        "INSERT INTO tape_fts (rowid, tokens) VALUES (?, ?)",
        [(r["id"], index_tokens(r["content"], arow.id)) for r in rows],
    )
    queued = [
        {"kind": "tape", "item_id": r["id"], "agent_id": arow.id, "enqueued_at": now}
        for r in rows
        if r["kind"] in EMBEDDED_KINDS and r["content"].strip()
    ]
    if queued:
        s.execute(insert(EmbedQueueRow), queued)
    s.execute(update(AgentRow).where(AgentRow.id == arow.id).values(next_seq=seq + len(rows)))
    arow.next_seq = seq + len(rows)
    ids = tuple(r["id"] for r in rows)
    record(
        s, now, "tape.append", agent=arow.name, actor=actor, ids=ids, counts={"entries": len(ids)}
    )
    return AppendResult(ids=ids, skipped=len(items) - len(fresh))


def append(
    rt: Runtime,
    agent: str,
    entries: Sequence[NewEntry | Mapping[str, Any]],
    *,
    actor: str = "agent",
) -> AppendResult:
    """Append a batch in one transaction: all entries are written, or none."""
    if isinstance(entries, NewEntry | Mapping):
        raise InvalidInput("append takes a list of entries.")
    items = [coerce_entry(e, i) for i, e in enumerate(entries)]
    if not items:
        raise InvalidInput("Nothing to append: give at least one entry.")
    with rt.write() as s:
        return append_in(rt, s, agent_row(s, agent), items, actor)


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

    With `around`, the entries of that entry's thread nearest to it (limit//2 on
    each side). With `since`, the first `limit` entries from then on; otherwise
    the latest `limit` entries.
    """
    if limit <= 0:
        raise InvalidInput("limit must be a positive number.")
    limit = min(limit, MAX_READ)
    for k in kinds or ():
        if k not in KINDS:
            raise InvalidInput(f"Unknown kind {k!r}: use one of {', '.join(KINDS)}.")
    with rt.read() as s:
        arow = agent_row(s, agent)
        q = select(TapeEntryRow).where(TapeEntryRow.agent_id == arow.id)
        if around is not None:
            anchor = s.get(TapeEntryRow, around)
            if anchor is None or anchor.agent_id != arow.id:
                raise NotFound(f"No entry {around} on agent {agent!r}'s tape.")
            half = max(1, limit // 2)
            same = q.where(TapeEntryRow.thread == anchor.thread)
            before = s.exec(
                same.where(TapeEntryRow.seq <= anchor.seq)
                .order_by(TapeEntryRow.seq.desc())  # type: ignore[attr-defined]
                .limit(half + 1)
            ).all()
            after = s.exec(
                same.where(TapeEntryRow.seq > anchor.seq).order_by(TapeEntryRow.seq).limit(half)
            ).all()
            return [to_entry(r, agent) for r in [*reversed(before), *after]]
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
            rows = s.exec(q.order_by(TapeEntryRow.seq).limit(limit)).all()
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
            where = f" on agent {agent!r}'s tape" if agent else ""
            raise NotFound(f"No tape entry {entry_id}{where}.")
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
            conn = s.connection()
            conn.execute(text("DELETE FROM tape_fts WHERE rowid = :id"), {"id": entry_id})
            s.execute(
                EmbedQueueRow.__table__.delete().where(  # type: ignore[attr-defined]
                    (EmbedQueueRow.kind == "tape") & (EmbedQueueRow.item_id == entry_id)
                )
            )
            record(s, rt.now_iso(), "tape.erase", agent=owner.name, actor="owner", ids=[entry_id])
        s.flush()
        return to_entry(row, owner.name)
