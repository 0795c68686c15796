"""`tapemind init`, `agent …` and `tape …` as a user sees them, with and without --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.clihelp import appended_id, fails


def test_init_creates_a_home_once(run, run_json, home: Path) -> None:
    first = run("init")
    assert "Created a Tapemind home" in first.stdout
    assert (home / "tapemind.db").is_file()
    again = run_json("init")
    assert again["created"] is False
    assert again["home"] == str(home)
    assert again["schema"] >= 1
    assert "already a Tapemind home" in run("init").stdout


def test_init_refuses_a_directory_with_other_files(run, home: Path) -> None:
    home.mkdir()
    (home / "notes.txt").write_text("mine")
    fails(run("init", ok=False), 5, "already holds other files")
    assert sorted(p.name for p in home.iterdir()) == ["notes.txt"]


def test_agent_add_list_show(run, run_json) -> None:
    run("init")
    added_cc = run("agent", "add", "cc").stdout
    assert "Added agent cc" in added_cc and "Next: tapemind agent token cc" in added_cc
    added = run_json("agent", "add", "小助手", "--half-life", "7", "--mode", "auto")
    assert added["name"] == "小助手"
    assert added["settings"]["half_life_days"] == 7
    assert added["settings"]["permission_mode"] == "auto"

    listed = run("agent", "list").stdout
    assert "AGENT" in listed and "cc" in listed and "小助手" in listed
    assert [a["name"] for a in run_json("agent", "list")] == ["cc", "小助手"]

    shown = run("agent", "show", "小助手").stdout
    assert "Half-life" in shown and "7 days" in shown and "auto" in shown
    data = run_json("agent", "show", "cc")
    assert data["agent"]["name"] == "cc"
    assert data["stats"] == {
        "tape_entries": 0,
        "threads": 0,
        "memories": {},
        "secret_echoes": 0,
        "writes_blocked": False,
    }


def test_agent_add_bad_or_taken_name(ready) -> None:
    fails(ready("agent", "add", "cc", ok=False), 2, "already exists")
    fails(ready("agent", "add", "has space", ok=False), 2, "Invalid agent name")
    result = ready("agent", "add", "cc", "--json", ok=False)
    assert result.exit_code == 2
    assert json.loads(result.stderr)["error"] == "invalid_input"


def test_agent_show_unknown_says_what_to_do(ready) -> None:
    fails(ready("agent", "show", "nobody", ok=False), 3, "No agent named 'nobody'", "agent add")


def test_agent_rm_asks_and_can_be_declined(ready, run_json) -> None:
    ready("tape", "append", "--agent", "dc", "--thread", "t", "--role", "user", "--text", "hi")
    declined = ready("agent", "rm", "dc", input="n\n", ok=False)
    assert declined.exit_code == 1
    assert "Remove agent dc with 1 tape entry and 0 memories" in declined.stderr
    assert [a["name"] for a in run_json("agent", "list")] == ["cc", "dc"]

    accepted = ready("agent", "rm", "dc", input="y\n")
    assert "Removed agent dc (1 tape entry, 0 memories)" in accepted.stdout
    assert [a["name"] for a in run_json("agent", "list")] == ["cc"]


def test_agent_rm_yes_and_json(ready, run_json) -> None:
    assert run_json("agent", "rm", "dc", "--yes") == {
        "removed": "dc",
        "tape_entries": 0,
        "memories": 0,
    }
    assert "Removed agent cc" in ready("agent", "rm", "cc", "--yes").stdout
    assert run_json("agent", "list") == []
    fails(ready("agent", "rm", "cc", "--yes", ok=False), 3, "No agent named 'cc'")


def _append(run, *extra: str) -> int:
    out = run(
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
        *extra,
    ).stdout
    return appended_id(out)


def test_tape_append_single_prints_the_id(ready, run_json) -> None:
    first = _append(ready, "--text", "以后代码缩进都用 tab")
    second = _append(ready, "--kind", "tool_call", "--text", "ls -la")
    assert second == first + 1
    data = run_json(
        "tape",
        "append",
        "--agent",
        "cc",
        "--thread",
        "t1",
        "--role",
        "assistant",
        "--text",
        "好的",
    )
    assert data == {"ids": [second + 1], "skipped": 0}
    entries = run_json("tape", "show", "--agent", "cc")
    assert [e["text"] for e in entries] == ["以后代码缩进都用 tab", "ls -la", "好的"]
    assert [e["seq"] for e in entries] == [1, 2, 3]
    assert entries[1]["kind"] == "tool_call"


def test_tape_append_single_needs_thread_role_text(ready) -> None:
    fails(
        ready("tape", "append", "--agent", "cc", "--text", "x", ok=False),
        2,
        "--thread, --role and --text",
    )
    fails(
        ready(
            "tape",
            "append",
            "--agent",
            "cc",
            "--thread",
            "t",
            "--role",
            "user",
            "--text",
            "x",
            "--jsonl",
            "-",
            ok=False,
        ),
        2,
        "either --text or --jsonl",
    )


def _lines(*entries: dict) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)


BATCH = (
    {"thread": "t1", "turn": "u1", "kind": "message", "role": "user", "text": "部署脚本在哪？"},
    {"thread": "t1", "turn": "u1", "kind": "tool_call", "role": "assistant", "text": "find ops"},
    {"thread": "t1", "turn": "u1", "kind": "tool_result", "role": "tool", "text": "ops/deploy.sh"},
    {"thread": "t2", "turn": "u2", "kind": "message", "role": "user", "text": "thanks"},
)


def test_tape_append_jsonl_file(ready, run_json, tmp_path: Path) -> None:
    path = tmp_path / "batch.jsonl"
    path.write_text(_lines(*BATCH), encoding="utf-8")
    out = ready("tape", "append", "--agent", "cc", "--jsonl", str(path)).stdout
    assert out == "Appended 4 entries to the tape of cc: 1, 2, 3, 4.\n"
    assert run_json("tape", "append", "--agent", "dc", "--jsonl", str(path))["ids"] == [5, 6, 7, 8]
    assert [e["text"] for e in run_json("tape", "show", "--agent", "cc")] == [
        e["text"] for e in BATCH
    ]


def test_tape_append_jsonl_stdin_with_flag_defaults(ready, run_json) -> None:
    lines = _lines({"kind": "message", "role": "user", "text": "a"}, {"role": "tool", "text": "b"})
    ids = run_json(
        "tape", "append", "--agent", "cc", "--thread", "th", "--jsonl", "-", input=lines
    )["ids"]
    assert ids == [1, 2]
    shown = run_json("tape", "show", "--agent", "cc")
    assert [(e["thread"], e["kind"], e["role"]) for e in shown] == [
        ("th", "message", "user"),
        ("th", "message", "tool"),
    ]


def test_tape_show_filters(ready, run_json, tmp_path: Path) -> None:
    path = tmp_path / "batch.jsonl"
    timed = [{**e, "time": f"2026-10-0{i + 1}T10:00:00Z"} for i, e in enumerate(BATCH)]
    path.write_text(_lines(*timed), encoding="utf-8")
    ready("tape", "append", "--agent", "cc", "--jsonl", str(path))

    def texts(*flags: str) -> list[str]:
        return [e["text"] for e in run_json("tape", "show", "--agent", "cc", *flags)]

    assert texts("--thread", "t2") == ["thanks"]
    assert texts("--turn", "u1") == ["部署脚本在哪？", "find ops", "ops/deploy.sh"]
    assert texts("--kind", "tool_call", "--kind", "tool_result") == ["find ops", "ops/deploy.sh"]
    assert texts("--since", "2026-10-03") == ["ops/deploy.sh", "thanks"]
    assert texts("--until", "2026-10-01T23:00:00Z") == ["部署脚本在哪？"]
    assert texts("--limit", "2") == ["ops/deploy.sh", "thanks"]
    assert texts("--since", "2026-10-01", "--limit", "1") == ["部署脚本在哪？"]
    # --around: exactly --limit entries of the thread, the entry among them, nearest first.
    assert texts("--around", "2", "--limit", "1") == ["find ops"]
    assert texts("--around", "2", "--limit", "2") == ["部署脚本在哪？", "find ops"]
    assert texts("--around", "2", "--limit", "3") == ["部署脚本在哪？", "find ops", "ops/deploy.sh"]
    # At the thread's first entry, the later side makes up for the missing earlier one.
    assert texts("--around", "1", "--limit", "3") == ["部署脚本在哪？", "find ops", "ops/deploy.sh"]
    assert texts("--around", "3", "--limit", "9") == ["部署脚本在哪？", "find ops", "ops/deploy.sh"]
    human = ready("tape", "show", "--agent", "cc", "--thread", "t1").stdout
    assert "部署脚本在哪？" in human and "TEXT" in human and "thanks" not in human
    full = ready("tape", "show", "--agent", "cc", "--full").stdout
    assert "#3 [t1/u1] tool_result tool" in full
    fails(ready("tape", "show", "--agent", "cc", "--since", "yesterday", ok=False), 2, "ISO 8601")
    fails(ready("tape", "show", "--agent", "cc", "--around", "999", ok=False), 3, "No entry 999")
    assert ready("tape", "show", "--agent", "dc").stdout.strip() == "(none)"


def test_tape_erase_keeps_a_hash_tombstone(ready, run_json) -> None:
    entry_id = _append(ready, "--text", "my address is 12 Elm Street")
    shown = run_json("tape", "show", "--agent", "cc")[0]
    assert "Erased entry" in ready("tape", "erase", str(entry_id)).stdout
    after = run_json("tape", "show", "--agent", "cc")[0]
    assert after["erased"] is True
    assert after["text"] == ""
    assert after["content_hash"] == shown["content_hash"]
    assert "(erased)" in ready("tape", "show", "--agent", "cc").stdout
    assert run_json("tape", "erase", str(entry_id))["erased"] is True  # idempotent
    erased = run_json("audit", "--agent", "cc", "--action", "tape.erase")
    assert [e["object_ids"] for e in erased] == [[entry_id]]
    fails(ready("tape", "erase", "999", ok=False), 3, "No tape entry 999", "tape show")


def test_tape_erase_asks_a_person_first(ready, run_json, at_a_terminal) -> None:
    entry_id = _append(ready, "--text", "我的住址是榆树街 12 号")
    declined = ready("tape", "erase", str(entry_id), input="n\n", ok=False)
    assert declined.exit_code == 1 and "Erase the content of entry" in declined.stderr
    assert "我的住址是榆树街" in declined.stderr  # the person sees what they are erasing
    assert run_json("tape", "show", "--agent", "cc")[0]["text"] == "我的住址是榆树街 12 号"
    assert "Erased entry" in ready("tape", "erase", str(entry_id), input="y\n").stdout
    assert run_json("tape", "show", "--agent", "cc")[0]["erased"] is True
    # --yes (or no terminal, as in scripts) does not ask.
    other = _append(ready, "--text", "phone 555-0100")
    assert "Erase the content" not in ready("tape", "erase", str(other), "--yes").stderr


def test_unknown_agent_on_tape_commands(ready) -> None:
    fails(ready("tape", "show", "--agent", "ghost", ok=False), 3, "No agent named 'ghost'")
    fails(
        ready(
            "tape",
            "append",
            "--agent",
            "ghost",
            "--thread",
            "t",
            "--role",
            "user",
            "--text",
            "x",
            ok=False,
        ),
        3,
        "agent add ghost",
    )


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b'{"thread": "t", "role": "user", "text": "ok"}\n{"thread": "t", "role": ', "line 2"),
        (b'{"thread": "t", "role": "user", "text": "ok"}\n\xff\xfe bad bytes\n', "UTF-8"),
        (b'["not", "an", "object"]\n', "JSON object"),
        (b'{"thread": "t", "role": "user", "kind": "chat", "text": "x"}\n', "kind is not one of"),
        (b'{"thread": "t", "role": "robot", "text": "x"}\n', "role is not one of"),
        (
            b'{"thread": "t", "role": "user", "text": "ok"}\n'
            + json.dumps({"thread": "t", "role": "user", "text": "x" * (1024 * 1024 + 1)}).encode()
            + b"\n",
            "over the limit of 1048576",
        ),
        (b"\n\n", "Nothing to append"),
    ],
)
def test_a_bad_jsonl_batch_appends_nothing(ready, run_json, payload: bytes, words: str) -> None:
    ready("tape", "append", "--agent", "cc", "--thread", "t", "--role", "user", "--text", "first")
    result = ready("tape", "append", "--agent", "cc", "--jsonl", "-", input=payload, ok=False)
    fails(result, 2, words)
    assert [e["seq"] for e in run_json("tape", "show", "--agent", "cc")] == [1]
    assert len(run_json("audit", "--action", "tape.append")) == 1


def test_a_jsonl_file_with_a_bom_and_crlf(ready, run_json, tmp_path: Path) -> None:
    path = tmp_path / "windows.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + b"\r\n".join(json.dumps(e, ensure_ascii=False).encode() for e in BATCH[:2])
        + b"\r\n"
    )
    assert run_json("tape", "append", "--agent", "cc", "--jsonl", str(path))["ids"] == [1, 2]


def test_a_batch_says_its_counts_in_the_right_number(ready, tmp_path: Path) -> None:
    """ "1 entry ... was skipped", not "1 entries ... were skipped"."""
    path = tmp_path / "keyed.jsonl"

    def write(*entries: tuple[int, dict]) -> None:
        lines = (json.dumps({**e, "source_key": f"k{i}"}) for i, e in entries)
        path.write_text("\n".join(lines), encoding="utf-8")

    write((0, BATCH[0]), (1, BATCH[1]))
    ready("tape", "append", "--agent", "cc", "--jsonl", str(path))
    write((1, BATCH[1]), (2, BATCH[2]))  # k1 is on the tape already
    out = ready("tape", "append", "--agent", "cc", "--jsonl", str(path)).stdout
    assert out == (
        "Appended 1 entry to the tape of cc: 3. 1 entry already on the tape "
        "(same keys, appended before) was skipped.\n"
    )
