"""Memories: small durable conclusions, each traceable to the tape entries it came from.

`remember` runs the intake gate, checks the sources and parents belong to the
same agent, refuses forgotten text, reports exact duplicates, and otherwise
stores the memory with its provenance and lineage. Without sources, the call
itself is appended to the tape and becomes the source: no memory is ever
without provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, text, update
from sqlmodel import Session, col, select

from . import confront, intake
from .clock import from_iso, from_iso_or_none
from .db.schema import (
    AgentRow,
    EmbedQueueRow,
    LineageRow,
    MemoryRow,
    MemoryUseRow,
    MemoryVersionRow,
    ProvenanceRow,
    TapeEntryRow,
)
from .db.store import dbapi
from .errors import InvalidInput, NotFound, Refused
from .events import record
from .fulltext import index_tokens, purge
from .models import (
    STATUSES,
    Memory,
    MemoryDetail,
    MemoryLink,
    MemoryVersion,
    NewEntry,
    RememberResult,
)
from .runtime import AgentLike, Runtime, agent_ref, agent_row
from .tape import append_in, label, to_entry
from .textnorm import memory_hash

MAX_LIST = 1000

# The columns a Memory is made of, in the order `memory_of` reads them.
_MEMORY_FIELDS = (
    "id", "category", "text", "content_hash", "importance", "confidence", "status", "version",
    "thread", "user", "created_at", "updated_at", "recall_count", "use_count",
    "last_recalled_at", "last_used_at", "archived_at", "superseded_by",
)  # fmt: skip
MEMORY_COLUMNS = ", ".join(_MEMORY_FIELDS)


def memory_of(r: Sequence[Any], agent: str) -> Memory:
    """A Memory from a row selected with `MEMORY_COLUMNS` (the one row -> Memory converter)."""
    return Memory(
        id=r[0],
        agent=agent,
        category=r[1],
        text=r[2],
        content_hash=r[3],
        importance=r[4],
        confidence=r[5],
        status=r[6],
        version=r[7],
        thread=r[8],
        user=r[9],
        created_at=from_iso(r[10]),
        updated_at=from_iso(r[11]),
        recall_count=r[12],
        use_count=r[13],
        last_recalled_at=from_iso_or_none(r[14]),
        last_used_at=from_iso_or_none(r[15]),
        archived_at=from_iso_or_none(r[16]),
        superseded_by=r[17],
    )


@dataclass(frozen=True)
class NewMemory:
    """A memory about to be stored: what `remember` (and a merge) hands the write path."""

    body: str
    category: str
    digest: str  # memory_hash(body)
    source_ids: tuple[int, ...]
    parent_ids: tuple[int, ...] = ()
    importance: float = 0.5
    confidence: float = 0.8
    thread: str | None = None
    turn: str | None = None
    user: str | None = None
    actor: str = "agent"


def to_memory(row: MemoryRow, agent: str) -> Memory:
    """A Memory from an ORM row (paths that still load rows through the ORM)."""
    return memory_of(tuple(getattr(row, name) for name in _MEMORY_FIELDS), agent)


def _owned_memory(s: Session, memory_id: int, agent: str | None) -> tuple[MemoryRow, str]:
    row = s.get(MemoryRow, memory_id)
    owner = s.get(AgentRow, row.agent_id) if row is not None else None
    if row is None or owner is None or (agent is not None and owner.name != agent):
        where = f" of agent {agent!r}" if agent else ""
        raise NotFound(
            f"No memory {memory_id}{where}. Find ids with `tapemind memory list` or search."
        )
    return row, owner.name


def index_memory_text(s: Session, memory_id: int, body: str, agent_id: int, now: str) -> None:
    """(Re)write a memory's full-text row and queue it for embedding. The delete
    runs for new memories too: ids are max+1, so a stale row may hold the id."""
    db = dbapi(s)
    db.execute("DELETE FROM memory_fts WHERE rowid = ?", (memory_id,))
    if body:
        db.execute(
            "INSERT INTO memory_fts (rowid, tokens) VALUES (?, ?)",
            (memory_id, index_tokens(body, agent_id)),
        )
    db.execute(
        "INSERT INTO embed_queue (kind, item_id, agent_id, enqueued_at) "
        "VALUES ('memory', ?, ?, ?) "
        "ON CONFLICT (kind, item_id) DO UPDATE SET enqueued_at = excluded.enqueued_at",
        (memory_id, agent_id, now),
    )


def unindex_memory(s: Session, memory_id: int) -> None:
    conn = s.connection()
    conn.execute(text("DELETE FROM memory_fts WHERE rowid = :id"), {"id": memory_id})
    s.execute(
        EmbedQueueRow.__table__.delete().where(  # type: ignore[attr-defined]
            (EmbedQueueRow.kind == "memory") & (EmbedQueueRow.item_id == memory_id)
        )
    )


@dataclass(frozen=True)
class _Source:
    id: int
    thread: str
    turn: str | None
    user: str | None


def _check_sources(s: Session, arow: AgentLike, sources: Sequence[int]) -> list[_Source]:
    db = dbapi(s)
    rows: list[_Source] = []
    for entry_id in dict.fromkeys(sources):
        found = db.execute(
            "SELECT id, thread, turn, user FROM tape_entries WHERE id = ? AND agent_id = ?",
            (int(entry_id), arow.id),
        ).fetchone()
        if found is None:
            raise Refused(
                f"Source entry {entry_id} is not on agent {arow.name!r}'s tape (it does not "
                "exist or belongs to another agent). Cite entries returned by append or tape.",
                code="unknown_source",
            )
        rows.append(_Source(*found))
    return rows


def _check_parents(
    s: Session, arow: AgentLike, parents: Sequence[int], *, what: str = "Parent memory"
) -> list[int]:
    db = dbapi(s)
    out: list[int] = []
    for memory_id in dict.fromkeys(parents):
        found = db.execute(
            "SELECT id FROM memories WHERE id = ? AND agent_id = ?", (int(memory_id), arow.id)
        ).fetchone()
        if found is None:
            raise Refused(
                f"{what} {memory_id} is not a memory of agent {arow.name!r} (it does not "
                "exist or belongs to another agent).",
                code="unknown_parent",
            )
        out.append(int(found[0]))
    return out


def is_forgotten(s: Session, agent_id: int, digest: str) -> bool:
    """Whether the owner forgot a memory of this agent that ever had this text
    (any version: an edited-then-forgotten memory tombstones all its texts)."""
    found = (
        dbapi(s)
        .execute(
            "SELECT 1 FROM memories m JOIN memory_versions v ON v.memory_id = m.id "
            "WHERE m.agent_id = ? AND m.status = 'forgotten' AND v.content_hash = ? LIMIT 1",
            (agent_id, digest),
        )
        .fetchone()
    )
    return found is not None


def remember(
    rt: Runtime,
    agent: str,
    body: str,
    category: str,
    *,
    sources: Sequence[int] = (),
    importance: float = 0.5,
    confidence: float = 0.8,
    parents: Sequence[int] = (),
    thread: str | None = None,
    turn: str | None = None,
    user: str | None = None,
    actor: str = "agent",
) -> RememberResult:
    """Store a durable conclusion, or say why not.

    Raises InvalidInput for a bad category or importance, Refused (with a code:
    empty, too_long, chit_chat, credential, tool_output, unknown_source,
    unknown_parent, forgotten) when the gate says no, NotFound for an unknown agent.
    """
    intake.check_category(category)
    intake.check_importance(importance)
    intake.check_importance(confidence)
    body = intake.check_text(rt.redact(body))
    thread = label(thread, "thread", "remember", required=False)
    turn = label(turn, "turn", "remember", required=False)
    user = label(user, "user", "remember", required=False)
    digest = memory_hash(body)
    # Issue 4: the arbiter decides before the write lock is taken (an LLM may be slow).
    verdict = confront.consider(rt, agent, body, category)
    now = rt.now_iso()
    with rt.write() as s:
        db = dbapi(s)
        arow = agent_ref(s, agent)
        assert arow.id is not None
        src_rows = _check_sources(s, arow, sources)
        parent_ids = _check_parents(s, arow, parents)
        if is_forgotten(s, arow.id, digest):
            raise Refused(
                "The owner asked to forget this memory; it will not be learned again.",
                code="forgotten",
            )
        live = db.execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE agent_id = ? AND content_hash = ? "
            "AND status IN ('active', 'archived') ORDER BY id LIMIT 1",
            (arow.id, digest),
        ).fetchone()
        if live is not None:
            target_id = int(live[0])
            db.execute("UPDATE memories SET last_reinforced_at = ? WHERE id = ?", (now, target_id))
            record(s, now, "memory.duplicate", agent=agent, actor=actor, ids=[target_id])
            confront.store_decision(
                s, now, arow, digest, category, "duplicate", target_id=target_id,
                memory_id=None, conflict_id=None, arbiter="hash", reason="exact duplicate",
                neighbours=0, actor=actor, latency_ms=0.0,
            )  # fmt: skip
            return RememberResult(
                decision="duplicate",
                memory=memory_of(live, agent),
                target_id=target_id,
                reason=f"Exact duplicate of memory {target_id} (same text once normalised); "
                "nothing stored, the existing memory was reinforced.",
                arbiter="hash",
                source_ids=tuple(r.id for r in src_rows),
            )
        if not src_rows:
            call = NewEntry(
                thread=thread or "remember",
                turn=turn,
                user=user,
                kind="event",
                role="system",
                text=f"remember [{category}]: {body}",
                meta={"call": "remember"},
            )
            appended = append_in(rt, s, arow, [call], actor)
            src_rows = [_Source(appended.ids[0], call.thread, call.turn, call.user)]
        first = src_rows[0]
        new = NewMemory(
            body=body,
            category=category,
            digest=digest,
            source_ids=tuple(r.id for r in src_rows),
            parent_ids=tuple(parent_ids),
            importance=importance,
            confidence=confidence,
            thread=thread or first.thread,
            turn=turn or first.turn,
            user=user or first.user,
            actor=actor,
        )
        return confront.apply(rt, s, arow, verdict, new)


def store_new(
    rt: Runtime, s: Session, arow: AgentLike, new: NewMemory, *, relation: str = "referenced"
) -> Memory:
    """Insert a memory with version 1, provenance and lineage, inside a transaction.

    Memories the agent reported using in `new.turn` become its `derived` parents.
    """
    assert arow.id is not None
    db = dbapi(s)
    now = rt.now_iso()
    new_id = int(db.execute("SELECT coalesce(max(id), 0) FROM memories").fetchone()[0]) + 1
    db.execute(
        "INSERT INTO memories (id, agent_id, category, text, content_hash, importance, "
        "confidence, status, version, thread, turn, user, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'active', 1, ?, ?, ?, ?, ?)",
        (
            *(new_id, arow.id, new.category, new.body, new.digest, new.importance),
            *(new.confidence, new.thread, new.turn, new.user, now, now),
        ),
    )
    db.execute(
        "INSERT INTO memory_versions (memory_id, version, text, content_hash, changed_at, "
        "changed_by, reason) VALUES (?, 1, ?, ?, ?, ?, 'created')",
        (new_id, new.body, new.digest, now, new.actor),
    )
    db.executemany(
        "INSERT INTO provenance (memory_id, entry_id) VALUES (?, ?)",
        [(new_id, e) for e in dict.fromkeys(new.source_ids)],
    )
    links = {(p, relation) for p in new.parent_ids}
    if new.turn:
        used = db.execute(
            "SELECT memory_id FROM memory_uses WHERE agent_id = ? AND turn = ?",
            (arow.id, new.turn),
        ).fetchall()
        links.update((m, "derived") for (m,) in used if m != new_id)
    if links:
        db.executemany(
            "INSERT INTO lineage (child_id, parent_id, relation, created_at) VALUES (?, ?, ?, ?)",
            [(new_id, p, r, now) for p, r in sorted(links)],
        )
    index_memory_text(s, new_id, new.body, arow.id, now)
    record(
        s,
        now,
        "memory.add",
        agent=arow.name,
        actor=new.actor,
        ids=[new_id],
        counts={"sources": len(new.source_ids), "parents": len(links)},
    )
    created = from_iso(now)
    return Memory(
        id=new_id,
        agent=arow.name,
        category=new.category,
        text=new.body,
        content_hash=new.digest,
        importance=new.importance,
        confidence=new.confidence,
        status="active",
        version=1,
        thread=new.thread,
        user=new.user,
        created_at=created,
        updated_at=created,
        recall_count=0,
        use_count=0,
        last_recalled_at=None,
        last_used_at=None,
        archived_at=None,
        superseded_by=None,
    )


def _links(s: Session, memory_id: int, *, parents: bool) -> tuple[MemoryLink, ...]:
    if parents:
        q = select(LineageRow.parent_id, LineageRow.relation).where(
            LineageRow.child_id == memory_id
        )
    else:
        q = select(LineageRow.child_id, LineageRow.relation).where(
            LineageRow.parent_id == memory_id
        )
    out = []
    for other_id, relation in s.exec(q).all():
        other = s.get(MemoryRow, other_id)
        if other is not None:
            out.append(MemoryLink(other.id, relation, other.category, other.status, other.text))
    return tuple(out)


def detail(rt: Runtime, memory_id: int, agent: str | None = None) -> MemoryDetail:
    """A memory with its source entries, parents, children and versions.

    With `agent`, only that agent's memories are visible."""
    with rt.read() as s:
        row, owner = _owned_memory(s, memory_id, agent)
        sources = s.exec(
            select(TapeEntryRow)
            .join(ProvenanceRow, col(ProvenanceRow.entry_id) == col(TapeEntryRow.id))
            .where(ProvenanceRow.memory_id == memory_id)
            .order_by(col(TapeEntryRow.seq))
        ).all()
        versions = s.exec(
            select(MemoryVersionRow)
            .where(MemoryVersionRow.memory_id == memory_id)
            .order_by(col(MemoryVersionRow.version))
        ).all()
        return MemoryDetail(
            memory=to_memory(row, owner),
            sources=tuple(to_entry(e, owner) for e in sources),
            parents=_links(s, memory_id, parents=True),
            children=_links(s, memory_id, parents=False),
            versions=tuple(
                MemoryVersion(v.version, v.text, from_iso(v.changed_at), v.changed_by, v.reason)
                for v in versions
            ),
        )


def _filters(arow: AgentLike, category: str | None, status: str | None) -> list[Any]:
    if category is not None:
        intake.check_category(category)
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"Unknown status {status!r}: use one of {', '.join(STATUSES)}.")
    conds: list[Any] = [MemoryRow.agent_id == arow.id]
    if category is not None:
        conds.append(MemoryRow.category == category)
    if status is not None:
        conds.append(MemoryRow.status == status)
    return conds


def list_(
    rt: Runtime,
    agent: str,
    *,
    category: str | None = None,
    status: str | None = None,
    limit: int = 50,
    offset: int = 0,
    before_id: int | None = None,
) -> list[Memory]:
    """One page of an agent's memories, newest first (with `before_id`: the ones
    older than that memory, the page after a page that ended with it).

    The indexes are (agent, status, id) and (agent, category, status, id), so
    "newest first across statuses" is one index walk per status, merged; a
    plain ORDER BY would sort every memory of the agent (25 ms at 100k). An
    offset still reads every row before it (390 ms of CPU at offset 99,800);
    `before_id` starts each walk at that id instead."""
    if limit <= 0 or offset < 0:
        raise InvalidInput("limit must be positive and offset not negative.")
    if category is not None:
        intake.check_category(category)
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"Unknown status {status!r}: use one of {', '.join(STATUSES)}.")
    limit = min(limit, MAX_LIST)
    with rt.read() as s:
        arow = agent_ref(s, agent)
        where = "agent_id = ?" + (" AND category = ?" if category is not None else "")
        args: list[Any] = [arow.id] + ([category] if category is not None else [])
        if before_id is not None:
            where += " AND id < ?"
            args.append(int(before_id))
        parts, params = [], []
        for one in [status] if status is not None else STATUSES:
            parts.append(
                f"SELECT * FROM (SELECT {MEMORY_COLUMNS} FROM memories "
                f"WHERE {where} AND status = ? ORDER BY id DESC LIMIT ?)"
            )
            params += [*args, one, offset + limit]
        rows = (
            dbapi(s)
            .execute(
                " UNION ALL ".join(parts) + " ORDER BY id DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            )
            .fetchall()
        )
        return [memory_of(r, agent) for r in rows]


def count(
    rt: Runtime, agent: str, *, category: str | None = None, status: str | None = None
) -> int:
    with rt.read() as s:
        arow = agent_row(s, agent)
        return int(
            s.exec(
                select(func.count()).select_from(MemoryRow).where(*_filters(arow, category, status))
            ).one()
        )


def edit(
    rt: Runtime,
    memory_id: int,
    body: str,
    *,
    actor: str = "owner",
    reason: str = "edited by the owner",
) -> Memory:
    """Owner edit: a new version of the text; earlier versions are kept."""
    body = body.strip()
    if not body:
        raise InvalidInput("The new text is empty; to remove a memory use `tapemind forget`.")
    try:
        body.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("The new text is not valid Unicode (a lone surrogate).") from None
    if len(body) > intake.MAX_MEMORY_CHARS:
        raise InvalidInput(f"The new text is over {intake.MAX_MEMORY_CHARS} characters.")
    body = rt.redact(body)
    # The owner is held to the same rule as agents: a credential never enters a memory
    # (it would be recalled into every agent's context); the vault is its place.
    kind = intake.credential_kind(body)
    if kind is not None:
        raise Refused(
            f"The new text looks like it contains a credential ({kind}). Keep credentials "
            "in the vault (tapemind vault set NAME) and leave the memory without it.",
            code="credential",
        )
    now = rt.now_iso()
    with rt.write() as s:
        row, owner = _owned_memory(s, memory_id, None)
        if row.status == "forgotten":
            raise InvalidInput(f"Memory {memory_id} was forgotten; its text cannot be edited.")
        if body == row.text:
            return to_memory(row, owner)
        row.version += 1
        row.text = body
        row.content_hash = memory_hash(body)
        row.updated_at = now
        s.add(row)
        s.execute(
            insert(MemoryVersionRow),
            {
                "memory_id": row.id,
                "version": row.version,
                "text": body,
                "content_hash": row.content_hash,
                "changed_at": now,
                "changed_by": actor,
                "reason": reason,
            },
        )
        index_memory_text(s, row.id, body, row.agent_id, now)
        record(
            s,
            now,
            "memory.edit",
            agent=owner,
            actor=actor,
            ids=[row.id],
            counts={"version": row.version},
        )
        return to_memory(row, owner)


def forget(rt: Runtime, memory_id: int, *, actor: str = "owner") -> Memory:
    """Remove a memory's text everywhere, keeping its hash so it is not learned again."""
    now = rt.now_iso()
    with rt.write() as s:
        row, owner = _owned_memory(s, memory_id, None)
        row.text = ""
        row.status = "forgotten"
        row.updated_at = now
        s.add(row)
        s.execute(
            update(MemoryVersionRow)
            .where(col(MemoryVersionRow.memory_id) == memory_id)
            .values(text="")
        )
        unindex_memory(s, memory_id)
        purge(dbapi(s), "memory_fts")
        erased = _erase_remember_calls(s, memory_id, now)
        if erased:
            purge(dbapi(s), "tape_fts")
            record(s, now, "tape.erase", agent=owner, actor=actor, ids=erased)
        record(
            s,
            now,
            "memory.forget",
            agent=owner,
            actor=actor,
            ids=[memory_id],
            counts={"tape_erased": len(erased)},
        )
        result = to_memory(row, owner)
    rt.store.checkpoint()
    return result


def _erase_remember_calls(s: Session, memory_id: int, now: str) -> list[int]:
    """Erase the tape entries that a source-less `remember` wrote for this memory:
    their content is the memory's text, so forgetting must take them too."""
    db = dbapi(s)
    ids = [
        int(i)
        for (i,) in db.execute(
            "SELECT e.id FROM provenance p JOIN tape_entries e ON e.id = p.entry_id "
            "WHERE p.memory_id = ? AND e.kind = 'event' AND e.erased_at IS NULL "
            "AND json_extract(e.meta, '$.call') = 'remember'",
            (memory_id,),
        )
    ]
    for entry_id in ids:
        db.execute(
            "UPDATE tape_entries SET content = '', meta = NULL, erased_at = ? WHERE id = ?",
            (now, entry_id),
        )
        db.execute("DELETE FROM tape_fts WHERE rowid = ?", (entry_id,))
        db.execute("DELETE FROM embed_queue WHERE kind = 'tape' AND item_id = ?", (entry_id,))
    return ids


def report_used(rt: Runtime, agent: str, turn: str, memory_ids: Sequence[int]) -> list[int]:
    """The agent used these memories in `turn`: reinforce them, and make them the
    `derived` parents of whatever that turn remembers. Returns the ids recorded."""
    if not turn:
        raise InvalidInput("turn is required: the turn in which the memories were used.")
    now = rt.now_iso()
    with rt.write() as s:
        arow = agent_row(s, agent)
        ids = _check_parents(s, arow, [int(m) for m in memory_ids], what="Memory")
        fresh = []
        for memory_id in ids:
            key = (arow.id, turn, memory_id)
            if s.get(MemoryUseRow, key) is not None:
                continue
            assert arow.id is not None
            s.add(MemoryUseRow(agent_id=arow.id, turn=turn, memory_id=memory_id, reported_at=now))
            fresh.append(memory_id)
        if fresh:
            s.execute(
                update(MemoryRow)
                .where(col(MemoryRow.id).in_(fresh))
                .values(use_count=MemoryRow.use_count + 1, last_used_at=now)
            )
        record(
            s,
            now,
            "memory.use",
            agent=agent,
            actor="agent",
            ids=fresh,
            counts={"memories": len(fresh)},
        )
        return fresh
