"""Access requests: ask, auto and review modes, grants and their scopes, waiting."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

from app import Engine
from app.clock import ManualClock
from app.engine import runtime_of
from app.errors import InvalidInput, NotFound
from app.models import AgentSettings
from app.vault.records import SecretResult

VALUE = "sk-live-Qm3vX8LrT2wYp9NcB7dF4sHj6"


@pytest.fixture
def vault(engine: Engine) -> Engine:
    engine.add_agent("alice", AgentSettings(permission_mode="ask"))
    engine.add_agent("bob", AgentSettings(permission_mode="ask"))
    engine.add_agent("robot", AgentSettings(permission_mode="auto"))
    engine.set_secret("API_KEY", VALUE, tags=["llm"])
    return engine


def test_ask_mode_pending_then_allowed_once(vault: Engine) -> None:
    first = vault.request_secret("alice", "API_KEY", "call the model for issue 12")
    assert first.status == "pending" and first.value is None
    # Said so an agent can act on it: no command for it to run, what it can do instead.
    assert "ask again later" in (first.reason or "") and "tapemind" not in (first.reason or "")
    pending = vault.access_requests(status="pending")
    assert [(r.id, r.agent, r.secret, r.reason) for r in pending] == [
        (first.request_id, "alice", "API_KEY", "call the model for issue 12")
    ]
    # Asking again while pending does not pile up requests.
    again = vault.request_secret("alice", "API_KEY", "still need it")
    assert again.request_id == first.request_id and again.status == "pending"
    assert first.request_id is not None
    answered = vault.answer_request(first.request_id, True, "once")
    assert answered.status == "allowed" and answered.decided_by == "owner"
    got = vault.request_secret("alice", "API_KEY", "call the model for issue 12")
    assert got.allowed and got.value == VALUE and got.scope == "once"
    assert VALUE not in repr(got)
    # Once means one read.
    after = vault.request_secret("alice", "API_KEY", "once more")
    assert after.status == "pending" and after.value is None
    [grant] = vault.grants()
    assert grant.used_count == 1 and not grant.active


def test_agent_a_never_reads_a_secret_granted_only_to_b(vault: Engine) -> None:
    req = vault.request_secret("bob", "API_KEY", "deploy the staging service")
    assert req.request_id is not None
    vault.answer_request(req.request_id, True, "always")
    assert vault.request_secret("bob", "API_KEY", "deploy again").value == VALUE
    for _ in range(3):
        stolen = vault.request_secret("alice", "API_KEY", "bob said I could")
        assert stolen.status == "pending" and stolen.value is None
    # Alice's own request is hers: approving bob's grant never covered it, and
    # her pending request names her.
    [mine] = vault.access_requests(status="pending")
    assert mine.agent == "alice"
    # Even with bob's grant id in hand there is no way to redeem it as alice.
    bob_grant = vault.grants(agent="bob")[0]
    from app.vault import grants

    result = grants.deliver(runtime_of(vault), vault._vault, "alice", "API_KEY", bob_grant.id, None)
    assert result.status == "denied" and result.value is None


def test_session_scope_holds_only_for_that_session(vault: Engine) -> None:
    req = vault.request_secret("alice", "API_KEY", "run the nightly job", session="s-1")
    assert req.request_id is not None
    vault.answer_request(req.request_id, True, "session")
    for _ in range(2):
        assert vault.request_secret("alice", "API_KEY", "job", session="s-1").value == VALUE
    assert vault.request_secret("alice", "API_KEY", "job", session="s-2").status == "pending"
    assert vault.request_secret("alice", "API_KEY", "job").status == "pending"


def test_session_scope_needs_a_session(vault: Engine) -> None:
    req = vault.request_secret("alice", "API_KEY", "no session given")
    assert req.request_id is not None
    with pytest.raises(InvalidInput, match="session"):
        vault.answer_request(req.request_id, True, "session")


def test_an_hour_grant_serves_an_agent_without_a_session_for_an_hour(
    vault: Engine, clock: ManualClock
) -> None:
    # a sessionless agent (the 2026-07-28 protocol) can be given more than one read
    req = vault.request_secret("alice", "API_KEY", "部署预发环境")
    assert req.request_id is not None
    with pytest.raises(InvalidInput, match="for an hour"):
        vault.answer_request(req.request_id, True, "session")
    vault.answer_request(req.request_id, True, "hour")
    [grant] = vault.grants(active_only=True)
    assert grant.scope == "hour" and grant.expires_at == grant.created_at + timedelta(hours=1)
    for minutes in (0, 30, 59):
        clock.set(grant.created_at + timedelta(minutes=minutes))
        got = vault.request_secret("alice", "API_KEY", "deploy staging")
        assert (got.status, got.scope, got.value) == ("allowed", "hour", VALUE)
    # another agent has nothing from it
    assert vault.request_secret("bob", "API_KEY", "deploy staging").value is None
    # an hour after the answer it has lapsed: the agent asks again, the owner decides again
    clock.set(grant.created_at + timedelta(hours=1))
    lapsed = vault.request_secret("alice", "API_KEY", "deploy staging")
    assert lapsed.status == "pending" and lapsed.value is None
    [after] = vault.grants()
    assert not after.active and after.used_count == 3 and after.revoked_at is None
    assert vault.grants(active_only=True) == []


def test_an_hour_grant_is_used_before_a_once_grant(vault: Engine) -> None:
    # two requests waiting at once (one from a session, one without), answered differently
    one = vault.request_secret("alice", "API_KEY", "one read", session="stdio:7")
    hour = vault.request_secret("alice", "API_KEY", "for the next hour")
    assert one.request_id is not None and hour.request_id is not None
    vault.answer_request(one.request_id, True, "once")
    vault.answer_request(hour.request_id, True, "hour")
    for _ in range(2):
        assert vault.request_secret("alice", "API_KEY", "read").scope == "hour"
    # the once grant is kept for when the hour has passed
    by_scope = {g.scope: g for g in vault.grants(active_only=True)}
    assert by_scope["once"].used_count == 0 and by_scope["hour"].used_count == 2


def test_always_until_revoked(vault: Engine) -> None:
    req = vault.request_secret("alice", "API_KEY", "daily report generation")
    assert req.request_id is not None
    vault.answer_request(req.request_id, True, "always")
    assert vault.request_secret("alice", "API_KEY", "again").value == VALUE
    [grant] = vault.grants(active_only=True)
    revoked = vault.revoke_grant(grant.id)
    assert revoked.revoked_at is not None and not revoked.active
    assert vault.request_secret("alice", "API_KEY", "again").status == "pending"
    with pytest.raises(NotFound):
        vault.revoke_grant(999)


def test_deny_and_double_answer(vault: Engine) -> None:
    req = vault.request_secret("alice", "API_KEY", "curious")
    assert req.request_id is not None
    denied = vault.answer_request(req.request_id, False, reason="not for this task")
    assert denied.status == "denied" and denied.decision_reason == "not for this task"
    with pytest.raises(InvalidInput, match="already denied"):
        vault.answer_request(req.request_id, True, "always")
    assert vault.grants() == []


def test_a_denial_holds_for_the_same_question(vault: Engine, clock: ManualClock) -> None:
    """Asked again with the same reason, the agent gets the owner's no back at once and
    the owner is not asked again; a new reason, or a day later, is a new request."""
    req = vault.request_secret("alice", "API_KEY", "部署需要 deploy key")
    assert req.request_id is not None
    vault.answer_request(req.request_id, False, reason="not for this task")
    again = vault.request_secret("alice", "API_KEY", "部署需要 deploy key", wait_seconds=5)
    assert again.status == "denied" and again.request_id == req.request_id
    assert again.value is None and again.reason == "not for this task"
    assert vault.access_requests(status="pending") == []
    # From a new session (the agent restarted, a second window): the same question.
    other_session = vault.request_secret("alice", "API_KEY", "部署需要 deploy key", session="s2")
    assert other_session.status == "denied" and other_session.request_id == req.request_id
    assert vault.access_requests(status="pending") == []
    # Bob asking the same is his own question.
    assert vault.request_secret("bob", "API_KEY", "部署需要 deploy key").status == "pending"
    # A new reason is a new question for the owner.
    other = vault.request_secret("alice", "API_KEY", "rotate the key, issue 7")
    assert other.status == "pending" and other.request_id != req.request_id
    assert other.request_id is not None
    vault.answer_request(other.request_id, False)  # no reason given: the agent is told so
    told = vault.request_secret("alice", "API_KEY", "rotate the key, issue 7")
    assert told.status == "denied" and "new reason" in (told.reason or "")
    # A day later the owner is asked again.
    clock.advance(hours=25)
    assert vault.request_secret("alice", "API_KEY", "部署需要 deploy key").status == "pending"


def test_auto_mode_is_allowed_and_audited(vault: Engine) -> None:
    got = vault.request_secret("robot", "API_KEY", "scheduled sync")
    assert got.allowed and got.value == VALUE and got.decided_by == "auto"
    req = vault.access_request(got.request_id or 0)
    assert req.status == "allowed" and req.decided_by == "auto" and req.delivered_at
    actions = [(e.action, e.actor) for e in vault.audit(agent="robot")]
    assert ("secret.read", "agent") in actions and ("access_request.decide", "auto") in actions
    # A secret can override the agent's mode.
    vault.set_secret_mode("API_KEY", "ask")
    assert vault.request_secret("robot", "API_KEY", "scheduled sync").status == "pending"


def test_ask_mode_timeout_is_a_deny(vault: Engine) -> None:
    result = vault.request_secret("alice", "API_KEY", "waiting for nobody", wait_seconds=0.3)
    assert result.status == "expired" and result.value is None
    # The agent reads what happened and what it can do next.
    assert result.reason and "no answer within 0.3 seconds" in result.reason
    assert "Ask again" in result.reason and "wait_seconds" in result.reason
    req = vault.access_request(result.request_id or 0)
    assert req.status == "expired" and "no answer" in (req.decision_reason or "")
    with pytest.raises(InvalidInput, match="already expired"):
        vault.answer_request(req.id, True, "once")


def test_unanswered_request_expires_by_the_clock(vault: Engine, clock: ManualClock) -> None:
    req = vault.request_secret("alice", "API_KEY", "later", ttl_seconds=600)
    clock.advance(seconds=601)
    assert vault.access_requests(status="pending") == []
    assert vault.access_request(req.request_id or 0).status == "expired"


def test_unknown_agent_or_secret(vault: Engine) -> None:
    with pytest.raises(NotFound, match="agent"):
        vault.request_secret("mallory", "API_KEY", "x")
    with pytest.raises(NotFound, match="secret"):
        vault.request_secret("alice", "NOPE", "x")


def test_removing_a_secret_denies_its_pending_requests_and_drops_grants(vault: Engine) -> None:
    a = vault.request_secret("alice", "API_KEY", "one")
    vault.answer_request(
        vault.request_secret("bob", "API_KEY", "two").request_id or 0, True, "always"
    )
    vault.remove_secret("API_KEY")
    assert vault.access_request(a.request_id or 0).status == "denied"
    assert vault.grants() == []


def test_pending_request_survives_reopen_and_is_answered_from_another_engine(
    home: Path, clock: ManualClock
) -> None:
    with Engine.open(home, create=True, clock=clock) as eng:
        eng.add_agent("alice")
        eng.set_secret("API_KEY", VALUE)
        first = eng.request_secret("alice", "API_KEY", "before the restart")
    # A restart: the request is still there, pending.
    with Engine.open(home, clock=clock) as eng:
        [req] = eng.access_requests(status="pending")
        assert req.id == first.request_id
    # An agent waits in one engine; the owner answers from a second one.
    waiter = Engine.open(home, clock=clock)
    owner = Engine.open(home, clock=clock)
    out: list[SecretResult] = []
    try:
        thread = threading.Thread(
            target=lambda: out.append(
                waiter.request_secret("alice", "API_KEY", "waiting", wait_seconds=30)
            )
        )
        thread.start()
        deadline = time.monotonic() + 10
        while not owner.access_requests(status="pending") and time.monotonic() < deadline:
            time.sleep(0.05)
        [req] = owner.access_requests(status="pending")
        owner.answer_request(req.id, True, "once")
        thread.join(timeout=30)
        assert out and out[0].allowed and out[0].value == VALUE
    finally:
        waiter.close()
        owner.close()


def test_events_name_ids_only(vault: Engine) -> None:
    seen = []
    vault.events.subscribe(seen.append)
    req = vault.request_secret("alice", "API_KEY", "x" * 20)
    vault.answer_request(req.request_id or 0, True, "once")
    vault.request_secret("alice", "API_KEY", "x" * 20)
    names = [e.name for e in seen]
    assert names[:2] == ["access_request_did_create", "access_request_did_decide"]
    assert "secret_did_read" in names
    assert all(VALUE not in repr(e) for e in seen)


def test_always_answers_the_agents_other_pending_requests(vault: Engine) -> None:
    a = vault.request_secret("alice", "API_KEY", "one", session="s1")
    b = vault.request_secret("alice", "API_KEY", "two", session="s2")
    c = vault.request_secret("bob", "API_KEY", "three")
    vault.answer_request(a.request_id or 0, True, "always")
    covered = vault.access_request(b.request_id or 0)
    assert covered.status == "allowed" and covered.scope == "always"
    assert vault.access_request(c.request_id or 0).status == "pending"  # bob's is bob's
    assert [r.agent for r in vault.access_requests(status="pending")] == ["bob"]
