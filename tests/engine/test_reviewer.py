"""Review mode: rules first, then an LLM behind a real OpenAI-protocol server on 127.0.0.1.

The server is a plain http.server speaking /v1/chat/completions; what it answers is
set per test. LLM failures and garbage escalate to a person; they never allow.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from app import Engine
from app.errors import InvalidInput
from app.models import AgentSettings

VALUE = "xoxb-live-7Hq2Lm9Pz4Rt8Vw3Nc6Yb"


class FakeLLM:
    """A real HTTP server on 127.0.0.1 that answers chat completions with `reply`."""

    def __init__(self) -> None:
        self.reply: str = '{"decision": "ask", "reason": "unset"}'
        self.status = 200
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        llm = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                llm.requests.append(json.loads(self.rfile.read(length)))
                llm.headers.append(dict(self.headers))
                body = json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": llm.reply}}]}
                ).encode()
                self.send_response(llm.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    server = FakeLLM()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def vault(engine: Engine) -> Engine:
    engine.add_agent("deepchat", AgentSettings(permission_mode="review"))
    engine.add_agent("stranger", AgentSettings(permission_mode="review"))
    engine.set_secret("SLACK_TOKEN", VALUE, tags=["slack"])
    engine.set_secret("PROD_DB", "prod-db-password-Zx81", tags=["prod"])
    return engine


def test_rules_alone_allow_once(vault: Engine) -> None:
    got = vault.request_secret("deepchat", "SLACK_TOKEN", "post the release note to #eng")
    assert got.allowed and got.value == VALUE and got.decided_by == "reviewer"
    assert "rules" in (got.reason or "")
    assert vault.grants()[0].scope == "once"


def test_rules_block_a_missing_reason_and_escalate_outside_their_scope(vault: Engine) -> None:
    vault.configure_reviewer(agents=["deepchat"], secrets=["SLACK_*"], min_reason_chars=12)
    blocked = vault.request_secret("deepchat", "SLACK_TOKEN", "need it")
    assert blocked.status == "denied" and "reason of at least 12" in (blocked.reason or "")
    other_agent = vault.request_secret("stranger", "SLACK_TOKEN", "post the weekly digest")
    assert other_agent.status == "pending" and "may not approve for agent" in (
        other_agent.reason or ""
    )
    other_secret = vault.request_secret("deepchat", "PROD_DB", "run the monthly report")
    assert other_secret.status == "pending" and "PROD_DB" in (other_secret.reason or "")
    # The escalations wait for a person, with the reviewer's note kept.
    pending = vault.access_requests(status="pending")
    assert {r.agent for r in pending} == {"stranger", "deepchat"}
    assert all("reviewer (rules) asks a person" in (r.decision_reason or "") for r in pending)


def test_each_verdict_is_stored_as_a_code_with_its_parameters(vault: Engine) -> None:
    """A client says the reason in the owner's language from the code; the English the
    audit and agents read is made from the same code and parameters."""
    vault.configure_reviewer(agents=["deepchat"], secrets=["SLACK_*"], min_reason_chars=12)
    vault.request_secret("deepchat", "SLACK_TOKEN", "need it")
    vault.request_secret("stranger", "SLACK_TOKEN", "post the weekly digest")
    vault.request_secret("deepchat", "PROD_DB", "run the monthly report")
    allowed = vault.request_secret("deepchat", "SLACK_TOKEN", "post the release note to #eng")
    assert allowed.allowed
    by_secret = {
        (r.agent, r.secret, r.status): (r.reason_code, dict(r.reason_params), r.decision_reason)
        for r in vault.access_requests()
    }
    assert by_secret == {
        ("deepchat", "SLACK_TOKEN", "denied"): (
            "reason_too_short", {"min_chars": 12, "by": "rules"},
            "rules: a reason of at least 12 characters is required; ask again saying what "
            "the secret is for",
        ),
        ("stranger", "SLACK_TOKEN", "pending"): (
            "agent_not_reviewed", {"agent": "stranger", "by": "rules"},
            "reviewer (rules) asks a person: the reviewer may not approve for agent 'stranger'",
        ),
        ("deepchat", "PROD_DB", "pending"): (
            "secret_not_reviewed", {"secret": "PROD_DB", "by": "rules"},
            "reviewer (rules) asks a person: the reviewer may not approve secret 'PROD_DB'",
        ),
        ("deepchat", "SLACK_TOKEN", "allowed"): (
            "within_rules", {"by": "rules"}, "rules: within the reviewer's rules",
        ),
    }  # fmt: skip
    expired = vault.request_secret("stranger", "PROD_DB", "the quarterly audit", wait_seconds=0.2)
    request = vault.access_request(expired.request_id or 0)
    assert (request.status, request.reason_code, dict(request.reason_params)) == (
        "expired", "no_answer_within", {"seconds": 0.2},
    )  # fmt: skip
    assert request.decision_reason == "no answer within 0.2 seconds"


def test_rate_limit_escalates(vault: Engine) -> None:
    vault.configure_reviewer(max_allowed=2)
    for _ in range(2):
        assert vault.request_secret("deepchat", "SLACK_TOKEN", "post the nightly status").allowed
    third = vault.request_secret("deepchat", "SLACK_TOKEN", "post the nightly status")
    assert third.status == "pending" and "rate limit" in (third.reason or "")


def test_llm_allows_and_its_reason_is_kept(vault: Engine, llm: FakeLLM) -> None:
    vault.configure_reviewer(llm_url=llm.url, llm_model="qwen2.5:3b")
    llm.reply = '{"decision": "allow", "reason": "posting a release note needs the Slack token"}'
    got = vault.request_secret("deepchat", "SLACK_TOKEN", "post the release note to #eng")
    assert got.allowed and got.value == VALUE
    req = vault.access_request(got.request_id or 0)
    assert req.decided_by == "reviewer"
    assert req.decision_reason == "llm: posting a release note needs the Slack token"
    # What the model saw: names, tags and the reason, never the value.
    sent = json.dumps(llm.requests[-1], ensure_ascii=False)
    assert llm.requests[-1]["model"] == "qwen2.5:3b"
    assert "SLACK_TOKEN" in sent and "post the release note" in sent and VALUE not in sent


def test_llm_blocks(vault: Engine, llm: FakeLLM) -> None:
    vault.configure_reviewer(llm_url=llm.url, llm_model="m")
    llm.reply = '```json\n{"decision": "block", "reason": "不需要生产数据库"}\n```'
    got = vault.request_secret("deepchat", "SLACK_TOKEN", "想看看令牌长什么样子而已")
    assert got.status == "denied" and got.value is None
    assert vault.access_request(got.request_id or 0).decision_reason == "llm: 不需要生产数据库"


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("I think this is fine!", 200),
        ('{"decision": "yes please"}', 200),
        ('{"decision": "allow", "reason": ', 200),
        ('{"decision": "allow"}', 500),
    ],
)
def test_llm_garbage_or_failure_asks_a_person(
    vault: Engine, llm: FakeLLM, reply: str, status: int
) -> None:
    vault.configure_reviewer(llm_url=llm.url, llm_model="m")
    llm.reply, llm.status = reply, status
    got = vault.request_secret("deepchat", "SLACK_TOKEN", "post the release note to #eng")
    assert got.status == "pending" and got.value is None
    assert vault.grants() == []


def test_llm_unreachable_asks_a_person(vault: Engine, llm: FakeLLM) -> None:
    url = llm.url
    llm.close()  # nothing listens there any more
    vault.configure_reviewer(llm_url=url, llm_model="m", llm_timeout=2)
    got = vault.request_secret("deepchat", "SLACK_TOKEN", "post the release note to #eng")
    assert got.status == "pending" and "reviewer model failed" in (got.reason or "")


def test_llm_api_key_comes_from_the_vault(vault: Engine, llm: FakeLLM) -> None:
    vault.set_secret("REVIEWER_KEY", "rk-local-0123456789")
    vault.configure_reviewer(llm_url=llm.url, llm_model="m", llm_api_key_secret="REVIEWER_KEY")
    llm.reply = '{"decision": "allow", "reason": "ok"}'
    assert vault.request_secret("deepchat", "SLACK_TOKEN", "post the release note").allowed
    assert llm.headers[-1]["Authorization"] == "Bearer rk-local-0123456789"


def test_configure_checks_its_input(vault: Engine) -> None:
    with pytest.raises(InvalidInput, match="Unknown reviewer setting"):
        vault.configure_reviewer(trust_everyone=True)
    with pytest.raises(InvalidInput, match="both"):
        vault.configure_reviewer(llm_url="http://127.0.0.1:1/v1")
    assert vault.reviewer_rules().llm_url is None


def test_an_escalated_request_waits_for_a_person(vault: Engine, llm: FakeLLM) -> None:
    vault.configure_reviewer(llm_url=llm.url, llm_model="m")
    llm.reply = '{"decision": "ask", "reason": "unusual hour"}'
    first = vault.request_secret("deepchat", "SLACK_TOKEN", "post the release note to #eng")
    assert first.status == "pending" and "unusual hour" in (first.reason or "")
    llm.reply = '{"decision": "allow", "reason": "fine"}'
    again = vault.request_secret("deepchat", "SLACK_TOKEN", "post the release note to #eng")
    # Asking again does not shop for a friendlier verdict: the person decides.
    assert again.request_id == first.request_id and again.status == "pending"
    assert len(llm.requests) == 1
    vault.answer_request(first.request_id or 0, True, "once")
    assert vault.request_secret("deepchat", "SLACK_TOKEN", "post it").value == VALUE
