"""The offline arbiter on representative cases; the LLM arbiter against a local OpenAI server."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.confront.arbiter import (
    Candidate,
    Decision,
    LearnedArbiter,
    LLMArbiter,
    Neighbour,
    OfflineArbiter,
)
from tests.llm_server import POLL_S

OFFLINE = OfflineArbiter()


def n(id_: str, text: str, sim: float | None = None, cat: str = "preference") -> Neighbour:
    return Neighbour(id=id_, text=text, category=cat, similarity=sim, fulltext_score=None)


DISTRACTORS = [
    n("d1", "The company VPN uses WireGuard.", 0.12, "project_fact"),
    n("d2", "用户写代码时喜欢听爵士乐。", 0.15),
]

# (candidate, target text, cosine, expected action) — target id is always "t"
OFFLINE_CASES = [
    (
        "User switched to 4 spaces instead of tabs for indentation.",
        "User prefers tabs for indentation.",
        0.7,
        "supersede",
    ),
    ("用户现在改用 VS Code 写代码了。", "用户习惯用 Vim 写代码。", 0.7, "supersede"),
    (
        "The frontend uses React, specifically React 18 with TypeScript and Tailwind.",
        "The frontend uses React.",
        0.75,
        "update",
    ),
    ("用户喜欢简洁的回答，相关时还要附上代码示例。", "用户喜欢简洁的回答。", 0.8, "update"),
    (
        "The billing service is owned by Frank.",
        "Frank owns the billing service.",
        0.93,
        "duplicate",
    ),
    ("老李偏好微信沟通。", "老李喜欢用微信沟通。", 0.9, "duplicate"),
    (
        "User prefers spaces for indentation.",
        "User prefers tabs for indentation.",
        0.75,
        "conflict",
    ),
    ("用户不喜欢深色主题。", "用户喜欢深色主题。", 0.85, "conflict"),
    ("The service listens on port 8000.", "The service listens on port 8080.", 0.9, "conflict"),
    ("版本计划在 3 月 17 日发布。", "版本计划在 3 月 3 日发布。", 0.95, "conflict"),
    ("Bob's birthday is on July 12.", "Bob prefers being contacted on Slack.", 0.35, "add"),
    ("老李的生日是 7 月 12 日。", "老李喜欢用微信沟通。", 0.3, "add"),
]


@pytest.mark.parametrize(("candidate", "target", "cosine", "expected"), OFFLINE_CASES)
def test_offline_decides_each_action_in_both_languages(
    candidate: str, target: str, cosine: float, expected: str
) -> None:
    decision = OFFLINE.decide(
        Candidate(candidate, "preference"), [*DISTRACTORS, n("t", target, cosine)]
    )
    assert decision.action == expected, decision.reason
    assert decision.target_id == (None if expected == "add" else "t")
    assert decision.arbiter == "offline"
    assert decision.reason


def test_offline_change_on_an_unclear_subject_raises_a_conflict_not_an_overwrite() -> None:
    """'switched to' alone is not enough to replace a memory that is only loosely related."""
    decision = OFFLINE.decide(
        Candidate("User changed the default shell to zsh.", "preference"),
        [*DISTRACTORS, n("t", "User's preferred shell is bash.", 0.63)],
    )
    assert (decision.action, decision.target_id) == ("conflict", "t")
    assert "unclear" in decision.reason


def test_offline_picks_the_right_target_among_related_memories() -> None:
    decision = OFFLINE.decide(
        Candidate("管理后台现在监听 9001 端口。", "project_fact"),
        [n("svc", "服务监听 8080 端口。", 0.8), n("admin", "管理后台监听 8081 端口。", 0.85)],
    )
    assert (decision.action, decision.target_id) == ("supersede", "admin")


def test_offline_keeps_a_narrower_fact_beside_the_general_one() -> None:
    decision = OFFLINE.decide(
        Candidate("User prefers tabs for indentation in Go files.", "preference"),
        [n("t", "User prefers tabs for indentation.", 0.77)],
    )
    assert decision.action == "add"


def test_offline_two_outcomes_about_different_things_are_both_kept() -> None:
    decision = OFFLINE.decide(
        Candidate("Fixed the memory leak in the email worker.", "task_outcome"),
        [n("t", "Fixed the memory leak in the image worker.", 0.84, "task_outcome")],
    )
    assert decision.action == "add"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "The user prefers tabs over spaces.",
            "The user prefers spaces over tabs now.",
            "supersede",
        ),
        ("The user prefers tabs over spaces.", "The user prefers spaces over tabs.", "conflict"),
        ("小林更喜欢猫而不是狗。", "小林现在更喜欢狗而不是猫。", "supersede"),
        ("用 Vim 胜过 Emacs。", "用 Emacs 胜过 Vim。", "conflict"),
        ("Staging deploys before production.", "Production deploys before staging.", "conflict"),
        # the same words moved, no relation turned around: the same fact
        ("On Fridays we deploy the web app.", "We deploy the web app on Fridays.", "duplicate"),
    ],
)
def test_offline_sees_the_same_words_turned_around(old: str, new: str, expected: str) -> None:
    """Word for word the same, but what stands on each side of "over"/"而不是" swapped: the
    opposite preference, never a duplicate (found with and without embeddings)."""
    for cosine in (None, 0.93):
        decision = OFFLINE.decide(Candidate(new, "preference"), [n("t", old, cosine)])
        assert (decision.action, decision.target_id) == (expected, "t"), decision.reason


def test_offline_works_without_embeddings() -> None:
    """Unembedded neighbours (similarity None) are still compared by their text."""
    decision = OFFLINE.decide(
        Candidate("用户不喜欢深色主题。", "preference"), [n("t", "用户喜欢深色主题。", None)]
    )
    assert (decision.action, decision.target_id) == ("conflict", "t")


def test_offline_with_no_neighbours_adds() -> None:
    decision = OFFLINE.decide(Candidate("Anything at all.", "lesson"), [])
    assert decision.action == "add"
    assert decision.target_id is None


def test_offline_is_deterministic() -> None:
    neighbours = [*DISTRACTORS, n("t", "User prefers tabs for indentation.", 0.75)]
    cand = Candidate("User prefers spaces for indentation.", "preference")
    assert len({OFFLINE.decide(cand, neighbours) for _ in range(5)}) == 1


# ---------------------------------------------------------------- LLM arbiter


class _Script:
    """What the fake endpoint answers next: ("ok", content) | ("status", code) | ("sleep", s)."""

    def __init__(self) -> None:
        self.reply: tuple[str, object] = ("ok", "")
        self.requests: list[dict[str, object]] = []


@pytest.fixture
def server() -> Iterator[tuple[str, _Script]]:
    script = _Script()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            script.requests.append(
                {
                    "path": self.path,
                    "auth": self.headers.get("Authorization"),
                    "body": json.loads(self.rfile.read(length)),
                }
            )
            kind, value = script.reply
            if kind == "sleep":
                time.sleep(float(value))  # type: ignore[arg-type]
            if kind == "status":
                self.send_response(int(value))  # type: ignore[call-overload]
                self.end_headers()
                return
            body = json.dumps(
                {"choices": [{"index": 0, "message": {"role": "assistant", "content": value}}]}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the client gave up (timeout case)
                self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(POLL_S,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", script
    httpd.shutdown()
    httpd.server_close()
    thread.join()


NEAR = [n("a", "用户喜欢深色主题。", 0.9), n("b", "The company VPN uses WireGuard.", 0.1)]
FAR = [n("b", "The company VPN uses WireGuard.", 0.1)]
CAND = Candidate("用户现在改用浅色主题了。", "preference")


def test_llm_good_answer_is_used(server: tuple[str, _Script]) -> None:
    url, script = server
    script.reply = (
        "ok",
        '```json\n{"action": "supersede", "target": 1, "reason": "主题改了"}\n```',
    )
    arbiter = LLMArbiter(url, "tiny", api_key="k-123")
    decision = arbiter.decide(CAND, NEAR)
    assert (decision.action, decision.target_id, decision.reason) == ("supersede", "a", "主题改了")
    assert decision.arbiter == "llm:tiny"
    sent = script.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["auth"] == "Bearer k-123"
    prompt = json.dumps(sent["body"], ensure_ascii=False)
    assert "1. (preference) 用户喜欢深色主题。" in prompt and CAND.text in prompt


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (("ok", "I think you should keep both!"), "not JSON"),
        (("ok", '{"action": "merge", "target": 1, "reason": "x"}'), "unknown action"),
        (("ok", '{"action": "duplicate", "target": 7, "reason": "x"}'), "unknown target"),
        (("status", 500), "HTTP 500"),
        (("sleep", 1.5), "did not answer in time"),
    ],
)
def test_llm_failures_fall_back_to_conflict_near_a_memory(
    server: tuple[str, _Script], reply: tuple[str, object], why: str
) -> None:
    url, script = server
    script.reply = reply
    decision = LLMArbiter(url, "tiny", timeout=0.5).decide(CAND, NEAR)
    assert (decision.action, decision.target_id) == ("conflict", "a")
    assert "fell back" in decision.reason and why in decision.reason


@pytest.mark.parametrize("reply", [("ok", "garbage"), ("status", 500), ("sleep", 1.5)])
def test_llm_failures_fall_back_to_add_when_nothing_is_near(
    server: tuple[str, _Script], reply: tuple[str, object]
) -> None:
    url, script = server
    script.reply = reply
    decision = LLMArbiter(url, "tiny", timeout=0.5).decide(CAND, FAR)
    assert (decision.action, decision.target_id) == ("add", None)
    assert "fell back" in decision.reason


def test_llm_unreachable_endpoint_falls_back() -> None:
    # port 9 on loopback: nothing listens, the connection is refused at once
    decision = LLMArbiter("http://127.0.0.1:9/v1", "tiny", timeout=0.5).decide(CAND, NEAR)
    assert decision.action == "conflict"
    assert "fell back" in decision.reason


# -- reasons as codes with parameters --------------------------------------------------------


def _emitted() -> list[Decision]:
    """What the rules and the learned arbiter decide on the bilingual decision sets, with and
    without cosines, a few farther neighbours too (walk.py), and with nothing near."""
    from pathlib import Path

    from app.confront.arbiter.evaluate import load_cases

    data = Path(__file__).resolve().parents[2] / "bench" / "data"
    out = []
    for arbiter in (OFFLINE, LearnedArbiter()):
        out.append(arbiter.decide(Candidate("anything", "lesson"), []))
        for name in ("decisions.jsonl", "decisions_crosslang.jsonl", "decisions_mixed.jsonl"):
            cases = load_cases(data / name)
            for i, case in enumerate(cases):
                near = [*case.existing, *cases[(i * 7 + 3) % len(cases)].existing]
                for sim in (0.5, 0.9, None):
                    seen = [Neighbour(e.id, e.text, e.category, similarity=sim) for e in near]
                    out.append(arbiter.decide(case.candidate, seen))
    return out


def test_every_reason_code_is_said_in_english_and_chinese_from_its_parameters() -> None:
    """Each code the arbiters emit has both templates; a decision's English is its code and
    parameters rendered (and survives a round through JSON); Chinese reads as Chinese."""
    import re
    import string

    from app.confront.arbiter.learned.pair import NAMES
    from app.confront.arbiter.reasons import SIGNS, TEMPLATES, params_json, params_of, render

    def fields(template: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    for code, (english, chinese) in TEMPLATES.items():
        assert english and re.search(r"[\u4e00-\u9fff]|^\{text\}$", chinese), code
        assert fields(english) == fields(chinese), code
    assert list(SIGNS) == list(NAMES)
    decisions = _emitted()
    codes = {d.reason_code for d in decisions}
    assert len(codes) >= 15 and codes <= set(TEMPLATES)
    for d in decisions:
        assert d.reason_code is not None
        stored = params_of(params_json(d.reason_params))
        assert render(d.reason_code, stored) == d.reason
        said = render(d.reason_code, stored, "zh")
        assert not re.search(r"[A-Za-z]{3,}", said), (d.reason, said)
        assert re.findall(r"\d+%|\d\.\d\d", said) == re.findall(r"\d+%|\d\.\d\d", d.reason)


def test_an_unknown_reason_code_renders_a_generic_sentence() -> None:
    from app.confront.arbiter.reasons import render

    assert render("from_a_newer_version", {"x": 1}) == (
        "decided for a reason this version cannot show (from_a_newer_version)"
    )
    assert (
        render("from_a_newer_version", {}, "zh")
        == "判定理由无法在此版本中显示（from_a_newer_version）"
    )
    # a known code with parameters it cannot read still says something
    assert "?" in render("changed", {})
    assert render("learned", {"then": "nonsense"}).startswith("decided for a reason")
