"""Access requests and grants: every agent read of a secret is asked for and decided.

An agent asks with a reason (`request`). Its permission mode (the agent's, unless
the secret overrides it) decides what happens:

- ask: the request waits for a person (`answer`: once, session, hour, always or deny);
  no answer before it expires is a deny;
- auto: allowed at once for one read, and audited;
- review: a reviewer (rules, then an optional LLM; see `app.vault.reviewer`) allows one
  read, blocks, or leaves the request to a person.

A denial holds: asking again for the same secret with the same reason within a day
gets that denial back at once, rather than a new request to the owner; a new reason
is a new request.

Requests live in the database, so they survive a restart, and a request can be
answered from another process while the asking one polls (`wait_seconds`). A
value is delivered only to the agent a grant names, and only while the grant
holds: once = one read, session = the same session id, hour = an hour from the
answer (what an agent without a session can have short of always), always = until
revoked.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from app.clock import to_iso
from app.db import AccessRequestRow, AgentRow, GrantRow, SecretRow
from app.errors import InvalidInput, NotFound
from app.events import record
from app.limits import MAX_REASON_CHARS, MAX_WAIT_SECONDS
from app.runtime import Runtime, agent_row, settings_of
from app.vault import grants
from app.vault.reasons import ASKS_PERSON, DECIDED, OWNER, Reason, because, seconds
from app.vault.records import SCOPES, AccessRequest, SecretResult
from app.vault.requests import expire, expire_overdue, set_reason, to_request
from app.vault.reviewer import review
from app.vault.service import VaultService

DEFAULT_TTL_S = 24 * 3600.0  # a request nobody waits on stays answerable for a day
DENIAL_HOLDS_S = 24 * 3600.0  # the same question, denied, is not asked again for a day
POLL_S = 0.2


def request(
    rt: Runtime,
    vault: VaultService,
    agent: str,
    name: str,
    reason: str,
    *,
    wait_seconds: float = 0,
    session: str | None = None,
    ttl_seconds: float | None = None,
) -> SecretResult:
    """An agent asks for secret `name`; see the module docstring. Returns the outcome,
    with the value only when allowed. Raises NotFound (agent, secret), InvalidInput."""
    if not 0 <= wait_seconds <= MAX_WAIT_SECONDS or (ttl_seconds is not None and ttl_seconds <= 0):
        raise InvalidInput(
            f"wait_seconds must be 0 to {MAX_WAIT_SECONDS}, and ttl_seconds positive."
        )
    if not isinstance(reason, str) or len(reason.strip()) > MAX_REASON_CHARS:
        raise InvalidInput(f"The reason is a string of at most {MAX_REASON_CHARS} characters.")
    reason = rt.redact(reason.strip())
    session = session.strip() or None if session else None
    expire_overdue(rt)
    now = rt.clock.now()
    ttl = ttl_seconds if ttl_seconds is not None else (wait_seconds or DEFAULT_TTL_S)
    with rt.write() as s:
        arow = agent_row(s, agent)
        srow = vault.row(s, name)
        grant = grants.holding(s, arow, srow, session, now)
        fresh = False
        if grant is not None:
            request_id, grant_id, mode = None, grant.id, None
        else:
            req = _pending_for(s, arow, srow, session)
            denied = None if req is not None else _denied_for(s, arow, srow, reason, now)
            if denied is not None:
                # The owner (or the reviewer) already said no to this very question:
                # the agent learns it, and the owner is not asked again.
                request_id, grant_id, mode = denied, None, None
            else:
                expires = to_iso(now + timedelta(seconds=ttl))
                fresh = req is None
                if req is None:
                    settings = settings_of(arow)
                    req = AccessRequestRow(
                        agent_id=arow.id or 0,
                        agent=arow.name,
                        secret_id=srow.id,
                        secret=srow.name,
                        reason=reason,
                        session=session,
                        mode=srow.mode or settings.permission_mode,
                        status="pending",
                        created_at=to_iso(now),
                        expires_at=expires,
                    )
                    s.add(req)
                    s.flush()
                    record(
                        s,
                        to_iso(now),
                        "access_request.create",
                        agent=agent,
                        actor="agent",
                        ids=[req.id, srow.name],
                    )
                elif expires > req.expires_at:
                    req.expires_at = expires  # asked again, waiting longer
                    s.add(req)
                if req.mode == "auto":
                    _decide(
                        s, rt, req, allow=True, scope="once", by="auto", why=because("auto_mode")
                    )
                request_id = req.id
                grant_id = req.grant_id
                mode = req.mode
    if fresh and grant_id is None and request_id is not None and mode == "review":
        # Reviewed once, when made: an escalated request then waits for a person.
        _review(rt, vault, request_id)
    if grant_id is None and request_id is not None:
        grant_id = _wait(rt, request_id, wait_seconds)
    if grant_id is not None:
        return grants.deliver(rt, vault, agent, name, grant_id, request_id)
    assert request_id is not None
    return _result(rt, request_id)


def _denied_for(
    s: Session, arow: AgentRow, srow: SecretRow, reason: str, now: datetime
) -> int | None:
    """The request that asked this very question (agent, secret, reason) and was denied in
    the last DENIAL_HOLDS_S, if any. In any session: a new session (an agent restarted, a
    second window) asking the same thing is the same question, and the owner said no."""
    since = to_iso(now - timedelta(seconds=DENIAL_HOLDS_S))
    return s.exec(
        select(AccessRequestRow.id)
        .where(
            AccessRequestRow.agent_id == arow.id,
            AccessRequestRow.secret_id == srow.id,
            AccessRequestRow.status == "denied",
            AccessRequestRow.reason == reason,
            col(AccessRequestRow.decided_at) >= since,
        )
        .order_by(col(AccessRequestRow.id).desc())
    ).first()


def _pending_for(
    s: Session, arow: AgentRow, srow: SecretRow, session: str | None
) -> AccessRequestRow | None:
    same_session = (
        col(AccessRequestRow.session).is_(None)
        if session is None
        else col(AccessRequestRow.session) == session
    )
    return s.exec(
        select(AccessRequestRow).where(
            AccessRequestRow.agent_id == arow.id,
            AccessRequestRow.secret_id == srow.id,
            AccessRequestRow.status == "pending",
            same_session,
        )
    ).first()


def _review(rt: Runtime, vault: VaultService, request_id: int) -> None:
    with rt.read() as s:
        req = s.get(AccessRequestRow, request_id)
        assert req is not None
        snapshot = to_request(req)
    # Outside any transaction: an LLM call must not hold the write lock.
    verdict = review(rt, vault, snapshot)
    # The reviewer's own parameters (a model's sentence above all) are redacted as text is.
    params = {k: rt.redact(v) if isinstance(v, str) else v for k, v in verdict.why.params.items()}
    why = Reason(verdict.why.code, {**params, "by": verdict.by})
    said = rt.redact(verdict.reason)[:MAX_REASON_CHARS]
    with rt.write() as s:
        req = s.get(AccessRequestRow, request_id)
        if req is None or req.status != "pending":
            return
        if verdict.decision == "ask":
            set_reason(req, why, ASKS_PERSON.format(by=verdict.by, why=said))
            s.add(req)
            record(
                s,
                rt.now_iso(),
                "access_request.escalate",
                agent=req.agent,
                actor="reviewer",
                ids=[req.id],
            )
            return
        _decide(
            s,
            rt,
            req,
            allow=verdict.decision == "allow",
            scope="once",
            by="reviewer",
            why=why,
            text=DECIDED.format(by=verdict.by, why=said),
        )


def _wait(rt: Runtime, request_id: int, wait_seconds: float) -> int | None:
    """Poll until the request is decided or the wait is over (then it expires)."""
    deadline = time.monotonic() + wait_seconds
    while True:
        with rt.read() as s:
            req = s.get(AccessRequestRow, request_id)
            assert req is not None
            status, grant_id = req.status, req.grant_id
        if status != "pending":
            return grant_id if status == "allowed" else None
        left = deadline - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(POLL_S, left))
    if wait_seconds > 0:
        expire(rt, [request_id], because("no_answer_within", seconds=seconds(wait_seconds)))
    return None


def collect(
    rt: Runtime,
    vault: VaultService,
    agent: str,
    request_id: int,
    *,
    waited: float | None = None,
) -> SecretResult:
    """What became of `agent`'s request `request_id`, without waiting: the value when it
    was allowed, else its status. With `waited` (the seconds the agent waited), a request
    still pending expires now, as `request(wait_seconds=...)` does at the end of its wait.
    Lets a caller wait between looks without holding the home (the CLI's `--wait`)."""
    expire_overdue(rt)
    with rt.read() as s:
        req = s.get(AccessRequestRow, request_id)
        if req is None or req.agent_id != agent_row(s, agent).id:
            raise NotFound(
                f"No access request {request_id} of agent {agent!r}. Ask with "
                "`tapemind secret get`.",
                for_agents=f"No access request {request_id} of yours: call request_secret.",
            )
        status, grant_id, secret = req.status, req.grant_id, req.secret
    if status == "pending" and waited is not None:
        expire(rt, [request_id], because("no_answer_within", seconds=seconds(waited)))
    elif status == "allowed" and grant_id is not None:
        return grants.deliver(rt, vault, agent, secret, grant_id, request_id)
    return _result(rt, request_id)


def _result(rt: Runtime, request_id: int) -> SecretResult:
    with rt.read() as s:
        req = s.get(AccessRequestRow, request_id)
        assert req is not None
        why: str | None = req.decision_reason
        if req.status == "denied" and why is None:
            why = f"the owner denied request {req.id}; ask again only with a new reason"
        if req.status == "expired":
            # What an agent can do next: the owner may just have been away.
            why = (
                f"{why or 'no answer in time'}: the owner did not answer request {req.id}. "
                "Ask again for a new prompt, with a longer wait_seconds, or with 0 to leave "
                "it pending and ask later"
            )
        if req.status == "pending" and why is None:
            why = (
                f"waiting for the owner to answer request {req.id} in Tapemind (the app "
                "prompts them); ask again later with the same name and reason, or wait longer"
            )
        return SecretResult(
            req.status,
            req.agent,
            req.secret,
            req.id,
            req.grant_id,
            req.decided_by,
            why,
            req.scope,
        )


def _decide(
    s: Session,
    rt: Runtime,
    req: AccessRequestRow,
    *,
    allow: bool,
    scope: str | None,
    by: str,
    why: Reason | None,
    text: str | None = None,
) -> None:
    now = rt.now_iso()
    req.status = "allowed" if allow else "denied"
    req.decided_by = by
    req.decided_at = now
    set_reason(req, why, text)
    if allow:
        assert req.secret_id is not None
        grant = GrantRow(
            agent_id=req.agent_id,
            agent=req.agent,
            secret_id=req.secret_id,
            secret=req.secret,
            scope=scope or "once",
            session=req.session if scope == "session" else None,
            request_id=req.id,
            created_at=now,
        )
        s.add(grant)
        s.flush()
        req.grant_id = grant.id
        req.scope = grant.scope
    s.add(req)
    actor = "owner" if by == "owner" else by
    record(
        s,
        now,
        "access_request.decide",
        agent=req.agent,
        actor=actor,
        ids=[req.id, req.secret],
        counts={"allowed": int(allow)},
    )
    if allow:
        record(s, now, "grant.create", agent=req.agent, actor=actor, ids=[req.grant_id, req.secret])


def answer(
    rt: Runtime, request_id: int, *, allow: bool, scope: str = "once", reason: str | None = None
) -> AccessRequest:
    """The owner answers a pending request. Raises NotFound, InvalidInput (already
    decided, expired, or a session scope for a request without a session)."""
    if allow and scope not in SCOPES:
        raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}.")
    expire_overdue(rt)
    with rt.write() as s:
        req = s.get(AccessRequestRow, request_id)
        if req is None:
            raise NotFound(
                f"No access request {request_id}. List them with `tapemind approvals list`."
            )
        if req.status != "pending":
            raise InvalidInput(
                f"Request {request_id} is already {req.status}"
                + (f" (by {req.decided_by})" if req.decided_by else "")
                + "; nothing changed. The agent can ask again."
            )
        if allow and req.secret_id is None:
            raise InvalidInput(f"The secret of request {request_id} was removed.")
        if allow and scope == "session" and req.session is None:
            raise InvalidInput(
                f"Request {request_id} came without a session id, so it cannot be allowed "
                "for a session: allow it once, for an hour or always."
            )
        _decide(
            s,
            rt,
            req,
            allow=allow,
            scope=scope if allow else None,
            by="owner",
            why=because(OWNER, text=rt.redact(reason)) if reason else None,
        )
        if allow and scope == "always":
            _cover_pending(s, rt, req)
        return to_request(req)


def _cover_pending(s: Session, rt: Runtime, req: AccessRequestRow) -> None:
    """An "always" grant answers the agent's other pending requests for that secret."""
    others = list(
        s.exec(
            select(AccessRequestRow).where(
                AccessRequestRow.agent_id == req.agent_id,
                AccessRequestRow.secret_id == req.secret_id,
                AccessRequestRow.status == "pending",
                AccessRequestRow.id != req.id,
            )
        )
    )
    now = rt.now_iso()
    for other in others:
        other.status, other.decided_by, other.decided_at = "allowed", "owner", now
        other.scope, other.grant_id = "always", req.grant_id
        set_reason(other, because("covered_by_grant", grant=req.grant_id or 0))
        s.add(other)
    if others:
        record(
            s, now, "access_request.decide", agent=req.agent, actor="owner",
            ids=[o.id for o in others], counts={"allowed": len(others)},
        )  # fmt: skip
