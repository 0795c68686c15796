"""Home-wide commands: audit (never text), export/import round trip, demo; home resolution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli.main import cli as tapemind
from tests.cli.clihelp import fails

TEXTS = ("以后代码缩进都用 tab", "Lin prefers tabs over spaces", "部署脚本在 ops 目录")


def _history(run, run_json) -> None:
    ids = run_json(
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
        TEXTS[0],
    )["ids"]
    made = run_json(
        "remember", "--agent", "cc", "--category", "preference", "--source", str(ids[0]), TEXTS[1]
    )["memory"]["id"]
    run("memory", "edit", str(made), TEXTS[1] + " always")
    run_json("remember", "--agent", "dc", "--category", "project_fact", TEXTS[2])
    run("used", "--agent", "cc", "--turn", "u2", str(made))
    run("remember", "--agent", "cc", "--category", "preference", TEXTS[1] + " always")
    run("tape", "erase", str(ids[0]))
    run("forget", str(made))


def test_audit_lists_actions_and_never_text(ready, run_json) -> None:
    _history(ready, run_json)
    events = run_json("audit")
    actions = [e["action"] for e in events]
    for action in (
        "agent.add",
        "tape.append",
        "memory.add",
        "memory.edit",
        "memory.use",
        "memory.duplicate",
        "tape.erase",
        "memory.forget",
    ):
        assert action in actions, action
    assert all(
        set(e) == {"id", "at", "agent", "actor", "action", "object_ids", "counts"} for e in events
    )
    human = ready("audit").stdout
    raw_json = ready("audit", "--json", "--limit", "1000").stdout
    for text in (*TEXTS, "tab", "部署", "Lin"):
        assert text not in human and text not in raw_json, text
    only_dc = run_json("audit", "--agent", "dc")
    assert {e["agent"] for e in only_dc} == {"dc"}
    assert [e["action"] for e in run_json("audit", "--action", "memory.edit")] == ["memory.edit"]
    assert len(run_json("audit", "--limit", "2")) == 2
    assert run_json("audit", "--limit", "2", "--offset", "1")[0] == events[1]
    fails(ready("audit", "--agent", "ghost", ok=False), 3, "ghost")


def _body(path: Path) -> list[str]:
    header, *rows = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(header)["tapemind_export"] == 1
    return rows


def test_export_import_export_gives_the_same_lines(ready, run_json, tmp_path: Path) -> None:
    _history(ready, run_json)
    first = tmp_path / "one.jsonl"
    assert "Exported" in ready("export", "--out", str(first)).stdout
    new_home = tmp_path / "new-home"
    runner = CliRunner()
    imported = runner.invoke(tapemind, ["--home", str(new_home), "import", str(first), "--json"])
    assert imported.exit_code == 0, imported.stderr
    assert json.loads(imported.stdout)["rows"]["memories"] == 2
    second = tmp_path / "two.jsonl"
    out = runner.invoke(tapemind, ["--home", str(new_home), "export", "--out", str(second)])
    assert out.exit_code == 0
    assert _body(first) == _body(second)
    assert any("部署脚本在 ops 目录" in line for line in _body(second))
    # The imported home works: the forgotten text is still refused there.
    again = runner.invoke(
        tapemind,
        [
            "--home",
            str(new_home),
            "--json",
            "remember",
            "--agent",
            "cc",
            "--category",
            "preference",
            TEXTS[1],
        ],
    )
    assert again.exit_code == 4 and json.loads(again.stderr)["error"] == "forgotten"
    stdout_export = ready("export", "--out", "-").stdout.splitlines()
    assert stdout_export[1:] == _body(first)


def test_import_refuses_a_non_empty_home_and_bad_files(ready, run_json, tmp_path: Path) -> None:
    export = tmp_path / "x.jsonl"
    ready("export", "--out", str(export))
    fails(ready("import", str(export), ok=False), 2, "not empty")
    junk = tmp_path / "junk.jsonl"
    junk.write_text("hello\n")
    fails(ready("import", str(junk), ok=False), 2, "not a Tapemind export")
    fails(ready("import", str(tmp_path / "missing.jsonl"), ok=False), 2, "No export file at")


def test_a_mistyped_import_path_leaves_no_home_behind(run, home: Path, tmp_path: Path) -> None:
    assert not (home / "tapemind.db").exists()
    fails(run("import", str(tmp_path / "missing.jsonl"), ok=False), 2, "No export file at")
    assert not (home / "tapemind.db").exists()


def test_demo_seeds_two_agents_with_everything(run, run_json, home: Path) -> None:
    out = run("demo").stdout
    assert "Seeded a demo home" in out and "AGENT" in out
    agents = run_json("agent", "list")
    assert len(agents) == 2
    for agent in agents:
        memories = run_json("memory", "list", "--agent", agent["name"], "--limit", "1000")
        assert {m["category"] for m in memories} == {
            "preference",
            "project_fact",
            "task_outcome",
            "lesson",
        }
        with_parents = [m for m in memories if run_json("memory", "show", str(m["id"]))["parents"]]
        assert with_parents, agent["name"]
        tape = run_json("tape", "show", "--agent", agent["name"], "--limit", "1000")
        assert {"message", "tool_call", "tool_result"} <= {e["kind"] for e in tape}
        assert len({e["thread"] for e in tape}) >= 2
    texts = " ".join(
        m["text"]
        for a in agents
        for m in run_json("memory", "list", "--agent", a["name"], "--limit", "1000")
    )
    assert any("\u4e00" <= ch <= "\u9fff" for ch in texts)  # Chinese
    assert any(ch.isascii() and ch.isalpha() for ch in texts)  # and English
    # Seeded as a home in daily use: nothing waits to be embedded, semantic search answers.
    status = run_json("index", "status")
    assert status["unembedded"]["memory"] == status["unembedded"]["tape"] == 0, status
    hits = run_json("search", "--agent", agents[0]["name"], "--mode", "semantic", "数据库")
    assert hits
    fails(run("demo", ok=False), 5, "already has agents")


def test_demo_waits_for_no_one_while_another_program_owns_the_home(run, home: Path) -> None:
    from app.host.lock import HomeLock

    home.mkdir(parents=True, exist_ok=True)
    holder = HomeLock(home, "host")
    assert holder.try_acquire()
    try:
        fails(run("demo", ok=False), 5, "in use by")
    finally:
        holder.release()
    assert not (home / "tapemind.db").exists()  # nothing was seeded behind the owner's back
    assert "Seeded a demo home" in run("demo").stdout


def test_demo_json(run_json) -> None:
    counts = run_json("demo")
    assert counts["agents"] == 2 and counts["entries"] > 100 and counts["memories"] > 30
    # The count is what the home holds, every status (conflicts and the archive included).
    held = sum(
        len(run_json("memory", "list", "--agent", a["name"], "--limit", "1000"))
        for a in run_json("agent", "list")
    )
    assert counts["memories"] == held


# -- which home ----------------------------------------------------------------------------


def _home_of(args: list[str], env: dict[str, str | None]) -> str:
    result = CliRunner().invoke(tapemind, [*args, "--json", "init"], env=env)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["home"]


def test_home_flag_beats_env_beats_platform_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flag, env, platform = tmp_path / "flag", tmp_path / "env", tmp_path / "platform"
    monkeypatch.setattr("platformdirs.user_data_dir", lambda *a, **k: str(platform))
    assert _home_of(["--home", str(flag)], {"TAPEMIND_HOME": str(env)}) == str(flag)
    assert _home_of([], {"TAPEMIND_HOME": str(env)}) == str(env)
    assert _home_of([], {"TAPEMIND_HOME": None}) == str(platform)
    assert (platform / "tapemind.db").is_file()


def test_errors_about_the_home(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(tapemind, ["--home", str(tmp_path / "nope"), "agent", "list"])
    fails(missing, 5, "No Tapemind home", f"tapemind --home {tmp_path / 'nope'} init")
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_bytes(b"\xff\xd8")
    fails(
        runner.invoke(tapemind, ["--home", str(foreign), "agent", "list"]), 5, "not a Tapemind home"
    )
    a_file = tmp_path / "file"
    a_file.write_text("x")
    result = runner.invoke(tapemind, ["--home", str(a_file), "agent", "list"])
    assert result.exit_code == 2 and "is a file" in result.stderr
    assert sorted(p.name for p in foreign.iterdir()) == ["cat.jpg"]
    assert a_file.read_text() == "x"


def test_audit_is_newest_first_even_when_written_out_of_order(engine, clock, run, run_json) -> None:
    from datetime import timedelta

    engine.add_agent("late")
    clock.set(clock.now() - timedelta(days=3))  # a clock set back: written later, happened earlier
    engine.add_agent("early")
    engine.close()
    times = [e["at"] for e in run_json("audit")]
    assert times == sorted(times, reverse=True)
    names = [e["object_ids"] for e in run_json("audit", "--action", "agent.add")]
    assert names == [[1], [2]]  # "late" (agent 1) first, "early" (agent 2) last
    lines = run("audit").stdout.splitlines()
    rows = [line for line in lines if "agent.add" in line]
    assert rows[0] > rows[-1]  # the table starts with the newest time too
