"""Reading the audit trail (writing happens in `events.record`)."""

from __future__ import annotations

import json

from sqlmodel import col, select

from app.clock import from_iso
from app.db import AuditRow
from app.errors import InvalidInput
from app.models import AuditEvent
from app.runtime import Runtime, agent_row


def list_(
    rt: Runtime,
    *,
    agent: str | None = None,
    action: str | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[AuditEvent]:
    """Audit events, newest first: time, agent, actor, action, ids and counts."""
    if limit <= 0 or offset < 0:
        raise InvalidInput("limit must be positive and offset not negative.")
    with rt.read() as s:
        q = select(AuditRow)
        if agent is not None:
            agent_row(s, agent)  # an unknown agent is an error, not an empty list
            q = q.where(AuditRow.agent == agent)
        if action is not None:
            q = q.where(AuditRow.action == action)
        # By time, not by id: an event written under an earlier clock (an import, a
        # clock set back) still takes its place in time; id breaks ties.
        q = q.order_by(col(AuditRow.at).desc(), col(AuditRow.id).desc())
        rows = s.exec(q.limit(limit).offset(offset)).all()
        return [
            AuditEvent(
                id=r.id or 0,
                at=from_iso(r.at),
                agent=r.agent,
                actor=r.actor,
                action=r.action,
                object_ids=tuple(json.loads(r.object_ids)),
                counts=json.loads(r.counts),
            )
            for r in rows
        ]
