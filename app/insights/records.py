"""The values insights hand out: proposals, grown skills and their versions (frozen)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

# Why a proposal was made.
NEW = "new"  # no grown skill covers these memories yet
GROWN = "grown"  # a grown skill's memories changed: more of them, or other ones
STALE = "stale"  # a memory the skill rests on was forgotten or superseded
REASONS = (NEW, GROWN, STALE)

# A proposal's life: pending until the owner accepts or rejects it; withdrawn when a
# later run proposes something better for the same memories, or a memory it quotes is
# forgotten (its text is erased then).
PROPOSAL_STATUSES = ("pending", "accepted", "rejected", "withdrawn")

# A grown skill's state: current; review (a newer memory contradicts one it rests on, or
# one of them was edited since); stale (one of them was forgotten or superseded).
SKILL_STATES = ("current", "review", "stale")


@dataclass(frozen=True)
class SkillStep:
    """One step of a skill and the memories it rests on (the first is the one it quotes,
    in a draft written from the memories' own words)."""

    text: str
    memory_ids: tuple[int, ...]


@dataclass(frozen=True)
class SkillDraft:
    """A SKILL.md before it is rendered: what a writer produces from a group of memories."""

    name: str
    title: str
    description: str
    when_to_use: str
    steps: tuple[SkillStep, ...]
    language: str  # "en" | "zh": the headings' language


@dataclass(frozen=True)
class Proposal:
    """A skill the memories suggest, waiting for the owner (or decided).

    kind "new" proposes a new grown skill; "revision" a new version of `skill_id`, with
    `diff` the unified diff from its current text. `evidence` are the memories it was
    drawn from; `writer` is "extractive" or "llm:MODEL"; `note` says why a model's draft
    was not used, when it was not.
    """

    id: int
    agent: str
    status: str
    kind: str
    reason: str
    name: str
    description: str
    text: str
    steps: tuple[SkillStep, ...]
    evidence: tuple[int, ...]
    writer: str
    created_at: datetime
    decided_at: datetime | None = None
    skill_id: int | None = None
    base_version: int | None = None
    diff: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class SkillIssue:
    """Why a grown skill needs a look: a memory it rests on and what became of it.

    what: forgotten | superseded (the skill is stale), contradicted (an open conflict with
    memory `other_id`, conflict `conflict_id`), edited (changed since the skill took it).
    """

    memory_id: int
    what: str
    other_id: int | None = None
    conflict_id: int | None = None


@dataclass(frozen=True)
class GrownSkill:
    """An accepted skill of one agent, at its current version.

    `withheld`: agents are not given it (over MCP, or by `skill install`) because a memory
    it rests on was forgotten; the owner still reads the accepted text, and agents get the
    skill again once the owner accepts a version that no longer rests on that memory.
    """

    id: int
    agent: str
    name: str
    version: int
    description: str
    text: str
    evidence: tuple[int, ...]
    state: str
    issues: tuple[SkillIssue, ...]
    created_at: datetime
    updated_at: datetime
    withheld: bool = False


@dataclass(frozen=True)
class SkillVersion:
    version: int
    text: str
    evidence: tuple[int, ...]
    accepted_at: datetime
    edited: bool  # the owner changed the draft before accepting it
    proposal_id: int | None


@dataclass(frozen=True)
class InsightsReport:
    """What one `insights` run found and proposed.

    `proposals` are the pending proposals of the agent after the run (new ones first);
    `created` counts those this run made, `unchanged` the groups already proposed or
    already grown, `rejected` the groups the owner rejected before (not proposed again).
    """

    agent: str
    considered: int
    groups: int
    created: int
    unchanged: int
    rejected: int
    withdrawn: int
    writer: str
    proposals: tuple[Proposal, ...]
    note: str | None = None


@dataclass(frozen=True)
class InsightsWaiting:
    """What waits for the owner: pending proposals and grown skills that need a look."""

    proposals: int
    skills_to_review: int
    stale_skills: int
