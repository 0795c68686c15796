"""The lifecycle commands as a user types them: conflicts, maintain, archive, restore,
health, distill, decisions, agent config, bench decisions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from app import Engine
from app.cli.main import cli
from app.clock import ManualClock, SystemClock, to_iso
from tests.llm_server import chat_server


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def ok_json(*args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture
def aged(home: Path) -> Iterator[tuple[Engine, ManualClock]]:
    """A home whose first memories were written 100 days before the real now (the CLI's)."""
    clock = ManualClock(SystemClock().now() - timedelta(days=100))
    engine = Engine.open(home, create=True, clock=clock)
    engine.add_agent("cc")
    try:
        yield engine, clock
    finally:
        engine.close()


def with_conflict(engine: Engine) -> tuple[int, int, int]:
    e1, e2 = engine.append("cc", [
        {"thread": "t1", "turn": "u1", "kind": "message", "role": "user", "text": "我喜欢猫"},
        {"thread": "t2", "turn": "u2", "kind": "message", "role": "user", "text": "我不喜欢猫了"},
    ]).ids  # fmt: skip
    old = engine.remember("cc", "用户喜欢猫。", "preference", sources=[e1]).memory
    new = engine.remember("cc", "用户不喜欢猫。", "preference", sources=[e2])
    assert old is not None and new.memory is not None and new.conflict_id is not None
    return new.conflict_id, old.id, new.memory.id


def test_conflicts_list_and_resolve(aged: tuple[Engine, ManualClock]) -> None:
    engine, _ = aged
    cid, old_id, _ = with_conflict(engine)
    out = run("conflicts", "list", "--agent", "cc").output
    assert f"Conflict {cid}" in out and "用户喜欢猫。" in out and "用户不喜欢猫。" in out
    assert "我不喜欢猫了" in out and "reason:" in out and "100.0 d" in out
    [item] = ok_json("conflicts", "list", "--agent", "cc")
    assert item["existing"]["memory"]["id"] == old_id
    assert item["challenger"]["sources"][0]["text"] == "我不喜欢猫了"
    assert item["age_days"] == pytest.approx(100.0, abs=0.01)
    bad = run("conflicts", "resolve", str(cid), "--keep", "merge")
    assert bad.exit_code == 2 and "merged text" in bad.output
    done = ok_json("conflicts", "resolve", str(cid), "--keep", "new")
    assert (done["status"], done["resolution"]) == ("resolved", "new")
    assert done["existing"]["memory"]["status"] == "superseded"
    assert ok_json("conflicts", "list", "--agent", "cc") == []
    assert len(ok_json("conflicts", "list", "--status", "resolved")) == 1


def test_settled_conflicts_list_the_most_recently_settled_first(
    aged: tuple[Engine, ManualClock],
) -> None:
    engine, clock = aged
    with_conflict(engine)
    engine.remember("cc", "The team deploys on Fridays.", "project_fact")
    assert engine.remember("cc", "The team never deploys on Fridays.", "project_fact").conflict_id
    opened = [c.id for c in engine.conflicts("cc")]
    assert len(opened) >= 2
    for cid in opened:  # settled in the order they were raised, a day apart
        engine.resolve_conflict(cid, "both")
        clock.advance(days=1)
    # The queue of open ones is oldest first; what was settled, the latest decision first.
    assert [c["id"] for c in ok_json("conflicts", "list", "--status", "all")] == opened
    settled = ok_json("conflicts", "list", "--status", "resolved")
    assert [c["id"] for c in settled] == opened[::-1]


def test_conflicts_merge_from_the_cli(aged: tuple[Engine, ManualClock]) -> None:
    engine, _ = aged
    cid, old_id, new_id = with_conflict(engine)
    done = ok_json("conflicts", "resolve", str(cid), "--keep", "merge", "--text",
                   "用户以前喜欢猫，现在不喜欢了。")  # fmt: skip
    merged = engine.memory(done["merged_id"])
    assert merged.memory.text == "用户以前喜欢猫，现在不喜欢了。"
    assert {p.memory_id for p in merged.parents} == {old_id, new_id}


def test_maintain_archive_restore(aged: tuple[Engine, ManualClock]) -> None:
    engine, clock = aged
    weak = engine.remember("cc", "Checked: Kyoto is 24°C in early October.", "task_outcome",
                           importance=0.1).memory  # fmt: skip
    fresh_text = "lin wants CHANGELOG entries in English."
    clock.set(SystemClock().now())
    fresh = engine.remember("cc", fresh_text, "preference").memory
    assert weak and fresh
    dry = run("maintain", "--agent", "cc", "--dry-run")
    assert dry.exit_code == 0 and "would archive 1" in dry.output and "Kyoto" in dry.output
    assert engine.memory(weak.id).memory.status == "active"
    later = to_iso(SystemClock().now() + timedelta(days=200))
    ahead = ok_json("maintain", "--agent", "cc", "--dry-run", "--as-of", later)
    assert {c["memory_id"] for c in ahead["candidates"]} == {weak.id, fresh.id}
    real = ok_json("maintain", "--agent", "cc")
    assert real["archived_ids"] == [weak.id]
    listed = run("archive", "list", "--agent", "cc").output
    assert "Kyoto" in listed and fresh_text not in listed and "STRENGTH" in listed
    [archived] = ok_json("archive", "list", "--agent", "cc")
    assert 0 < archived["strength"] < 0.1  # faded below the archive threshold
    # like `conflicts list`, every agent's without --agent
    assert [m["id"] for m in ok_json("archive", "list")] == [weak.id]
    assert "AGENT" in run("archive", "list").output
    assert ok_json("search", "--agent", "cc", "Kyoto", "--mode", "fulltext")["hits"] == []
    found = ok_json("search", "--agent", "cc", "Kyoto", "--mode", "fulltext", "--status",
                    "archived")  # fmt: skip
    assert [h["id"] for h in found["hits"]] == [weak.id]
    back = run("restore", str(weak.id))
    assert back.exit_code == 0 and f"restored memory {weak.id}" in back.output
    assert ok_json("archive", "list", "--agent", "cc") == []
    again = run("restore", str(weak.id))
    assert again.exit_code == 2 and "not archived" in again.output


def test_keep_a_fading_memory(aged: tuple[Engine, ManualClock]) -> None:
    engine, _ = aged
    weak = engine.remember("cc", "用户上周把周报改成了双周报。", "preference",
                           importance=0.1).memory  # fmt: skip
    assert weak
    dry = run("maintain", "--agent", "cc", "--dry-run")
    assert "双周报" in dry.output and "tapemind keep ID" in dry.output
    fading = run("archive", "fading", "--agent", "cc")
    assert "双周报" in fading.output and "DUE" in fading.output and "keep ID" in fading.output
    [listed] = ok_json("archive", "fading", "--agent", "cc", "--days", "0")
    assert [c["memory_id"] for c in ok_json("archive", "fading", "--days", "0")] == [weak.id]
    assert listed["memory_id"] == weak.id and listed["strength"] < 0.1
    kept = run("keep", str(weak.id))
    assert kept.exit_code == 0 and f"kept memory {weak.id} [preference]" in kept.output
    assert ok_json("maintain", "--agent", "cc", "--dry-run")["candidates"] == []
    assert ok_json("archive", "fading", "--agent", "cc") == []
    assert [m["id"] for m in ok_json("keep", str(weak.id))] == [weak.id]  # again: still fine
    unknown = run("keep", "424242")
    assert unknown.exit_code != 0 and "No memory 424242" in unknown.output


def test_health_now_saved_and_history(aged: tuple[Engine, ManualClock]) -> None:
    engine, _ = aged
    with_conflict(engine)
    engine.add_agent("dc")
    engine.remember("dc", "王芳对花生过敏。", "project_fact")
    snap = ok_json("health", "--agent", "cc")
    for key in (
        "never_recalled",
        "open_conflicts",
        "unembedded",
        "archived",
        "archive_candidates",
        "tape_entries",
        "injected_never_used",
        "recall_overflows",
    ):
        assert key in snap  # fmt: skip
    assert (snap["agent"], snap["total"], snap["open_conflicts"]) == ("cc", 2, 1)
    assert snap["oldest_conflict_age_days"] == pytest.approx(100.0, abs=0.01)
    every = ok_json("health")
    assert [s["agent"] for s in every] == [None, "cc", "dc"] and every[0]["total"] == 3
    text = run("health").output
    assert "(all agents)" in text and "Open conflicts" in text
    assert ok_json("health", "--history") == []
    run("health", "--save")
    run("health", "--agent", "cc", "--save")
    assert len(ok_json("health", "--history")) == 1
    series = ok_json("health", "--history", "--agent", "cc", "--since", "2000-01-01")
    assert [s["total"] for s in series] == [2, 2]
    assert "TOTAL" in run("health", "--history", "--agent", "cc").output


def test_decisions_and_agent_config(aged: tuple[Engine, ManualClock]) -> None:
    engine, _ = aged
    with_conflict(engine)
    rows = ok_json("decisions", "--agent", "cc")
    assert [r["action"] for r in rows] == ["conflict", "add"]
    # the reason, and beside it the same as a code with parameters
    assert rows[0]["reason"].startswith("one side negates the other, without saying")
    assert (rows[0]["reason_code"], rows[0]["reason_params"]["what"]) == ("differs", ["negation"])
    [conflict] = ok_json("conflicts", "list")
    assert (conflict["reason"], conflict["reason_code"]) == (rows[0]["reason"], "differs")
    assert "conflict" in run("decisions", "--agent", "cc", "--action", "conflict").output
    configured = ok_json("agent", "config", "cc", "--archive-below", "0.2", "--half-life", "10")
    assert configured["settings"]["archive_below"] == 0.2
    bad = run("agent", "config", "cc", "--arbiter", "llm")
    assert bad.exit_code == 2 and "model@base_url" in bad.output


def test_distill_from_the_cli(aged: tuple[Engine, ManualClock]) -> None:
    engine, _ = aged
    [entry] = engine.append(
        "cc",
        [
            {
                "thread": "t",
                "turn": "u",
                "kind": "message",
                "role": "user",
                "text": "Always use uv, never pip.",
            }
        ],
    ).ids
    answer = json.dumps({"memories": [{"category": "preference", "sources": [entry],
                                       "text": "The user wants uv instead of pip."}]})  # fmt: skip
    with chat_server(lambda body: answer) as (url, _):
        run("agent", "config", "cc", "--llm", f"tiny@{url}")
        out = run("distill", "--agent", "cc")
    assert out.exit_code == 0, out.output
    assert "read 1 entry in 1 batch; 1 candidate," in out.output and "add: memory" in out.output
    with chat_server(lambda body: 500) as (url, _):
        run("agent", "config", "cc", "--llm", f"tiny@{url}")
        engine.append("cc", [{"thread": "t", "turn": "v", "kind": "message", "role": "user",
                              "text": "Deploy on Fridays is forbidden."}])  # fmt: skip
        failed = run("distill", "--agent", "cc")
    assert failed.exit_code != 0 and "500" in failed.output


def test_bench_decisions(tmp_path: Path) -> None:
    cases = [
        {"existing": [{"id": "m1", "text": "Likes dark mode.", "category": "preference"}],
         "candidate": {"text": "Does not like dark mode.", "category": "preference"},
         "expected": "conflict", "target": "m1", "lang": "en"},
        {"existing": [{"id": "m1", "text": "用户习惯用 Vim 写代码。", "category": "preference"}],
         "candidate": {"text": "用户现在改用 VS Code 写代码了。", "category": "preference"},
         "expected": "supersede", "target": "m1", "lang": "zh"},
        {"existing": [{"id": "m1", "text": "用户喜欢猫。", "category": "preference"}],
         "candidate": {"text": "给预发集群配置了磁盘告警。", "category": "task_outcome"},
         "expected": "update", "target": "m1", "lang": "zh"},
    ]  # fmt: skip
    data = tmp_path / "cases.jsonl"
    data.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in cases), "utf-8")
    report = ok_json("bench", "decisions", "--data", str(data), "--no-embedder")
    assert (report["total"], report["correct"]) == (3, 2)
    assert report["by_language"]["en"]["accuracy"] == 1.0
    assert report["confusion"]["update"]["add"] == 1 and report["destructive"] == 0
    text = run("bench", "decisions", "--data", str(data), "--no-embedder").output
    assert "confusion" in text and "zh: 1/2" in text
    assert "duplicates a person would settle as conflicts: 0 of 0" in text
    learned = ok_json(
        "bench", "decisions", "--data", str(data), "--no-embedder", "--arbiter", "learned"
    )
    assert learned["arbiter"] == "learned" and learned["total"] == 3
    assert learned["destructive"] == 0 and "duplicates_as_conflicts" in learned
    assert run("bench", "decisions", "--data", str(data), "--arbiter", "rules").exit_code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"expected": "maybe"}\n', "utf-8")
    assert run("bench", "decisions", "--data", str(bad)).exit_code == 2
