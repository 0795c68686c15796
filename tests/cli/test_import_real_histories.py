"""`tapemind import-history` on real-shaped histories, read back with `tapemind tape show`."""

from __future__ import annotations

from pathlib import Path

REAL = Path(__file__).parent.parent / "fixtures" / "histories" / "real"
CASES = (
    ("claude-code", "claude-projects", "7d3e9a10-2b4c-4e8f-9a1b-3c5d7e9f1a2b.jsonl: line 23"),
    ("codex", "codex-sessions", "00000000000a.jsonl: line 17"),
    ("chatgpt", "chatgpt", "conversation 2"),
)


def test_importing_real_histories_twice_adds_nothing_and_names_bad_lines(ready, run_json) -> None:
    total = 0
    for fmt, folder, bad in CASES:
        args = ("import-history", "--agent", "cc", "--from", fmt, str(REAL / folder))
        first = run_json(*args)
        assert first["added"] > 0 and first["already_there"] == 0
        assert [bad in p["message"] for p in first["problems"]] == [True]
        again = run_json(*args)
        assert (again["added"], again["already_there"]) == (0, first["added"])
        total += first["added"]
        # Read as a person would: the problem goes to stderr with its file and line.
        human = ready(*args)
        assert "Imported 0 entries" in human.stdout and bad in human.stderr
    tape = run_json("tape", "show", "--agent", "cc", "--limit", "1000")
    assert len(tape) == total
    users = [e["text"] for e in tape if (e["kind"], e["role"]) == ("message", "user")]
    assert "顺便把 README 也更新一下" in users and "换成 9090 吧。" in users
    # Nothing the tools injected reads as the person's words.
    for marker in ("<ide_opened_file>", "<system-reminder>", "<environment_context>",
                   "<user_shell_command>", "Warmup", "\ue200"):  # fmt: skip
        assert not any(marker in text for text in users), marker
    assert users.count("这个报错是什么意思？") == 0  # the Codex event copy, never a question
    assert users.count("[image]\n这个报错是什么意思？") == 1  # the fork's copy is not re-imported
    kinds = {(e["kind"], e["role"]) for e in tape}
    assert {("compact", "system"), ("event", "assistant"), ("tool_result", "tool")} <= kinds
