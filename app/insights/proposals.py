"""Proposals: reading them, and the owner's accept (possibly with edited text) or reject.

Accepting a new proposal creates a grown skill at version 1; accepting a revision adds
the next version of its skill. Either way the text is checked as a drafted one is: valid
front matter and name, numbered steps, and every cited id a memory of this agent that was
not forgotten. The version rests on the memories its text cites (the proposal's evidence
when the owner's text cites none), each recorded at its current version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.clock import from_iso, from_iso_or_none
from app.db import Tx, dbapi
from app.errors import InvalidInput, NotFound
from app.events import record
from app.runtime import Runtime, agent_ref

from . import drafts, skills
from .records import GrownSkill, Proposal
from .skillmd import check_name, parse

_COLUMNS = (
    "p.id, a.name, p.status, p.skill_id, p.base_version, p.reason, p.name, p.draft, p.writer, "
    "p.note, p.created_at, p.decided_at, p.agent_id"
)


def _evidence(db: Any, proposal_id: int) -> tuple[int, ...]:
    return tuple(
        int(r[0])
        for r in db.execute(
            "SELECT memory_id FROM insight_evidence WHERE proposal_id = ? ORDER BY memory_id",
            (proposal_id,),
        )
    )


def to_proposal(db: Any, r: Sequence[Any]) -> Proposal:
    draft = drafts.from_json(r[7])
    text = drafts.text_of(draft) if draft.steps else ""
    diff = None
    if r[3] is not None and r[4] is not None and text:
        base = db.execute(
            "SELECT s.name, v.text FROM skills s JOIN skill_versions v ON v.skill_id = s.id "
            "WHERE s.id = ? AND v.version = ?",
            (r[3], r[4]),
        ).fetchone()
        if base is not None:
            diff = drafts.diff(base[1], text, base[0], r[4])
    return Proposal(
        id=r[0],
        agent=r[1],
        status=r[2],
        kind="revision" if r[3] is not None else "new",
        reason=r[5],
        name=r[6],
        description=draft.description,
        text=text,
        steps=draft.steps,
        evidence=_evidence(db, r[0]),
        writer=r[8],
        note=r[9],
        created_at=from_iso(r[10]),
        decided_at=from_iso_or_none(r[11]),
        skill_id=r[3],
        base_version=r[4],
        diff=diff,
    )


def read(s: Tx, agent: str | None, status: str | None, limit: int, offset: int) -> list[Proposal]:
    db = dbapi(s)
    where: list[str] = []
    args: list[Any] = []
    if agent is not None:
        where.append("p.agent_id = ?")
        args.append(agent_ref(s, agent).id)
    if status is not None:
        where.append("p.status = ?")
        args.append(status)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    rows = db.execute(
        f"SELECT {_COLUMNS} FROM insight_proposals p JOIN agents a ON a.id = p.agent_id "
        f"{clause} ORDER BY p.id LIMIT ? OFFSET ?",
        (*args, limit, offset),
    ).fetchall()
    return [to_proposal(db, r) for r in rows]


STATUSES = ("pending", "accepted", "rejected", "withdrawn")


def list_(
    rt: Runtime, agent: str | None, status: str | None, *, limit: int = 100, offset: int = 0
) -> list[Proposal]:
    """Proposals, oldest first (`agent` None: every agent; `status` None: any)."""
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(STATUSES)}, not {status!r}.")
    with rt.read_driver() as s:
        return read(s, agent, status, limit, offset)


def _row(db: Any, proposal_id: int) -> Sequence[Any]:
    r = db.execute(
        f"SELECT {_COLUMNS} FROM insight_proposals p JOIN agents a ON a.id = p.agent_id "
        "WHERE p.id = ?",
        (proposal_id,),
    ).fetchone()
    if r is None:
        raise NotFound(
            f"No insight proposal {proposal_id}. List them with `tapemind insights list`."
        )
    return tuple(r)


def get(rt: Runtime, proposal_id: int) -> Proposal:
    with rt.read_driver() as s:
        db = dbapi(s)
        return to_proposal(db, _row(db, proposal_id))


def _pending(db: Any, proposal_id: int) -> Sequence[Any]:
    r = _row(db, proposal_id)
    if r[2] != "pending":
        raise InvalidInput(
            f"Proposal {proposal_id} is {r[2]}, not pending: only a pending proposal can be "
            "accepted or rejected. Run `tapemind insights --agent NAME` for new proposals."
        )
    return r


def _checked_evidence(db: Any, agent_id: int, cited: Sequence[int]) -> dict[int, int]:
    """memory id -> its version, for every cited id; InvalidInput for a bad one."""
    out: dict[int, int] = {}
    for memory_id in cited:
        found = db.execute(
            "SELECT status, version FROM memories WHERE id = ? AND agent_id = ?",
            (memory_id, agent_id),
        ).fetchone()
        if found is None:
            raise InvalidInput(
                f"The skill cites [m{memory_id}], which is not a memory of this agent. Cite "
                "the proposal's memories (or others of this agent), or remove the citation."
            )
        if found[0] == "forgotten":
            raise InvalidInput(
                f"The skill cites [m{memory_id}], a forgotten memory: remove that step."
            )
        out[memory_id] = int(found[1])
    return out


def _store_version(
    db: Any, now: str, skill_id: int, version: int, text: str, description: str,
    proposal_id: int, edited: bool, evidence: dict[int, int],
) -> None:  # fmt: skip
    db.execute(
        "INSERT INTO skill_versions (skill_id, version, text, description, proposal_id, "
        "edited, accepted_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (skill_id, version, text, description, proposal_id, int(edited), now),
    )
    db.executemany(
        "INSERT INTO skill_evidence (skill_id, version, memory_id, memory_version) "
        "VALUES (?, ?, ?, ?)",
        [(skill_id, version, m, v) for m, v in sorted(evidence.items())],
    )


def _place(db: Any, agent_id: int, skill_id: int | None, base: int | None, name: str) -> int:
    """The version the accepted text becomes, after checking the name and the base."""
    taken = db.execute(
        "SELECT id FROM skills WHERE agent_id = ? AND name = ?", (agent_id, name)
    ).fetchone()
    if taken is not None and taken[0] != skill_id:
        raise InvalidInput(
            f"This agent already has a grown skill named {name!r}: change the name in the "
            "text's front matter, or accept the revision of that skill instead."
        )
    if skill_id is None:
        return 1
    current = db.execute("SELECT version FROM skills WHERE id = ?", (skill_id,)).fetchone()
    if current is None or current[0] != base:
        raise InvalidInput(
            "The skill this proposal revises changed since it was proposed. Run "
            "`tapemind insights --agent NAME` again for a proposal against its current text."
        )
    return int(current[0]) + 1


def accept(rt: Runtime, proposal_id: int, text: str | None = None) -> GrownSkill:
    """Accept a pending proposal as drafted, or with the owner's edited `text`."""
    now = rt.now_iso()
    with rt.write_driver() as s:
        db = dbapi(s)
        r = _pending(db, proposal_id)
        agent, skill_id, base, agent_id = r[1], r[3], r[4], r[12]
        drafted = to_proposal(db, r)
        final = drafted.text if text is None else text
        if not final:
            raise InvalidInput(
                f"Proposal {proposal_id} has no text left (a memory it quoted was forgotten)."
            )
        parsed = parse(final)
        evidence = _checked_evidence(db, agent_id, parsed.cited or drafted.evidence)
        version = _place(db, agent_id, skill_id, base, check_name(parsed.name))
        if skill_id is None:
            skill_id = db.execute(
                "INSERT INTO skills (agent_id, name, version, created_at, updated_at) "
                "VALUES (?, ?, 1, ?, ?) RETURNING id",
                (agent_id, parsed.name, now, now),
            ).fetchone()[0]
        else:
            db.execute(
                "UPDATE skills SET version = ?, name = ?, updated_at = ? WHERE id = ?",
                (version, parsed.name, now, skill_id),
            )
        edited = text is not None and text != drafted.text
        _store_version(
            db, now, skill_id, version, final, parsed.description, proposal_id, edited, evidence
        )
        db.execute(
            "UPDATE insight_proposals SET status = 'accepted', decided_at = ? WHERE id = ?",
            (now, proposal_id),
        )
        # Other pending proposals for this skill were drafted against the old text.
        db.execute(
            "UPDATE insight_proposals SET status = 'withdrawn', decided_at = ? "
            "WHERE skill_id = ? AND status = 'pending'",
            (now, skill_id),
        )
        record(
            s, now, "insight.accept", agent=agent, actor="owner", ids=[proposal_id, skill_id],
            counts={"version": version, "steps": len(parsed.steps), "memories": len(evidence),
                    "edited": int(edited)},
        )  # fmt: skip
    return skills.get(rt, agent, parsed.name)


def reject(rt: Runtime, proposal_id: int) -> Proposal:
    """Reject a pending proposal: the same memories are not proposed again."""
    now = rt.now_iso()
    with rt.write_driver() as s:
        db = dbapi(s)
        r = _pending(db, proposal_id)
        db.execute(
            "UPDATE insight_proposals SET status = 'rejected', decided_at = ? WHERE id = ?",
            (now, proposal_id),
        )
        record(s, now, "insight.reject", agent=r[1], actor="owner", ids=[proposal_id])
        return to_proposal(db, _row(db, proposal_id))


def scrub(s: Tx, now: str, memory_ids: Sequence[int] | None = None) -> int:
    """Erase forgotten memories' words from every draft that cites them, and withdraw
    the pending ones (`memory_ids` None: every forgotten memory). Returns drafts changed."""
    db = dbapi(s)
    if memory_ids is None:
        rows = db.execute(
            "SELECT DISTINCT e.proposal_id, e.memory_id FROM insight_evidence e "
            "JOIN memories m ON m.id = e.memory_id WHERE m.status = 'forgotten'"
        ).fetchall()
    else:
        marks = ", ".join("?" * len(memory_ids)) or "NULL"
        rows = db.execute(
            f"SELECT proposal_id, memory_id FROM insight_evidence WHERE memory_id IN ({marks})",
            tuple(memory_ids),
        ).fetchall()
    forgotten: dict[int, set[int]] = {}
    for proposal_id, memory_id in rows:
        forgotten.setdefault(int(proposal_id), set()).add(int(memory_id))
    changed = 0
    by_agent: dict[str, list[int]] = {}
    for proposal_id, gone in sorted(forgotten.items()):
        r = _row(db, proposal_id)
        draft = drafts.from_json(r[7])
        kept = drafts.without_memories(draft, gone)
        if kept == draft and r[2] != "pending":
            continue
        status = "withdrawn" if r[2] == "pending" else r[2]
        db.execute(
            "UPDATE insight_proposals SET draft = ?, status = ?, decided_at = coalesce("
            "decided_at, ?), note = ? WHERE id = ?",
            (drafts.to_json(kept), status, now, "a memory it rested on was forgotten", proposal_id),
        )
        changed += 1
        by_agent.setdefault(r[1], []).append(proposal_id)
    for agent, ids in by_agent.items():
        record(s, now, "insight.withdraw", agent=agent, actor="system", ids=ids)
    return changed
