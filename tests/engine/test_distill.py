"""The distiller against a local OpenAI-protocol server: new turns in, confronted memories out."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app import Engine, InvalidInput
from app.clock import ManualClock
from app.host.background import distill_all
from tests.llm_server import chat_server, user_prompt

TURN = [
    ("message", "user", "以后代码缩进都用 tab，我们的 .editorconfig 就是这么写的。"),
    ("tool_call", "assistant", '{"tool": "bash", "input": {"command": "cat .editorconfig"}}'),
    ("tool_result", "tool", "[*]\nindent_style = tab"),
    ("message", "assistant", "好的，以后都用 tab 缩进。"),
    ("message", "user", "thanks!"),
    ("message", "assistant", "不客气。"),
]


def ids_in(prompt: str) -> list[int]:
    return [int(x) for x in re.findall(r"^\[(\d+)\]", prompt, re.MULTILINE)]


def model(body: dict[str, Any]) -> str:
    """A fake model: one preference from the first entry, one invented source, chit-chat out."""
    seen = ids_in(user_prompt(body))
    memories = [
        {"category": "preference", "text": "用户要求代码缩进用 tab（见 .editorconfig）。",
         "sources": [seen[0]], "importance": 0.7},
        {"category": "lesson", "text": "A lesson citing an entry that was never shown.",
         "sources": [99999]},
        {"category": "gossip", "text": "Not a category.", "sources": [seen[0]]},
    ]  # fmt: skip
    return "Here you go:\n" + json.dumps({"memories": memories}, ensure_ascii=False)


def append_turn(engine: Engine, turn: str) -> list[int]:
    return list(
        engine.append(
            "cc",
            [{"thread": "t1", "turn": turn, "kind": k, "role": r, "text": t} for k, r, t in TURN],
        ).ids
    )


def test_distill_reads_new_turns_and_confronts(engine: Engine) -> None:
    engine.add_agent("cc")
    ids = append_turn(engine, "u1")
    with chat_server(model) as (url, seen):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        report = engine.distill("cc")
        # the tool call and result are left out of what the model sees
        prompt = user_prompt(seen[0]["body"])
        assert ids_in(prompt) == [ids[0], ids[3], ids[4], ids[5]]
        assert "indent_style" not in prompt
        assert report.error is None and report.entries_read == 6 and report.batches == 1
        assert report.pending == 0
        assert (report.candidates, report.skipped) == (1, 2)
        [result] = report.results
        assert result.decision == "add" and result.memory is not None
        detail = engine.memory(result.memory.id)
        assert [e.id for e in detail.sources] == [ids[0]]
        assert detail.versions[0].changed_by == "distiller"
        # nothing new on the tape: the watermark holds, the model is not asked again
        again = engine.distill("cc")
        assert again.entries_read == 0 and len(seen) == 1
        # a new turn with the same preference: confronted, an exact duplicate this time
        append_turn(engine, "u2")
        third = engine.distill("cc")
        assert [r.decision for r in third.results] == ["duplicate"]
    assert engine.count_memories("cc") == 1
    assert [d.actor for d in engine.decisions("cc")] == ["distiller", "distiller"]


def test_a_failing_model_leaves_the_watermark(engine: Engine) -> None:
    engine.add_agent("cc")
    append_turn(engine, "u1")
    with chat_server(lambda body: 503) as (url, _):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        failed = engine.distill("cc")
    assert failed.error is not None and "503" in failed.error
    assert failed.watermark == 0 and failed.results == ()
    with chat_server(model) as (url, _):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        retried = engine.distill("cc")
    assert retried.error is None and len(retried.results) == 1


def test_batches_end_on_turn_boundaries(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.lifecycle import distill

    monkeypatch.setattr(distill, "BATCH_ENTRIES", 8)
    engine.add_agent("cc")
    first = append_turn(engine, "u1")
    second = append_turn(engine, "u2")
    with chat_server(model) as (url, seen):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        report = engine.distill("cc")
    assert report.batches == 2 and report.entries_read == 12
    assert ids_in(user_prompt(seen[0]["body"])) == [first[0], first[3], first[4], first[5]]
    assert ids_in(user_prompt(seen[1]["body"])) == [second[0], second[3], second[4], second[5]]


def test_distill_needs_an_llm_and_the_host_job_skips_agents_without(engine: Engine) -> None:
    engine.add_agent("cc")
    with pytest.raises(InvalidInput, match="--llm"):
        engine.distill("cc")
    engine.add_agent("dc")
    append_turn(engine, "u1")
    with chat_server(model) as (url, seen):
        engine.configure_agent("dc", llm=f"tiny@{url}")
        engine.append("dc", [{"thread": "t", "turn": "a", "kind": "message", "role": "user",
                              "text": "我对花生过敏，推荐菜谱时注意。"},
                             {"thread": "t", "turn": "a", "kind": "message",
                              "role": "assistant", "text": "记住了。"}])  # fmt: skip
        reports = distill_all(engine)
    assert list(reports) == ["dc"] and len(seen) == 1
    assert reports["dc"].results[0].memory.agent == "dc"  # type: ignore[union-attr]


# -- turns in progress are left for a later run ------------------------------------------


def entry(thread: str, turn: str | None, kind: str, role: str, body: str) -> dict[str, Any]:
    return {"thread": thread, "turn": turn, "kind": kind, "role": role, "text": body}


def shown_ids(seen: list[dict[str, Any]]) -> list[int]:
    return [i for request in seen for i in ids_in(user_prompt(request["body"]))]


def test_a_turn_waits_until_the_assistant_has_answered(engine: Engine) -> None:
    engine.add_agent("cc")
    with chat_server(model) as (url, seen):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        asked = engine.append("cc", [
            entry("t1", "u1", "message", "user", "以后代码缩进都用 tab。"),
            entry("t1", "u1", "tool_call", "assistant", '{"tool": "bash"}'),
        ]).ids  # fmt: skip
        waiting = engine.distill("cc")
        assert (waiting.entries_read, waiting.pending, waiting.watermark) == (0, 2, 0)
        assert seen == [] and waiting.error is None
        # the assistant speaks while its tool call has no result yet: still in progress
        engine.append("cc", [entry("t1", "u1", "message", "assistant", "我先看一下配置。")])
        assert engine.distill("cc").entries_read == 0 and seen == []
        done = engine.append("cc", [
            entry("t1", "u1", "tool_result", "tool", "indent_style = tab"),
            entry("t1", "u1", "message", "assistant", "好的，以后都用 tab。"),
        ]).ids  # fmt: skip
        report = engine.distill("cc")
    assert report.entries_read == 5 and report.pending == 0 and len(report.results) == 1
    assert shown_ids(seen) == [asked[0], done[1] - 2, done[1]]


def test_a_later_turn_in_the_thread_completes_the_earlier_one(engine: Engine) -> None:
    engine.add_agent("cc")
    with chat_server(model) as (url, seen):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        [first, _] = engine.append("cc", [
            entry("t1", "u1", "message", "user", "Always deploy with uv, never pip."),
            entry("t1", "u2", "message", "user", "Also, the staging DB is Postgres 16."),
        ]).ids  # fmt: skip
        report = engine.distill("cc")
    # u1 was never answered, but the user moved on; u2 is the thread's open turn
    assert shown_ids(seen) == [first]
    assert (report.entries_read, report.pending, report.watermark) == (1, 1, 1)


def test_an_open_turn_holds_back_later_threads_until_quiet(
    engine: Engine, clock: ManualClock
) -> None:
    from app.lifecycle.distill import QUIET_S

    engine.add_agent("cc")
    with chat_server(model) as (url, seen):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        ids = engine.append("cc", [
            entry("a", "a1", "message", "user", "I am allergic to peanuts."),
            entry("a", "a1", "message", "assistant", "Noted: no peanuts."),
            entry("b", "b1", "event", "system", "session started"),  # never shown: passed
            entry("b", "b1", "message", "user", "我们的周报每周五下午五点前交。"),
            entry("c", None, "message", "user", "Tabs, not spaces."),
            entry("c", None, "message", "assistant", "Understood."),
        ]).ids  # fmt: skip
        first = engine.distill("cc")
        assert shown_ids(seen) == list(ids[:2])
        assert (first.entries_read, first.watermark, first.pending) == (3, 3, 3)
        clock.advance(seconds=QUIET_S - 1)
        assert engine.distill("cc").entries_read == 0
        clock.advance(seconds=2)  # b1 was left without an answer: treated as finished
        later = engine.distill("cc")
    assert later.entries_read == 3 and later.pending == 0
    assert shown_ids(seen)[2:] == [ids[3], ids[4], ids[5]]


def test_entries_without_turns_wait_for_a_reply(engine: Engine) -> None:
    engine.add_agent("cc")
    with chat_server(model) as (url, seen):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        [asked] = engine.append(
            "cc", [entry("t", None, "message", "user", "用 pnpm，不用 npm。")]
        ).ids
        assert engine.distill("cc").pending == 1 and seen == []
        engine.append("cc", [entry("t", None, "message", "assistant", "好的，用 pnpm。")])
        report = engine.distill("cc")
    assert report.entries_read == 2 and shown_ids(seen) == [asked, asked + 1]
