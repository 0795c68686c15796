"""`remember`: a candidate memory through the gate and confrontation into the store.

`remember` runs the intake gate, checks the sources and parents belong to the
same agent, refuses forgotten text, reports exact duplicates, lets the arbiter decide
against the nearest memories, and stores what it decided with provenance and lineage.
Without sources, the call itself is appended to the tape and becomes the source: no
memory is ever without provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session

from app.confront import decisions as confront
from app.db import dbapi
from app.errors import NotFound, Refused
from app.events import record
from app.memory import MEMORY_COLUMNS, NewMemory, check_parents, intake, memory_of
from app.models import NewEntry, RememberResult
from app.runtime import AgentLike, Runtime, agent_ref
from app.tape import append_in, label
from app.text import memory_hash


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
            # Not found, whether there is no such entry or another agent's: to an agent, the
            # other agents' tapes do not exist.
            raise NotFound(
                f"Source entry {entry_id} is not on the tape of agent {arow.name!r} (it does not "
                "exist or belongs to another agent). Cite entries returned by append or tape.",
                code="unknown_source",
            )
        rows.append(_Source(*found))
    return rows


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
    # The arbiter decides before the write lock is taken (an LLM may be slow).
    verdict = confront.consider(rt, agent, body, category)
    now = rt.now_iso()
    with rt.write() as s:
        db = dbapi(s)
        arow = agent_ref(s, agent)
        assert arow.id is not None
        src_rows = _check_sources(s, arow, sources)
        parent_ids = check_parents(s, arow, parents)
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
