"""`tapemind import-history`, locally and through a running host: idempotent, never fatal."""

from __future__ import annotations

from pathlib import Path

from .mcp_helpers import ROOT, cli, cli_json, counts, start_serve, stop

HISTORIES = ROOT / "tests" / "fixtures" / "histories"


def test_import_history_twice_adds_nothing_locally_and_through_the_host(two_agents: Path) -> None:
    home = two_agents
    first = cli_json(
        home,
        "import-history",
        "--agent",
        "A",
        "--from",
        "claude-code",
        str(HISTORIES / "claude-code"),
    )
    assert first["added"] > 0 and first["skipped"] == 0 and first["threads"] >= 1
    assert first["problems"], "the fixture has malformed lines, reported and skipped"
    proc, _url = start_serve(home)
    try:
        again = cli_json(
            home,
            "import-history",
            "--agent",
            "A",
            "--from",
            "claude-code",
            str(HISTORIES / "claude-code"),
        )
        assert again["added"] == 0 and again["skipped"] == first["added"]
        assert again["already_there"] == first["added"]
        codex = cli_json(
            home, "import-history", "--agent", "A", "--from", "codex", str(HISTORIES / "codex")
        )
        assert codex["added"] > 0
        tape = cli_json(home, "tape", "show", "--agent", "A", "--limit", "1000")
        assert len(tape) == first["added"] + codex["added"]
        assert {e["kind"] for e in tape} >= {"message", "tool_call", "tool_result"}
        # The source time travels through the host intact.
        assert min(e["created_at"] for e in tape) < "2026-11-01"
    finally:
        stop(proc)
    assert counts(home)["tape_entries"] == first["added"] + codex["added"]


def test_import_history_of_a_missing_path_says_what_to_do(two_agents: Path) -> None:
    proc = cli(
        two_agents,
        "import-history",
        "--agent",
        "A",
        "--from",
        "jsonl",
        str(two_agents / "nope.jsonl"),
        check=False,
    )
    assert proc.returncode != 0 and "No history at" in proc.stderr
