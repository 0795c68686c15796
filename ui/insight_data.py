"""Proposals and grown skills as the Insights page shows them (worker side).

Nothing here touches Qt: `load_insights` runs on a worker thread and returns frozen
values (each proposal with its evidence memories and their tape entries read) that the
page and the review dialog only display.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from .conflict_data import Evidence

if TYPE_CHECKING:
    from app import Engine, Proposal

PAGE = 200  # proposals read per engine call


@dataclass(frozen=True)
class EvidenceMemory:
    """A memory a proposal rests on, as it is now, with the tape entries it came from."""

    memory_id: int
    category: str
    status: str
    text: str
    entries: tuple[Evidence, ...]


@dataclass(frozen=True)
class ProposalView:
    id: int
    agent: str
    kind: str  # new | revision
    reason: str  # new | grown | stale
    name: str
    description: str
    text: str
    diff: str | None
    steps: int
    writer: str
    note: str | None
    created_at: datetime | None
    evidence: tuple[EvidenceMemory, ...]


@dataclass(frozen=True)
class SkillView:
    agent: str
    name: str
    version: int
    state: str  # current | review | stale
    issues: tuple[tuple[int, str, int | None], ...]  # (memory id, what, other memory id)
    updated_at: datetime | None
    text: str


def _evidence(engine: Engine, agent: str, memory_id: int) -> EvidenceMemory:
    detail = engine.memory(memory_id, agent=agent)
    m = detail.memory
    entries = tuple(Evidence(e.id, e.role, e.text, e.created_at) for e in detail.sources)
    return EvidenceMemory(m.id, m.category, m.status, m.text, entries)


def to_view(engine: Engine, p: Proposal) -> ProposalView:
    return ProposalView(
        id=p.id,
        agent=p.agent,
        kind=p.kind,
        reason=p.reason,
        name=p.name,
        description=p.description,
        text=p.text,
        diff=p.diff,
        steps=len(p.steps),
        writer=p.writer,
        note=p.note,
        created_at=p.created_at,
        evidence=tuple(_evidence(engine, p.agent, i) for i in p.evidence),
    )


def load_proposals(engine: Engine) -> list[ProposalView]:
    """Every agent's pending proposals, oldest first, each with its evidence read."""
    out: list[ProposalView] = []
    while True:
        page = engine.proposals(None, "pending", limit=PAGE, offset=len(out))
        out.extend(to_view(engine, p) for p in page)
        if len(page) < PAGE:
            return out


def load_skills(engine: Engine) -> list[SkillView]:
    """Every agent's grown skills, those that need a look first."""
    out = []
    for agent in engine.agents():
        for s in engine.skills(agent.name):
            issues = tuple((i.memory_id, i.what, i.other_id) for i in s.issues)
            out.append(
                SkillView(agent.name, s.name, s.version, s.state, issues, s.updated_at, s.text)
            )
    order = {"stale": 0, "review": 1, "current": 2}
    out.sort(key=lambda v: (order.get(v.state, 3), v.agent, v.name))
    return out


def load_insights(engine: Engine) -> tuple[list[ProposalView], list[SkillView], list[str]]:
    """(pending proposals, grown skills, agent names) for the Insights page."""
    return load_proposals(engine), load_skills(engine), [a.name for a in engine.agents()]
