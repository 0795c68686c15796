"""Confrontation at write time: a candidate memory meets its nearest active neighbours.

`consider` runs before the write transaction: it gathers the candidate's 10 nearest
active memories of the same agent (`app.confront.neighbours`: full-text, so unembedded rows count,
fused with the vector index's neighbours when `app.index.service.RETRIEVAL` is there) and
asks the agent's arbiter (`AgentSettings.arbiter`: "offline", the rules; "learned", the
model fitted on labelled decisions; or "llm" with
`AgentSettings.llm = "model@base_url"` and the key in $TAPEMIND_LLM_API_KEY). A slow
LLM therefore never holds the database's write lock. The candidate is embedded once,
for its vector neighbours; the indexer reuses that vector (`RetrievalService.known_vector`).

`apply` runs inside `remember`'s write transaction and carries the decision out:
- add: the candidate is stored;
- update: the target is refined: a new version with the candidate's text, the
  candidate's sources added to its provenance, reinforced; its history is kept;
- supersede: the candidate is stored, the target becomes `superseded`, its
  `superseded_by` points at the successor, lineage successor -> target "supersedes";
- duplicate: nothing is stored, the target is reinforced (`last_reinforced_at`);
- conflict: the candidate is stored as an ACTIVE memory (both are kept, so an open
  conflict never blocks writes nor hides what the agent just learned) and an open
  conflict is raised for the owner to settle (`app.confront.conflicts`).
A target that stopped being active between `consider` and `apply` (another writer)
turns the decision into `add`: never an overwrite of something not compared.
Every decision is stored in `decisions` (agent, candidate hash, action, target,
arbiter, reason, time) so its quality can be measured. The decision, its audit rows
and its events are written in that one transaction (events are published after the
commit). Both halves go through the sqlite3 driver (`dbapi`), not the ORM: remember
is a hot path.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlmodel import Session

from app.chat import LLM_API_KEY_ENV, parse_llm
from app.clock import from_iso
from app.confront.arbiter import (
    Arbiter,
    Candidate,
    Decision,
    LearnedArbiter,
    LLMArbiter,
    Neighbour,
    OfflineArbiter,
    reasons,
)
from app.confront.neighbours import neighbours
from app.db import DecisionRow, dbapi
from app.events import record
from app.models import AgentSettings, Memory, RememberResult
from app.runtime import AgentLike, Runtime, Slot, agent_ref, settings_of
from app.text import memory_hash

if TYPE_CHECKING:
    from app.memory import NewMemory

log = logging.getLogger(__name__)

# A link already there is kept as it is. ON CONFLICT DO NOTHING rather than SQLite's
# INSERT OR IGNORE: PostgreSQL reads it too.
SUPERSEDES_SQL = (
    "INSERT INTO lineage (child_id, parent_id, relation, created_at) "
    "VALUES (?, ?, 'supersedes', ?) ON CONFLICT DO NOTHING"
)


@dataclass(frozen=True)
class Verdict:
    """The arbiter's decision on a candidate, made before the write transaction."""

    decision: Decision
    neighbours: int
    latency_ms: float


def make_arbiter(rt: Runtime, settings: AgentSettings) -> Arbiter:
    """The agent's arbiter, cached per setting in the runtime's services.

    An arbiter in the `ARBITER` slot overrides every agent's choice
    (tests; seeding curated data such as the demo, whose memories must stay as written)."""
    injected = rt.services.get(ARBITER)
    if injected is not None:
        return injected
    key = (settings.arbiter, settings.llm if settings.arbiter == "llm" else None)
    cache = rt.services.setdefault(ARBITERS, dict)
    arbiter = cache.get(key)
    if arbiter is None:
        offline = cache.setdefault(("offline", None), OfflineArbiter())
        if settings.arbiter == "llm" and settings.llm:
            model, base_url = parse_llm(settings.llm)
            arbiter = LLMArbiter(
                base_url,
                model,
                api_key=os.environ.get(LLM_API_KEY_ENV) or None,
                fallback=offline,  # type: ignore[arg-type]
            )
        elif settings.arbiter == "learned":
            arbiter = cache.setdefault(("learned", None), LearnedArbiter())
        else:
            arbiter = offline
        cache[key] = arbiter
    return arbiter


# An arbiter that overrides every agent's choice (tests; seeding curated data such as the
# demo), and the arbiters made for agents' settings, one per setting.
ARBITER: Slot[Arbiter] = Slot("arbiter")
ARBITERS: Slot[dict[Any, Arbiter]] = Slot("arbiters")


class KeepAll:
    """An arbiter that adds every candidate: for seeding curated memories as written."""

    name = "seed"

    def decide(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        return Decision("add", None, "seeded as written", self.name)


def consider(rt: Runtime, agent: str, body: str, category: str) -> Verdict | None:
    """Ask the agent's arbiter about `body` (outside any write transaction).

    Returns None when the exact text is already a live memory (the hash check in
    `remember` handles that without an arbiter). Raises NotFound for an unknown agent.
    """
    started = time.perf_counter()
    with rt.read() as s:
        arow = agent_ref(s, agent)
        settings = settings_of(arow)
        same = (
            dbapi(s)
            .execute(
                "SELECT 1 FROM memories WHERE agent_id = ? AND content_hash = ? "
                "AND status IN ('active', 'archived') LIMIT 1",
                (arow.id, memory_hash(body)),
            )
            .fetchone()
        )
        if same is not None:
            return None
        near = neighbours(rt, s, arow, body)
    arbiter = make_arbiter(rt, settings)
    decision = arbiter.decide(Candidate(body, category), near)
    return Verdict(decision, len(near), (time.perf_counter() - started) * 1000.0)


def store_decision(
    s: Session,
    now: str,
    arow: AgentLike,
    digest: str,
    category: str,
    action: str,
    *,
    target_id: int | None,
    memory_id: int | None,
    conflict_id: int | None,
    arbiter: str,
    reason: str,
    neighbours: int,
    actor: str,
    latency_ms: float,
    code: str | None = None,
    params: Mapping[str, object] | None = None,
) -> None:
    """One row in `decisions`: what happened to a candidate and why (`reason`, and the same
    as a code with parameters: app.confront.arbiter.reasons)."""
    dbapi(s).execute(
        "INSERT INTO decisions (agent_id, at, candidate_hash, category, action, target_id, "
        "memory_id, conflict_id, arbiter, reason, neighbours, actor, latency_ms, reason_code, "
        "reason_params) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            *(arow.id, now, digest, category, action, target_id, memory_id, conflict_id),
            *(arbiter, reason[:1000], neighbours, actor, round(latency_ms, 3)),
            *(code, reasons.params_json(params or {})),
        ),
    )


def _live_target(s: Session, arow: AgentLike, decision: Decision) -> Memory | None:
    """The decision's target, if it is still an active memory of this agent."""
    from app.memory import MEMORY_COLUMNS, memory_of

    if decision.target_id is None:
        return None
    try:
        target_id = int(decision.target_id)
    except (TypeError, ValueError):
        return None
    found = (
        dbapi(s)
        .execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ? AND agent_id = ? "
            "AND status = 'active'",
            (target_id, arow.id),
        )
        .fetchone()
    )
    return memory_of(found, arow.name) if found is not None else None


def apply(
    rt: Runtime, s: Session, arow: AgentLike, verdict: Verdict | None, new: NewMemory
) -> RememberResult:
    """Carry out `verdict` inside the caller's write transaction (see the module doc)."""
    from app.confront.conflicts import raise_conflict
    from app.memory import store_new

    now = rt.now_iso()
    if verdict is None:
        decision = reasons.decision("add", None, "none", "new_memory")
        near, latency = 0, 0.0
    else:
        decision, near, latency = verdict.decision, verdict.neighbours, verdict.latency_ms
    target = _live_target(s, arow, decision) if decision.action != "add" else None
    if decision.action != "add" and target is None:
        decision = reasons.decision(
            "add", None, decision.arbiter, "stale_target",
            action=decision.action, target=decision.target_id, inner=reasons.nested(decision),
        )  # fmt: skip
    action, reason = decision.action, decision.reason
    code, params = decision.reason_code, decision.reason_params
    conflict_id: int | None = None
    memory: Memory
    if action == "add":
        memory = store_new(rt, s, arow, new)
    elif action == "duplicate":
        assert target is not None
        dbapi(s).execute(
            "UPDATE memories SET last_reinforced_at = ? WHERE id = ?", (now, target.id)
        )
        record(s, now, "memory.duplicate", agent=arow.name, actor=new.actor, ids=[target.id])
        memory = target
    elif action == "update":
        assert target is not None
        memory = refine(s, now, arow, target, new, reason)
    elif action == "supersede":
        assert target is not None
        memory = store_new(rt, s, arow, new)
        supersede(s, now, arow, target.id, memory.id, new.actor)
    else:  # conflict
        assert target is not None
        memory = store_new(rt, s, arow, new)
        conflict_id = raise_conflict(
            s, now, arow, target.id, memory.id, reason, decision.arbiter, new.actor,
            code=code, params=params,
        )  # fmt: skip
    target_id = target.id if target is not None else None
    store_decision(
        s, now, arow, new.digest, new.category, action, target_id=target_id,
        memory_id=memory.id if action != "duplicate" else None, conflict_id=conflict_id,
        arbiter=decision.arbiter, reason=reason, neighbours=near, actor=new.actor,
        latency_ms=latency, code=code, params=params,
    )  # fmt: skip
    return RememberResult(
        decision=action,
        memory=memory,
        target_id=target_id,
        reason=reason,
        arbiter=decision.arbiter,
        source_ids=new.source_ids,
        conflict_id=conflict_id,
        reason_code=decision.reason_code,
        reason_params=decision.reason_params,
    )


def refine(
    s: Session, now: str, arow: AgentLike, target: Memory, new: NewMemory, reason: str
) -> Memory:
    """`update`: the target takes the candidate's text as a new version, gains its
    sources, and is reinforced. Earlier versions stay in the history."""
    from app.memory import index_memory_text

    db = dbapi(s)
    version = target.version + 1
    importance = max(target.importance, new.importance)
    db.execute(
        "UPDATE memories SET version = ?, text = ?, content_hash = ?, importance = ?, "
        "updated_at = ?, last_reinforced_at = ? WHERE id = ?",
        (version, new.body, new.digest, importance, now, now, target.id),
    )
    db.execute(
        "INSERT INTO memory_versions (memory_id, version, text, content_hash, changed_at, "
        "changed_by, reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (target.id, version, new.body, new.digest, now, new.actor, f"refined: {reason}"[:500]),
    )
    have = {
        int(r[0])
        for r in db.execute("SELECT entry_id FROM provenance WHERE memory_id = ?", (target.id,))
    }
    fresh = [e for e in dict.fromkeys(new.source_ids) if e not in have]
    if fresh:
        db.executemany(
            "INSERT INTO provenance (memory_id, entry_id) VALUES (?, ?)",
            [(target.id, e) for e in fresh],
        )
    assert arow.id is not None
    index_memory_text(s, target.id, new.body, arow.id, now)
    record(
        s,
        now,
        "memory.update",
        agent=arow.name,
        actor=new.actor,
        ids=[target.id],
        counts={"version": version, "sources": len(fresh)},
    )
    return dataclasses.replace(
        target,
        text=new.body,
        content_hash=new.digest,
        importance=importance,
        version=version,
        updated_at=from_iso(now),
    )


def supersede(
    s: Session, now: str, arow: AgentLike, target_id: int, successor_id: int, actor: str
) -> None:
    """Mark `target_id` superseded by `successor_id`, with the lineage link between them."""
    db = dbapi(s)
    db.execute(
        "UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? WHERE id = ?",
        (successor_id, now, target_id),
    )
    db.execute(SUPERSEDES_SQL, (successor_id, target_id, now))
    record(s, now, "memory.supersede", agent=arow.name, actor=actor, ids=[target_id, successor_id])


@dataclass(frozen=True)
class DecisionRecord:
    """A stored decision: what the arbiter did with one candidate, and why."""

    id: int
    agent: str
    at: datetime
    candidate_hash: str
    category: str
    action: str
    target_id: int | None
    memory_id: int | None
    conflict_id: int | None
    arbiter: str
    reason: str
    neighbours: int
    actor: str
    latency_ms: float
    # `reason` as a code with parameters (app.confront.arbiter.reasons); None before codes
    reason_code: str | None = None
    reason_params: Mapping[str, object] = dataclasses.field(default_factory=dict)


def list_decisions(
    rt: Runtime, agent: str, *, action: str | None = None, limit: int = 100, offset: int = 0
) -> list[DecisionRecord]:
    """An agent's stored decisions, newest first."""
    from sqlmodel import col, select

    from app.runtime import agent_row

    with rt.read() as s:
        arow = agent_row(s, agent)
        q = select(DecisionRow).where(DecisionRow.agent_id == arow.id)
        if action is not None:
            q = q.where(DecisionRow.action == action)
        rows = s.exec(q.order_by(col(DecisionRow.id).desc()).limit(limit).offset(offset)).all()
        return [
            DecisionRecord(
                id=r.id or 0,
                agent=agent,
                at=from_iso(r.at),
                candidate_hash=r.candidate_hash,
                category=r.category,
                action=r.action,
                target_id=r.target_id,
                memory_id=r.memory_id,
                conflict_id=r.conflict_id,
                arbiter=r.arbiter,
                reason=r.reason,
                neighbours=r.neighbours,
                actor=r.actor,
                latency_ms=r.latency_ms,
                reason_code=r.reason_code,
                reason_params=reasons.params_of(r.reason_params),
            )
            for r in rows
        ]
