"""`tapemind import-history` when the user picks the wrong format or file: an error that says
what to check (exit 2), never "Imported 0 entries" with a screenful of unreadable lines."""

from __future__ import annotations

import json
from pathlib import Path

HISTORIES = Path(__file__).parent.parent / "fixtures" / "histories"
CLAUDE_SESSION = next((HISTORIES / "claude-code").rglob("*.jsonl"))


def test_a_file_of_another_format_is_an_error_that_names_the_format_to_check(ready) -> None:
    cases = [
        ("jsonl", HISTORIES / "chatgpt" / "conversations.json", "line 1: not valid JSON"),
        ("codex", CLAUDE_SESSION, "unreadable"),
        ("chatgpt", HISTORIES / "generic.jsonl", "not valid JSON"),
    ]
    for fmt, path, why in cases:
        result = ready("import-history", "--agent", "cc", "--from", fmt, str(path), ok=False)
        assert result.exit_code == 2, (fmt, result.output)
        assert f"Found no {fmt} history in {path}" in result.stderr
        assert why in result.stderr and "--from" in result.stderr
        assert result.stderr.count("\n") == 1  # one message, not one line per bad line
    assert ready("--json", "tape", "show", "--agent", "cc").stdout.strip() == "[]"


def test_an_unreadable_export_and_an_empty_file_are_errors_too(ready, tmp_path: Path) -> None:
    broken = ready(
        "import-history", "--agent", "cc", "--from", "chatgpt",
        str(HISTORIES / "chatgpt-broken"), ok=False,
    )  # fmt: skip
    assert broken.exit_code == 2 and "line 120: not valid JSON" in broken.stderr
    empty = tmp_path / "空的.jsonl"
    empty.write_text("", encoding="utf-8")
    result = ready("import-history", "--agent", "cc", "--from", "jsonl", str(empty), ok=False)
    assert result.exit_code == 2 and f"Found no jsonl history in {empty}" in result.stderr


def test_many_bad_lines_are_summed_up_and_listed_whole_in_json(ready, tmp_path: Path) -> None:
    # One good entry among 30 broken lines: imported, ten problems shown, the count of the rest.
    lines = [json.dumps({"thread": "t", "role": "user", "text": "用户用 pytest 跑测试"})]
    lines += [f'{{"thread": "t", "role": "user", "text": "坏行 {i}"' for i in range(30)]
    path = tmp_path / "history.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = ready("import-history", "--agent", "cc", "--from", "jsonl", str(path))
    assert "Imported 1 entry from 1 thread" in result.stdout
    shown = [line for line in result.stderr.splitlines() if "not imported:" in line]
    assert len(shown) == 10 and "… and 20 more lines not imported" in result.stderr
    again = json.loads(
        ready("--json", "import-history", "--agent", "dc", "--from", "jsonl", str(path)).stdout
    )
    assert again["added"] == 1 and len(again["problems"]) == 30


def test_a_big_history_says_what_it_is_adding_before_it_is_done(ready, tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    rows = (
        {"thread": f"t{i // 100}", "role": "user", "text": f"第 {i} 条消息"} for i in range(2000)
    )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = ready("import-history", "--agent", "cc", "--from", "jsonl", str(path))
    assert "Adding 2000 entries from 20 threads to the tape of agent cc" in result.stderr
    assert "Imported 2000 entries from 20 threads" in result.stdout


def test_help_says_where_each_history_usually_is(run) -> None:
    text = run("import-history", "--help").stdout
    for where in ("~/.claude/projects", "~/.codex/sessions", "export ZIP", '"thread", "role"'):
        assert where in text, where


def test_an_unknown_agent_is_named_before_the_history_is_read(ready, tmp_path: Path) -> None:
    # A typo in --agent is reported at once, not after reading years of sessions (here
    # the path does not even exist: the agent comes first).
    result = ready(
        "import-history", "--agent", "ghost", "--from", "jsonl", str(tmp_path / "nope.jsonl"),
        ok=False,
    )  # fmt: skip
    assert result.exit_code == 3 and "No agent named 'ghost'" in result.stderr
