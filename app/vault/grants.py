"""Grants: an agent's standing permission to read one secret, and handing a value over.

A grant names one agent and one secret. `once` holds for one read, `session` for
reads that give the same session id, `hour` for an hour from the owner's answer,
`always` until the owner revokes it. An hour is what an agent without a session (the
2026-07-28 protocol is stateless) can be given short of always: nothing else bounds
"the time it works on this". A value
is only ever handed to the agent the grant names (`deliver`), inside the write
transaction that counts the read, so two readers cannot both use a `once` grant.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from app.clock import from_iso, from_iso_or_none
from app.db import AccessRequestRow, AgentRow, GrantRow, SecretRow
from app.errors import NotFound
from app.events import record
from app.runtime import Runtime, agent_row
from app.vault.records import Grant, SecretResult
from app.vault.service import VaultService

HOUR = timedelta(hours=1)


# Which grant a read uses when several hold: the broadest first, a once grant last (it
# is kept for when nothing else holds).
_RANK = {"always": 0, "session": 1, "hour": 2, "once": 3}


def holding(
    s: Session, arow: AgentRow, srow: SecretRow, session: str | None, now: datetime
) -> GrantRow | None:
    """The grant that lets the agent read the secret now, if any (`holds`; a session
    grant only for its own session), the broadest first."""
    rows = s.exec(
        select(GrantRow).where(
            GrantRow.agent_id == arow.id,
            GrantRow.secret_id == srow.id,
            col(GrantRow.revoked_at).is_(None),
        )
    ).all()
    live = [
        g
        for g in rows
        if holds(g, now)
        and (g.scope != "session" or (session is not None and g.session == session))
    ]
    return min(live, key=lambda g: (_RANK.get(g.scope, len(_RANK)), g.id or 0), default=None)


def deliver(
    rt: Runtime,
    vault: VaultService,
    agent: str,
    name: str,
    grant_id: int,
    request_id: int | None,
) -> SecretResult:
    key = vault.key()  # may unlock (or fail) before the write lock is taken
    vault.ensure_redacts()  # the value is about to be known: make sure it is redacted
    now = rt.now_iso()
    with rt.write() as s:
        grant = s.get(GrantRow, grant_id)
        arow = agent_row(s, agent)
        if grant is None or grant.agent_id != arow.id or not holds(grant, from_iso(now)):
            # Consumed by a concurrent read, revoked, lapsed, or not this agent's.
            result = SecretResult(
                "denied",
                agent,
                name,
                request_id,
                None,
                None,
                "the grant no longer holds (used, revoked, lapsed or another agent's); ask again",
                None,
            )
            return result
        srow = s.get(SecretRow, grant.secret_id)
        if srow is None:
            raise NotFound(f"Secret {name!r} was removed from the vault.")
        value = vault.open_row(srow, key)
        grant.used_count += 1
        grant.last_used_at = now
        s.add(grant)
        decided_by, reason = "owner", None
        if request_id is not None:
            req = s.get(AccessRequestRow, request_id)
            if req is not None:
                req.delivered_at = now
                s.add(req)
                decided_by, reason = req.decided_by or "owner", req.decision_reason
        record(
            s,
            now,
            "secret.read",
            agent=agent,
            actor="agent",
            ids=[grant.id, srow.name],
            counts={"used": grant.used_count},
        )
        return SecretResult(
            "allowed",
            agent,
            srow.name,
            request_id,
            grant.id,
            decided_by,
            reason,
            grant.scope,
            value,
        )


def expiry(grant: GrantRow) -> datetime | None:
    """When an hour grant lapses; None for grants that do not lapse with time."""
    return from_iso(grant.created_at) + HOUR if grant.scope == "hour" else None


def holds(grant: GrantRow, now: datetime) -> bool:
    """Whether a grant still permits a read at `now`."""
    if grant.revoked_at is not None or (grant.scope == "once" and grant.used_count >= 1):
        return False
    lapses = expiry(grant)
    return lapses is None or now < lapses


def list_(rt: Runtime, *, agent: str | None = None, active_only: bool = False) -> list[Grant]:
    now = rt.clock.now()
    with rt.read() as s:
        q = select(GrantRow)
        if agent is not None:
            q = q.where(GrantRow.agent_id == agent_row(s, agent).id)
        grants = [to_grant(r, now) for r in s.exec(q.order_by(col(GrantRow.id).desc()))]
    return [g for g in grants if g.active] if active_only else grants


def revoke(rt: Runtime, grant_id: int) -> Grant:
    """End a grant now; the agent must ask again."""
    with rt.write() as s:
        row = s.get(GrantRow, grant_id)
        if row is None:
            raise NotFound(f"No grant {grant_id}. List them with `tapemind grants list`.")
        if row.revoked_at is None:
            row.revoked_at = rt.now_iso()
            s.add(row)
            record(
                s,
                row.revoked_at,
                "grant.revoke",
                agent=row.agent,
                actor="owner",
                ids=[row.id, row.secret],
            )
        return to_grant(row, rt.clock.now())


def to_grant(r: GrantRow, now: datetime) -> Grant:
    return Grant(
        id=r.id or 0,
        agent=r.agent,
        secret=r.secret,
        scope=r.scope,
        session=r.session,
        request_id=r.request_id,
        created_at=from_iso(r.created_at),
        revoked_at=from_iso_or_none(r.revoked_at),
        used_count=r.used_count,
        last_used_at=from_iso_or_none(r.last_used_at),
        active=holds(r, now),
        expires_at=expiry(r),
    )
