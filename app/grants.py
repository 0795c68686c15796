"""Grants: an agent's standing permission to read one secret, and handing a value over.

A grant names one agent and one secret. `once` holds for one read, `session` for
reads that give the same session id, `always` until the owner revokes it. A value
is only ever handed to the agent the grant names (`deliver`), inside the write
transaction that counts the read, so two readers cannot both use a `once` grant.
"""

from __future__ import annotations

from sqlalchemy import case
from sqlmodel import Session, col, select

from .clock import from_iso, from_iso_or_none
from .db.schema import AccessRequestRow, AgentRow, GrantRow, SecretRow
from .errors import NotFound
from .events import record
from .runtime import Runtime, agent_row
from .vault.records import Grant, SecretResult
from .vault.service import VaultService


def holding(s: Session, arow: AgentRow, srow: SecretRow, session: str | None) -> GrantRow | None:
    holds = (col(GrantRow.scope) == "always") | (
        (col(GrantRow.scope) == "once") & (col(GrantRow.used_count) == 0)
    )
    if session is not None:
        holds = holds | ((col(GrantRow.scope) == "session") & (col(GrantRow.session) == session))
    rank = case(
        (col(GrantRow.scope) == "always", 0), (col(GrantRow.scope) == "session", 1), else_=2
    )
    return s.exec(
        select(GrantRow)
        .where(
            GrantRow.agent_id == arow.id,
            GrantRow.secret_id == srow.id,
            col(GrantRow.revoked_at).is_(None),
            holds,
        )
        .order_by(rank, col(GrantRow.id))
    ).first()


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
        if grant is None or grant.agent_id != arow.id or not holds(grant):
            # Consumed by a concurrent read, revoked, or not this agent's.
            result = SecretResult(
                "denied",
                agent,
                name,
                request_id,
                None,
                None,
                "the grant no longer holds (used, revoked or another agent's); ask again",
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


def holds(grant: GrantRow) -> bool:
    """Whether a grant still permits a read."""
    return grant.revoked_at is None and not (grant.scope == "once" and grant.used_count >= 1)


def list_(rt: Runtime, *, agent: str | None = None, active_only: bool = False) -> list[Grant]:
    with rt.read() as s:
        q = select(GrantRow)
        if agent is not None:
            q = q.where(GrantRow.agent_id == agent_row(s, agent).id)
        grants = [to_grant(r) for r in s.exec(q.order_by(col(GrantRow.id).desc()))]
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
        return to_grant(row)


def to_grant(r: GrantRow) -> Grant:
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
        active=holds(r),
    )
