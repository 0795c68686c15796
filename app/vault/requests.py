"""Access requests as stored: reading and counting them, expiring the overdue ones, and
putting a decision's reason on one (its English text and its code).

`approvals` decides requests; this module is what both it and the readers share.
"""

from __future__ import annotations

from sqlalchemy import func, update
from sqlmodel import col, select

from app.clock import from_iso, from_iso_or_none
from app.db import AccessRequestRow
from app.errors import InvalidInput, NotFound
from app.events import record
from app.runtime import Runtime, agent_row
from app.vault.reasons import Reason, because, params_of
from app.vault.records import REQUEST_STATUSES, AccessRequest


def set_reason(req: AccessRequestRow, why: Reason | None, text: str | None = None) -> None:
    """Put `why` on the request: its code and parameters, and `text` (default: its English).
    None clears the reason."""
    req.reason_code = why.code if why is not None else None
    req.reason_params = why.params_json() if why is not None else None
    req.decision_reason = text if text is not None or why is None else why.text


def expire_overdue(rt: Runtime) -> list[int]:
    """Pending requests past their expiry become expired (a deny). Returns their ids."""
    now = rt.now_iso()
    with rt.read() as s:
        ids = list(
            s.exec(
                select(AccessRequestRow.id).where(
                    AccessRequestRow.status == "pending", col(AccessRequestRow.expires_at) <= now
                )
            )
        )
    if ids:
        expire(rt, [i for i in ids if i is not None], because("expired"))
    return [i for i in ids if i is not None]


def expire(rt: Runtime, ids: list[int], why: Reason) -> None:
    """The requests of `ids` still pending become expired, with reason `why`."""
    now = rt.now_iso()
    with rt.write() as s:
        done = list(
            s.exec(
                select(AccessRequestRow.id).where(
                    col(AccessRequestRow.id).in_(ids), AccessRequestRow.status == "pending"
                )
            )
        )
        if not done:
            return
        s.execute(
            update(AccessRequestRow)
            .where(col(AccessRequestRow.id).in_(done))
            .values(
                status="expired",
                decided_at=now,
                decision_reason=why.text,
                reason_code=why.code,
                reason_params=why.params_json(),
            )
        )
        record(
            s,
            now,
            "access_request.expire",
            agent=None,
            actor="system",
            ids=done,
            counts={"expired": len(done)},
        )


def list_requests(
    rt: Runtime, *, status: str | None = None, agent: str | None = None, limit: int = 100
) -> list[AccessRequest]:
    """Requests, newest first (pending ones oldest first: answer in order)."""
    _check_status(status)
    expire_overdue(rt)
    with rt.read() as s:
        q = select(AccessRequestRow)
        if status is not None:
            q = q.where(AccessRequestRow.status == status)
        if agent is not None:
            q = q.where(AccessRequestRow.agent_id == agent_row(s, agent).id)
        order = col(AccessRequestRow.id) if status == "pending" else col(AccessRequestRow.id).desc()
        return [to_request(r) for r in s.exec(q.order_by(order).limit(limit))]


def count_requests(rt: Runtime, *, status: str | None = None, agent: str | None = None) -> int:
    """How many requests (of `agent`, with `status`), without reading them."""
    _check_status(status)
    expire_overdue(rt)
    with rt.read() as s:
        q = select(func.count()).select_from(AccessRequestRow)
        if status is not None:
            q = q.where(AccessRequestRow.status == status)
        if agent is not None:
            q = q.where(AccessRequestRow.agent_id == agent_row(s, agent).id)
        return int(s.exec(q).one())


def _check_status(status: str | None) -> None:
    if status is not None and status not in REQUEST_STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(REQUEST_STATUSES)}.")


def get_request(rt: Runtime, request_id: int) -> AccessRequest:
    with rt.read() as s:
        req = s.get(AccessRequestRow, request_id)
        if req is None:
            raise NotFound(f"No access request {request_id}.")
        return to_request(req)


def to_request(r: AccessRequestRow) -> AccessRequest:
    return AccessRequest(
        id=r.id or 0,
        agent=r.agent,
        secret=r.secret,
        reason=r.reason,
        session=r.session,
        mode=r.mode,
        status=r.status,
        decided_by=r.decided_by,
        decision_reason=r.decision_reason,
        scope=r.scope,
        grant_id=r.grant_id,
        created_at=from_iso(r.created_at),
        decided_at=from_iso_or_none(r.decided_at),
        expires_at=from_iso(r.expires_at),
        delivered_at=from_iso_or_none(r.delivered_at),
        reason_code=r.reason_code,
        reason_params=params_of(r.reason_params),
    )
