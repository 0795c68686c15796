"""`tapemind remember`, `memory …`, `forget`, `used`, as a user sees them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.cli.clihelp import appended_id, fails


@pytest.fixture
def entry(ready) -> int:
    """A tape entry of agent cc to cite as a source."""
    out = ready(
        "tape",
        "append",
        "--agent",
        "cc",
        "--thread",
        "t1",
        "--turn",
        "u1",
        "--role",
        "user",
        "--text",
        "以后代码缩进都用 tab，别再用空格了",
    ).stdout
    return appended_id(out)


def remember(run, text: str, *flags: str, ok: bool = True, category: str = "preference"):
    return run("remember", "--agent", "cc", "--category", category, *flags, text, ok=ok)


def test_remember_with_source(ready, run_json, entry: int) -> None:
    out = remember(ready, "用户要求代码缩进用 tab", "--source", str(entry)).stdout
    assert out.startswith("add: memory 1 [preference] 用户要求代码缩进用 tab")
    assert f"sources: {entry}" in out
    data = run_json(
        "remember",
        "--agent",
        "cc",
        "--category",
        "lesson",
        "--source",
        str(entry),
        "--importance",
        "0.9",
        "Run the linter before every commit",
    )
    assert data["decision"] == "add"
    assert data["memory"]["importance"] == 0.9
    assert data["memory"]["thread"] == "t1"
    assert data["source_ids"] == [entry]


def test_remember_without_source_puts_the_call_on_the_tape(ready, run, run_json) -> None:
    data = run_json(
        "remember",
        "--agent",
        "cc",
        "--category",
        "project_fact",
        "--thread",
        "ops",
        "The deploy script lives in ops/deploy.sh",
    )
    (source,) = data["source_ids"]
    tape = run_json("tape", "show", "--agent", "cc")
    assert [e["id"] for e in tape] == [source]
    assert tape[0]["kind"] == "event" and tape[0]["thread"] == "ops"
    assert "ops/deploy.sh" in tape[0]["text"]
    shown = run_json("memory", "show", str(data["memory"]["id"]))
    assert [s["id"] for s in shown["sources"]] == [source]
    assert shown["memory"]["strength"] == 1.0  # just written: nothing faded yet
    assert "Strength    1.00" in run("memory", "show", str(data["memory"]["id"])).stdout


@pytest.mark.parametrize(
    ("text", "code", "words", "status"),
    [
        # no memory at all: invalid input (2); kept out by the gate: refused (4)
        ("   ", "empty", "empty", 2),
        ("x" * 1001, "too_long", "1001 characters", 2),
        ("thanks!", "chit_chat", "chit-chat", 4),
        ("Sounds good.", "chit_chat", "chit-chat", 4),
        ("谢谢！", "chit_chat", "chit-chat", 4),
        ("好的。", "chit_chat", "chit-chat", 4),
        # Phrases run together are still small talk (they were stored as preferences).
        ("好的，谢谢！", "chit_chat", "chit-chat", 4),
        ("好的好的", "chit_chat", "chit-chat", 4),
        ("ok thanks, sounds good 👍", "chit_chat", "chit-chat", 4),
        ("the api key is sk-abcdefghijklmnopqrstuvwxyz123456", "credential", "vault set", 4),
        ("数据库密码是 hunter2hunter2", "credential", "secret get", 4),
        ("Traceback (most recent call last):\n  File x", "tool_output", "tape", 4),
    ],
)
def test_remember_refusals(
    ready, run_json, entry: int, text: str, code: str, words: str, status: int
) -> None:
    result = remember(ready, text, "--source", str(entry), ok=False)
    fails(result, status, words)
    assert "request_secret" not in result.stderr  # a tool's name: the CLI user has commands
    as_json = remember(ready, text, "--source", str(entry), "--json", ok=False)
    assert as_json.exit_code == status
    assert json.loads(as_json.stderr)["error"] == code
    assert run_json("memory", "list", "--agent", "cc") == []


def test_remember_refuses_unknown_and_foreign_sources_and_parents(ready, run_json) -> None:
    theirs = appended_id(
        ready(
            "tape",
            "append",
            "--agent",
            "dc",
            "--thread",
            "t",
            "--role",
            "user",
            "--text",
            "dc's entry",
        ).stdout
    )
    parent = run_json("remember", "--agent", "dc", "--category", "lesson", "dc learned this")
    parent_id = parent["memory"]["id"]

    fails(remember(ready, "Lin likes tea", "--source", "999", ok=False), 3, "Source entry 999")
    fails(
        remember(ready, "Lin likes tea", "--source", str(theirs), ok=False),
        3,
        f"Source entry {theirs} is not on the tape of agent 'cc'",
    )
    fails(remember(ready, "Lin likes tea", "--parent", "999", ok=False), 3, "Parent memory 999")
    result = remember(ready, "Lin likes tea", "--parent", str(parent_id), "--json", ok=False)
    assert json.loads(result.stderr)["error"] == "unknown_parent"
    assert run_json("memory", "list", "--agent", "cc") == []
    assert run_json("tape", "show", "--agent", "cc") == []  # the refused call left no entry


def test_remember_bad_arguments(ready, entry: int) -> None:
    result = remember(ready, "x y z", "--importance", "1.5", ok=False)
    assert result.exit_code == 2 and "importance" in result.stderr.lower()
    result = remember(ready, "x y z", category="opinion", ok=False)
    assert result.exit_code == 2 and "preference" in result.stderr
    fails(
        ready("remember", "--agent", "ghost", "--category", "lesson", "a fact", ok=False),
        3,
        "No agent named 'ghost'",
    )


def test_duplicates_are_reported_not_stored(ready, run_json, entry: int) -> None:
    first = run_json(
        "remember",
        "--agent",
        "cc",
        "--category",
        "preference",
        "--source",
        str(entry),
        "Lin prefers tabs.",
    )
    out = remember(ready, "  lin PREFERS   tabs ", "--source", str(entry)).stdout
    assert out.startswith(f"duplicate of memory {first['memory']['id']}")
    # said once, not twice
    assert out.count("stored") == 1 and out.count("reinforced") == 1, out
    assert "reason: the same text once normalised" in out
    zh = run_json("remember", "--agent", "cc", "--category", "preference", "用户偏好：用 tab。")
    zh_again = run_json(
        "remember", "--agent", "cc", "--category", "preference", "用户偏好:用 TAB"
    )  # full-width vs half-width colon, case
    assert zh_again["decision"] == "duplicate"
    assert zh_again["target_id"] == zh["memory"]["id"]
    assert len(run_json("memory", "list", "--agent", "cc")) == 2
    # Another agent may hold the same text: dedup is per agent.
    other = run_json("remember", "--agent", "dc", "--category", "preference", "Lin prefers tabs.")
    assert other["decision"] == "add"


def test_memory_show_with_sources_parents_children(ready, run_json, entry: int) -> None:
    parent = run_json(
        "remember",
        "--agent",
        "cc",
        "--category",
        "preference",
        "--source",
        str(entry),
        "用户要求代码缩进用 tab",
    )["memory"]["id"]
    child = run_json(
        "remember",
        "--agent",
        "cc",
        "--category",
        "lesson",
        "--source",
        str(entry),
        "--parent",
        str(parent),
        "Check indentation before review",
    )
    child_id = child["memory"]["id"]
    shown = run_json("memory", "show", str(parent))
    assert [c["memory_id"] for c in shown["children"]] == [child_id]
    assert [s["id"] for s in shown["sources"]] == [entry]
    child_detail = run_json("memory", "show", str(child_id))
    assert [(p["memory_id"], p["relation"]) for p in child_detail["parents"]] == [
        (parent, "referenced")
    ]
    human = ready("memory", "show", str(child_id)).stdout
    assert "Sources:" in human and "Parents:" in human and "以后代码缩进都用 tab" in human
    fails(ready("memory", "show", "999", ok=False), 3, "No memory 999", "memory list")


def test_memory_list_filters_and_pages(ready, run_json, entry: int) -> None:
    for i in range(7):
        category = "lesson" if i % 2 else "preference"
        run_json(
            "remember",
            "--agent",
            "cc",
            "--category",
            category,
            "--source",
            str(entry),
            f"conclusion number {i} 第{i}条",
        )
    all_ids = [m["id"] for m in run_json("memory", "list", "--agent", "cc")]
    assert all_ids == [7, 6, 5, 4, 3, 2, 1]  # newest first
    page1 = run_json("memory", "list", "--agent", "cc", "--limit", "3")
    page2 = run_json("memory", "list", "--agent", "cc", "--limit", "3", "--offset", "3")
    page3 = run_json("memory", "list", "--agent", "cc", "--limit", "3", "--offset", "6")
    assert [m["id"] for m in page1 + page2 + page3] == all_ids
    lessons = run_json("memory", "list", "--agent", "cc", "--category", "lesson")
    assert [m["id"] for m in lessons] == [6, 4, 2]
    ready("forget", "4")
    active = run_json("memory", "list", "--agent", "cc", "--status", "active")
    assert [m["id"] for m in active] == [7, 6, 5, 3, 2, 1]
    forgotten = run_json("memory", "list", "--agent", "cc", "--status", "forgotten")
    assert [m["id"] for m in forgotten] == [4]
    every = run_json("memory", "list", "--agent", "cc", "--status", "any")
    assert [m["id"] for m in every] == [7, 6, 5, 4, 3, 2, 1]  # as search --status any
    mixed = run_json("memory", "list", "--agent", "cc", "--limit", "3", "--offset", "2")
    assert [m["id"] for m in mixed] == [5, 4, 3]  # statuses interleave in id order
    human = ready("memory", "list", "--agent", "cc").stdout
    assert "(forgotten)" in human and "第6条" in human
    assert run_json("memory", "list", "--agent", "dc") == []
    fails(ready("memory", "list", "--agent", "ghost", ok=False), 3, "ghost")


def test_memory_edit_makes_a_new_version(ready, run_json, entry: int) -> None:
    made = run_json(
        "remember",
        "--agent",
        "cc",
        "--category",
        "preference",
        "--source",
        str(entry),
        "用户要求代码缩进用 tab",
    )["memory"]
    out = ready("memory", "edit", str(made["id"]), "用户要求代码缩进用 4 个空格").stdout
    assert "version 2" in out
    shown = run_json("memory", "show", str(made["id"]))
    assert shown["memory"]["text"] == "用户要求代码缩进用 4 个空格"
    assert [(v["version"], v["text"]) for v in shown["versions"]] == [
        (1, "用户要求代码缩进用 tab"),
        (2, "用户要求代码缩进用 4 个空格"),
    ]
    assert "Versions:" in ready("memory", "show", str(made["id"])).stdout
    fails(ready("memory", "edit", str(made["id"]), "  ", ok=False), 2, "forget")
    for credential in ("数据库密码是 hunter2hunter2", "token sk-abcdefghijklmnopqrstuvwxyz123456"):
        fails(ready("memory", "edit", str(made["id"]), credential, ok=False), 4, "vault")
    assert run_json("memory", "show", str(made["id"]))["memory"]["version"] == 2
    fails(ready("memory", "edit", "999", "x", ok=False), 3, "No memory 999")


def test_forget_removes_the_text_everywhere(ready, run_json, home: Path, entry: int) -> None:
    secret = "Lin is allergic to peanuts 花生过敏"
    made = run_json(
        "remember", "--agent", "cc", "--category", "preference", "--source", str(entry), secret
    )["memory"]
    ready("memory", "edit", str(made["id"]), secret + " (severe)")
    unsourced = run_json(
        "remember", "--agent", "cc", "--category", "lesson", "Lin keeps an epipen 随身带肾上腺素笔"
    )["memory"]
    assert "Forgot memory" in ready("forget", str(made["id"])).stdout
    assert "already forgotten" in ready("forget", str(made["id"])).stdout
    forgotten = run_json("forget", str(unsourced["id"]))
    assert forgotten["status"] == "forgotten" and forgotten["text"] == ""

    shown = run_json("memory", "show", str(made["id"]))
    assert shown["memory"]["text"] == ""
    assert all(v["text"] == "" for v in shown["versions"])
    # No trace of the texts in any table of the database, full-text index included.
    with sqlite3.connect(home / "tapemind.db") as db:
        dump = "\n".join(db.iterdump())
    for word in ("peanuts", "花生", "epipen", "肾上腺素"):
        assert word not in dump, word
    # The same text (or an earlier version of it) is refused later.
    for text in (secret, secret + " (severe)", "lin is ALLERGIC to peanuts 花生过敏。"):
        result = remember(ready, text, "--source", str(entry), "--json", ok=False)
        assert json.loads(result.stderr)["error"] == "forgotten", text
    fails(remember(ready, secret, ok=False), 4, "forget")
    fails(ready("memory", "edit", str(made["id"]), "new text", ok=False), 2, "forgotten")


def test_used_reinforces_and_becomes_lineage(ready, run_json, entry: int) -> None:
    used_id = run_json(
        "remember",
        "--agent",
        "cc",
        "--category",
        "preference",
        "--source",
        str(entry),
        "用户要求代码缩进用 tab",
    )["memory"]["id"]
    out = ready("used", "--agent", "cc", "--turn", "u9", str(used_id)).stdout
    assert "Recorded 1 use in turn u9" in out
    assert run_json("used", "--agent", "cc", "--turn", "u9", str(used_id)) == {"recorded": []}
    shown = run_json("memory", "show", str(used_id))["memory"]
    assert shown["use_count"] == 1
    child = run_json(
        "remember",
        "--agent",
        "cc",
        "--category",
        "task_outcome",
        "--turn",
        "u9",
        "Reformatted app/ with tabs",
    )["memory"]["id"]
    parents = run_json("memory", "show", str(child))["parents"]
    assert [(p["memory_id"], p["relation"]) for p in parents] == [(used_id, "derived")]
    fails(ready("used", "--agent", "cc", "--turn", "u9", "999", ok=False), 3, "Memory 999")


def test_forget_asks_a_person_first(ready, run_json, at_a_terminal) -> None:
    made = run_json("remember", "--agent", "cc", "--category", "preference", "用户喜欢绿茶")
    memory_id = str(made["memory"]["id"])
    declined = ready("forget", memory_id, input="n\n", ok=False)
    assert declined.exit_code == 1 and "用户喜欢绿茶" in declined.stderr
    assert run_json("memory", "show", memory_id)["memory"]["text"] == "用户喜欢绿茶"
    assert "Forgot memory" in ready("forget", memory_id, "--yes").stdout
    assert run_json("memory", "show", memory_id)["memory"]["status"] == "forgotten"
