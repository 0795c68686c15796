"""Mistakes a new user makes at the command line, and what Tapemind answers (QA pass 6).

Each test is one defect found by using the product: the message must say what is wrong
and what to do, the exit code must say what kind of failure it was, and nothing may be
written by a refused command.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from click.testing import CliRunner

from app.cli.main import cli as tapemind

from .clihelp import appended_id, fails


def _append(run, agent: str, thread: str, text: str, turn: str = "1") -> int:
    out = run(
        "tape", "append", "--agent", agent, "--thread", thread, "--turn", turn,
        "--role", "user", "--text", text,
    ).stdout  # fmt: skip
    return appended_id(out)


def test_used_with_an_unknown_memory_names_it_unknown_not_a_parent(ready, run_json) -> None:
    entry = _append(ready, "dc", "t", "dc 的记录")
    theirs = run_json(
        "remember", "--agent", "dc", "--category", "lesson", "--source", str(entry),
        "部署前先跑完整测试",
    )["memory"]["id"]  # fmt: skip
    for memory_id in ("999", str(theirs)):
        result = ready("used", "--agent", "cc", "--turn", "t1", memory_id, "--json", ok=False)
        fails(result, 3, f"Memory {memory_id} is not a memory of agent 'cc'")
        assert json.loads(result.stderr)["error"] == "unknown_memory"
    shown = run_json("memory", "show", str(theirs))["memory"]
    assert shown["use_count"] == 0  # dc's memory was not reinforced by cc's report


def test_import_history_from_a_folder_without_history_says_so(
    ready, run_json, tmp_path: Path
) -> None:
    empty = tmp_path / "空的"
    empty.mkdir()
    export = tmp_path / "chatgpt-export"
    export.mkdir()
    (export / "conversations.json").write_text("[]", encoding="utf-8")
    for fmt, folder, names in (
        ("claude-code", empty, "*.jsonl"),
        ("codex", export, "rollout-*.jsonl or *.jsonl"),  # a ChatGPT export, wrong --from
    ):
        result = ready("import-history", "--agent", "cc", "--from", fmt, str(folder), ok=False)
        fails(result, 2, f"Found no {fmt} history in {folder}", names, "--from")
    assert run_json("tape", "show", "--agent", "cc") == []


def test_missing_home_suggests_an_init_command_that_works(tmp_path: Path) -> None:
    home = tmp_path / "新家 home"
    runner = CliRunner()
    result = runner.invoke(tapemind, ["--home", str(home), "agent", "list"])
    fails(result, 5, f"No Tapemind home at {home}")
    suggested = result.stderr.split("`")[1]  # the command between backquotes
    assert suggested == f"tapemind --home '{home}' init"
    created = runner.invoke(tapemind, ["--home", str(home), "init"])
    assert created.exit_code == 0, created.stderr
    assert runner.invoke(tapemind, ["--home", str(home), "agent", "list"]).exit_code == 0

    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("mine", encoding="utf-8")
    result = runner.invoke(tapemind, ["--home", str(tmp_path / "junk"), "agent", "list"])
    fails(result, 5, "is not a Tapemind home", "`tapemind --home DIR init`")


def test_agent_budget_is_bounded_like_context_budget(ready, run_json) -> None:
    fails(ready("agent", "config", "cc", "--budget", "40000", ok=False), 2, "between 1 and 32000")
    fails(ready("agent", "add", "ee", "--budget", "50000", ok=False), 2, "between 1 and 32000")
    assert run_json("agent", "show", "cc")["agent"]["settings"]["recall_budget"] == 800
    assert [a["name"] for a in run_json("agent", "list")] == ["cc", "dc"]
    ready("agent", "config", "cc", "--budget", "32000")
    assert run_json("context", "--agent", "cc")["budget"] == 32000


def test_mirror_and_skill_install_report_a_file_in_the_way(ready, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    result = ready("mirror", "--agent", "cc", str(blocker / "view"), ok=False)
    fails(result, 2, "Cannot write", "Not a directory", "Choose another DIRECTORY")
    result = ready("skill", "install", "--target", str(blocker / "skills"), ok=False)
    fails(result, 2, "Cannot write", "Not a directory", "Choose another --target")


def _column(line: str, value: str) -> int:
    """The terminal cell where `value` starts in `line` (accents take no cell)."""
    before = line[: line.index(value)]
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in before
    )


def test_tape_show_never_sends_stored_control_characters_to_the_terminal(ready) -> None:
    hostile = "清屏\x1b[2J\x1b]0;pwned\x07 NUL\x00 \u202etxt.exe 结束"
    _append(ready, "cc", "cafe\u0301", hostile, turn="轮一")  # "café" with a combining accent
    _append(ready, "cc", "plain", "普通的一行", turn="轮二")
    for args in ((), ("--full",)):
        out = ready("tape", "show", "--agent", "cc", *args).stdout
        for bad in ("\x1b", "\x07", "\x00", "\u202e"):
            assert bad not in out, (args, out)
        assert "清屏" in out and "结束" in out  # the text itself is still shown
    lines = ready("tape", "show", "--agent", "cc").stdout.splitlines()
    header, rows = lines[0], lines[2:]
    assert [_column(row, turn) for row, turn in zip(rows, ("轮一", "轮二"), strict=True)] == [
        _column(header, "TURN")
    ] * 2


def test_a_usage_mistake_with_json_is_a_json_error(ready) -> None:
    for args, words in (
        (("--json", "used", "--agent", "cc", "1"), "Missing option '--turn'"),
        (("used", "--agent", "cc", "1", "--json"), "Missing option '--turn'"),
        (("--json", "memory", "show", "第一条"), "'第一条' is not a valid integer"),
        (("search", "--agent", "cc", "x", "--limit", "0", "--json"), "--limit"),
        (("--json", "nosuch"), "No such command 'nosuch'"),
    ):
        result = ready(*args, ok=False)
        fails(result, 2)
        problem = json.loads(result.stderr)
        assert problem["error"] == "usage"
        assert words in problem["message"] and "--help" in problem["message"]
    # Without --json, people still get click's usage text.
    result = ready("used", "--agent", "cc", "1", ok=False)
    fails(result, 2, "Usage: ", "Missing option '--turn'")


def test_a_mistyped_agent_name_suggests_the_close_one_first(ready) -> None:
    """`--agent CC` must not lead to `agent add CC`, which would split one agent in two."""
    ready("agent", "add", "claude-code")
    for typed, meant in (("Claude-Code", "claude-code"), ("claude_code", "claude-code"),
                         ("CC", "cc")):  # fmt: skip
        result = ready("tape", "show", "--agent", typed, ok=False)
        fails(result, 3, f"No agent named '{typed}' in this home: did you mean '{meant}'?")
        assert result.stderr.index(f"'{meant}'") < result.stderr.index("agent add")
    far = ready("tape", "show", "--agent", "xyzzy", ok=False)
    fails(far, 3, "No agent named 'xyzzy'", "tapemind agent add xyzzy")
    assert "did you mean" not in far.stderr
