"""Grown skills: the accepted ones, their versions, and whether they still hold.

A skill's state is worked out when it is read, from what became of the memories its
current version rests on, so it is right in every process and after any write path:
- stale: one of them was forgotten or superseded (the skill says something the memory
  no longer does);
- review: an open conflict contradicts one of them (a newer memory disagrees and the owner
  has not settled it), or one was edited since the skill took it;
- current otherwise.

A stale skill whose memory was forgotten is also withheld from agents. Forgetting is the
owner saying those words must go; the accepted version is the owner's record and stays as
accepted, but what agents are served must not carry them. Serving the text with the
citing steps cut out would not be enough: the title, the name, the description and "when
to use it" are drawn from all the memories' words (by the extractive writer, an LLM or the
owner's edit), and a step may paraphrase a memory it does not cite. So the whole skill is
held back until the owner accepts a version without that memory (the next insights run
proposes one). A superseded memory is different: it is still the agent's to read, as the
history of its successor, so its skill is served with a note naming both.
"""

from __future__ import annotations

from typing import Any

from app.clock import from_iso
from app.db import Tx, dbapi
from app.errors import NotFound
from app.runtime import Runtime, agent_ref

from .records import GrownSkill, InsightsWaiting, SkillIssue, SkillVersion

_SKILL_COLUMNS = "s.id, s.name, s.version, s.created_at, s.updated_at, v.text, v.description"


def issues(db: Any, agent_id: int, skill_id: int, version: int) -> tuple[SkillIssue, ...]:
    """What became of the memories a skill version rests on (see the module doc)."""
    found: list[SkillIssue] = []
    evidence: list[int] = []
    for memory_id, took, status, now_version, successor in db.execute(
        "SELECT e.memory_id, e.memory_version, m.status, m.version, m.superseded_by "
        "FROM skill_evidence e JOIN memories m ON m.id = e.memory_id "
        "WHERE e.skill_id = ? AND e.version = ? ORDER BY e.memory_id",
        (skill_id, version),
    ):
        evidence.append(int(memory_id))
        if status == "forgotten":
            found.append(SkillIssue(memory_id, "forgotten"))
        elif status == "superseded":
            found.append(SkillIssue(memory_id, "superseded", other_id=successor))
        elif now_version > took:
            found.append(SkillIssue(memory_id, "edited"))
    if evidence:
        marks = ", ".join("?" * len(evidence))
        for conflict_id, existing, challenger in db.execute(
            "SELECT id, existing_id, challenger_id FROM conflicts WHERE agent_id = ? AND "
            f"status = 'open' AND (existing_id IN ({marks}) OR challenger_id IN ({marks})) "
            "ORDER BY id",
            (agent_id, *evidence, *evidence),
        ):
            mine, other = (existing, challenger) if existing in evidence else (challenger, existing)
            found.append(SkillIssue(mine, "contradicted", other_id=other, conflict_id=conflict_id))
    return tuple(found)


def state_of(found: tuple[SkillIssue, ...]) -> str:
    if any(i.what in ("forgotten", "superseded") for i in found):
        return "stale"
    return "review" if found else "current"


def evidence_of(db: Any, skill_id: int, version: int) -> tuple[int, ...]:
    return tuple(
        int(r[0])
        for r in db.execute(
            "SELECT memory_id FROM skill_evidence WHERE skill_id = ? AND version = ? "
            "ORDER BY memory_id",
            (skill_id, version),
        )
    )


def _skill(db: Any, agent: str, agent_id: int, r: Any) -> GrownSkill:
    found = issues(db, agent_id, r[0], r[2])
    return GrownSkill(
        id=r[0],
        agent=agent,
        name=r[1],
        version=r[2],
        description=r[6],
        text=r[5],
        evidence=evidence_of(db, r[0], r[2]),
        state=state_of(found),
        issues=found,
        created_at=from_iso(r[3]),
        updated_at=from_iso(r[4]),
        withheld=any(i.what == "forgotten" for i in found),
    )


def read_all(s: Tx, agent: str) -> list[GrownSkill]:
    arow = agent_ref(s, agent)
    db = dbapi(s)
    rows = db.execute(
        f"SELECT {_SKILL_COLUMNS} FROM skills s JOIN skill_versions v "
        "ON v.skill_id = s.id AND v.version = s.version WHERE s.agent_id = ? ORDER BY s.name",
        (arow.id,),
    ).fetchall()
    return [_skill(db, agent, arow.id, r) for r in rows]


def list_(rt: Runtime, agent: str) -> list[GrownSkill]:
    """The agent's grown skills by name, each at its current version with its state."""
    with rt.read_driver() as s:
        return read_all(s, agent)


def _no_skill(agent: str, name: str) -> NotFound:
    return NotFound(
        f"Agent {agent!r} has no grown skill named {name!r}. List them with "
        f"`tapemind skill list --agent {agent}`; grow them with `tapemind insights --agent "
        f"{agent}`.",
        for_agents=f"You have no skill named {name!r}; list your skills with prompts/list.",
    )


def get(rt: Runtime, agent: str, name: str) -> GrownSkill:
    with rt.read_driver() as s:
        arow = agent_ref(s, agent)
        db = dbapi(s)
        r = db.execute(
            f"SELECT {_SKILL_COLUMNS} FROM skills s JOIN skill_versions v "
            "ON v.skill_id = s.id AND v.version = s.version WHERE s.agent_id = ? AND s.name = ?",
            (arow.id, name),
        ).fetchone()
        if r is None:
            raise _no_skill(agent, name)
        return _skill(db, agent, arow.id, r)


def versions(rt: Runtime, agent: str, name: str) -> list[SkillVersion]:
    """Every accepted version of a grown skill, the newest first."""
    with rt.read_driver() as s:
        arow = agent_ref(s, agent)
        db = dbapi(s)
        found = db.execute(
            "SELECT id FROM skills WHERE agent_id = ? AND name = ?", (arow.id, name)
        ).fetchone()
        if found is None:
            raise _no_skill(agent, name)
        rows = db.execute(
            "SELECT version, text, accepted_at, edited, proposal_id FROM skill_versions "
            "WHERE skill_id = ? ORDER BY version DESC",
            (found[0],),
        ).fetchall()
        return [
            SkillVersion(
                version=r[0],
                text=r[1],
                evidence=evidence_of(db, found[0], r[0]),
                accepted_at=from_iso(r[2]),
                edited=bool(r[3]),
                proposal_id=r[4],
            )
            for r in rows
        ]


def waiting(rt: Runtime, agent: str | None = None) -> InsightsWaiting:
    """Pending proposals and grown skills that need the owner (`agent` None: all)."""
    with rt.read_driver() as s:
        db = dbapi(s)
        names = (
            [agent]
            if agent is not None
            else [r[0] for r in db.execute("SELECT name FROM agents ORDER BY name")]
        )
        proposals = review = stale = 0
        for name in names:
            arow = agent_ref(s, name)
            proposals += db.execute(
                "SELECT count(*) FROM insight_proposals WHERE agent_id = ? AND status = 'pending'",
                (arow.id,),
            ).fetchone()[0]
            for skill in read_all(s, name):
                review += skill.state == "review"
                stale += skill.state == "stale"
        return InsightsWaiting(proposals, review, stale)
