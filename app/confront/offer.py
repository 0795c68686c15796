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
from app.confront import retries
from app.confront.arbiter.reasons import render
from app.db import dbapi
from app.errors import InvalidInput, NotFound, Refused
from app.events import record
from app.limits import MAX_ID, MAX_SOURCES
from app.memory import MEMORY_COLUMNS, NewMemory, check_parents, intake, memory_of
from app.models import NewEntry, RememberResult
from app.runtime import AgentLike, Runtime, agent_ref
from app.tape import append_in, label, ready
from app.text import memory_hash
from app.vault import echoes

SOURCE_SQL = 'SELECT id, thread, turn, "user" FROM tape_entries WHERE id = ? AND agent_id = ?'


@dataclass(frozen=True)
class _Source:
    id: int
    thread: str
    turn: str | None
    user: str | None


def _check_sources(s: Session, arow: AgentLike, sources: Sequence[int]) -> list[_Source]:
    db = dbapi(s)
    rows: list[_Source] = []
    for entry_id in dict.fromkeys(int(e) for e in sources):
        found = (
            db.execute(
                SOURCE_SQL,
                (entry_id, arow.id),
            ).fetchone()
            if 1 <= entry_id <= MAX_ID
            else None
        )
        if found is None:
            entry_id = entry_id if 1 <= entry_id <= MAX_ID else 0  # never a huge number
            # Not found, whether there is no such entry or another agent's: to an agent, the
            # other agents' tapes do not exist.
            raise NotFound(
                f"Source entry {entry_id} is not on the tape of agent {arow.name!r} (it does not "
                "exist or belongs to another agent). Cite entries returned by append or tape.",
                code="unknown_source",
                for_agents=f"Source entry {entry_id} is not on your tape. Cite the entry ids "
                "that `append` or `tape` gave you, and call again.",
            )
        rows.append(_Source(*found))
    return rows


@dataclass(frozen=True)
class _Offer:
    """A candidate that passed the gate, as `remember` was called with it."""

    body: str
    category: str
    digest: str
    sources: tuple[int, ...]
    importance: float
    confidence: float
    parents: tuple[int, ...]
    thread: str | None
    turn: str | None
    user: str | None
    actor: str


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
    key: str | None = None,
) -> RememberResult:
    """Store a durable conclusion, or say why not. `key` (the caller's, any text up to
    200 characters) makes a retry safe: a second call with the same key returns what the
    first one decided and writes nothing (`retries.py`).

    Raises InvalidInput for a bad category or importance, Refused (with a code:
    empty, too_long, chit_chat, credential, tool_output, unknown_parent, forgotten) when
    the gate says no, NotFound for an unknown agent or a source not on its tape.
    """
    intake.check_category(category)
    if len(sources) > MAX_SOURCES or len(parents) > MAX_SOURCES:
        raise InvalidInput(f"Give at most {MAX_SOURCES} sources and {MAX_SOURCES} parents.")
    intake.check_importance(importance)
    intake.check_importance(confidence)
    thread = label(thread, "thread", "remember", required=False)
    turn = label(turn, "turn", "remember", required=False)
    user = label(user, "user", "remember", required=False)
    key = label(key, "key", "remember", required=False)
    if key is not None:
        with rt.read_driver() as s:
            done = retries.by_key(s, agent_ref(s, agent), key)
        if done is not None:
            return done
    with rt.read_driver() as s:
        before = agent_ref(s, agent)
    if actor == "agent":
        echoes.check_writes(agent, before.secret_echoes)
    # The vault's values out first (an agent's write holding one it was not given is
    # refused, counted, whatever else the gate would say), then the gate.
    body, *labels = echoes.screen(
        rt, before.id, agent, [body, thread or "", turn or "", user or ""], actor=actor
    )
    thread, turn, user = (value or None for value in labels)
    body = intake.check_text(body)
    digest = memory_hash(body)
    # The arbiter decides before the write lock is taken (an LLM may be slow).
    verdict = confront.consider(rt, agent, body, category)
    with rt.write() as s:
        arow = agent_ref(s, agent)
        # Under the write lock: a retry that raced the first call finds it here.
        done = retries.by_key(s, arow, key) if key is not None else None
        if done is not None:
            return done
        offer = _Offer(body, category, digest, tuple(sources), importance, confidence,
                       tuple(parents), thread, turn, user, actor)  # fmt: skip
        result = _store(rt, s, arow, verdict, offer)
        if key is not None:
            retries.tag(s, arow, key)
        return result


def _store(
    rt: Runtime, s: Session, arow: AgentLike, verdict: confront.Verdict | None, offer: _Offer
) -> RememberResult:
    """Decide and store, inside the write transaction `s`."""
    body, category, digest = offer.body, offer.category, offer.digest
    thread, turn, user, actor = offer.thread, offer.turn, offer.user, offer.actor
    agent = arow.name
    now = rt.now_iso()
    db = dbapi(s)
    assert arow.id is not None
    if actor == "agent":
        echoes.check_writes(agent, arow.secret_echoes)
    src_rows = _check_sources(s, arow, offer.sources)
    parent_ids = check_parents(s, arow, offer.parents)
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
        same: dict[str, object] = {"target": target_id}
        db.execute("UPDATE memories SET last_reinforced_at = ? WHERE id = ?", (now, target_id))
        record(s, now, "memory.duplicate", agent=agent, actor=actor, ids=[target_id])
        confront.store_decision(
            s, now, arow, digest, category, "duplicate", target_id=target_id,
            memory_id=None, conflict_id=None, arbiter="hash", reason="exact duplicate",
            neighbours=0, actor=actor, latency_ms=0.0, code="exact_duplicate", params=same,
        )  # fmt: skip
        return RememberResult(
            decision="duplicate",
            memory=memory_of(live, agent),
            target_id=target_id,
            reason=render("exact_duplicate", same),
            arbiter="hash",
            source_ids=tuple(r.id for r in src_rows),
            reason_code="exact_duplicate",
            reason_params=same,
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
        appended = append_in(rt, s, arow, [ready(call)], actor)
        src_rows = [_Source(appended.ids[0], call.thread, call.turn, call.user)]
    first = src_rows[0]
    new = NewMemory(
        body=body,
        category=category,
        digest=digest,
        source_ids=tuple(r.id for r in src_rows),
        parent_ids=tuple(parent_ids),
        importance=offer.importance,
        confidence=offer.confidence,
        thread=thread or first.thread,
        turn=turn or first.turn,
        user=user or first.user,
        actor=actor,
    )
    return confront.apply(rt, s, arow, verdict, new)
