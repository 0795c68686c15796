"""`tapemind insights` and `tapemind skill …` for grown skills, as a person or script uses
them: propose, read, accept (edited or not), reject, list, show, install."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app import Engine
from app.clock import ManualClock
from tests.cli.conftest import Run
from tests.insight_cases import DEPLOY_EN, DISTRACTORS, SLOWSQL_ZH, learn

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast


def seed(home: Path, clock: ManualClock, agent: str, items: Any, *, used: bool = True) -> list[int]:
    with Engine.open(home, create=True, clock=clock) as engine:
        if agent not in {a.name for a in engine.agents()}:
            engine.add_agent(agent)
        ids = learn(engine, agent, items)
        if used:
            engine.report_used(agent, f"{agent}-use-1", ids)
        learn(engine, agent, DISTRACTORS)
        return ids


def test_propose_read_accept_list_and_install_a_grown_skill(
    run: Run, home: Path, clock: ManualClock, tmp_path: Path
) -> None:
    ids = seed(home, clock, "cc", DEPLOY_EN)
    out = run("insights", "--agent", "cc").stdout
    assert "1 new proposal," in out and "Proposal 1  pending  new skill" in out
    assert "tapemind insights show 1" in out
    shown = run("insights", "show", "1").stdout
    assert "## Steps" in shown and f"[m{ids[1]}]" in shown
    assert "Evidence:" in shown and "entry " in shown  # each memory with its tape entries
    listed = json.loads(run("insights", "list", "--json").stdout)
    assert [p["id"] for p in listed] == [1] and set(listed[0]["evidence"]) == set(ids)
    accepted = run("insights", "accept", "1").stdout
    name = listed[0]["name"]
    assert f"Accepted: skill {name} version 1 of agent cc" in accepted
    assert f"tapemind skill install {name} --agent cc" in accepted
    skills = json.loads(run("skill", "list", "--agent", "cc", "--json").stdout)
    assert [(s["name"], s["version"], s["state"]) for s in skills] == [(name, 1, "current")]
    assert "current" in run("skill", "list", "--agent", "cc").stdout
    target = tmp_path / "skills"
    installed = run("skill", "install", name, "--target", str(target)).stdout
    skill_md = target / name / "SKILL.md"
    assert str(skill_md) in installed
    assert skill_md.read_text("utf-8") == skills[0]["text"]
    assert skill_md.read_text("utf-8").startswith(f"---\nname: {name}\n")
    run("skill", "install", "--target", str(target))  # the memory skill, as before
    assert (target / "tapemind-memory" / "SKILL.md").is_file()
    again = run("insights", "--agent", "cc").stdout
    assert "0 new proposals" in again


def test_a_chinese_draft_accepted_as_the_owner_edited_it(
    run: Run, home: Path, clock: ManualClock, tmp_path: Path
) -> None:
    seed(home, clock, "zh", SLOWSQL_ZH, used=False)
    report = json.loads(run("insights", "--agent", "zh", "--json").stdout)
    proposal = report["proposals"][0]
    assert "## 步骤" in proposal["text"]
    edited = proposal["text"].replace(f"name: {proposal['name']}", "name: mysql-slow-queries")
    edited = edited.replace("## 步骤\n", "## 步骤\n\n先确认是哪个接口慢。\n")
    path = tmp_path / "skill.md"
    path.write_text(edited, "utf-8")
    run("insights", "accept", str(proposal["id"]), "--text-file", str(path))
    shown = run("skill", "show", "mysql-slow-queries", "--agent", "zh").stdout
    assert "先确认是哪个接口慢。" in shown and "version 1" in shown
    versions = json.loads(run("skill", "show", "mysql-slow-queries", "--agent", "zh",
                              "--json").stdout)  # fmt: skip
    assert versions["text"] == edited


def test_mistakes_get_a_clear_error_and_change_nothing(
    run: Run, home: Path, clock: ManualClock, tmp_path: Path
) -> None:
    seed(home, clock, "cc", DEPLOY_EN)
    no_agent = run("insights", ok=False)
    assert no_agent.exit_code == 2 and "Give --agent NAME" in no_agent.stderr
    unknown = run("insights", "--agent", "nobody", ok=False)
    assert unknown.exit_code != 0 and "tapemind agent add nobody" in unknown.stderr
    missing = run("insights", "accept", "7", ok=False)
    assert "No insight proposal 7" in missing.stderr
    run("insights", "--agent", "cc")
    binary = tmp_path / "skill.bin"
    binary.write_bytes(b"\xff\xfe\x00not text")
    refused = run("insights", "accept", "1", "--text-file", str(binary), ok=False)
    assert "not UTF-8" in refused.stderr
    bad = run("insights", "accept", "1", "--text-file", "-", input="1. a step [m1]\n", ok=False)
    assert "front matter" in bad.stderr
    assert json.loads(run("insights", "list", "--json").stdout)[0]["status"] == "pending"
    run("insights", "reject", "1")
    twice = run("insights", "reject", "1", ok=False)
    assert "is rejected, not pending" in twice.stderr
    nothing = run("skill", "install", "no-such-skill", "--target", str(tmp_path), ok=False)
    assert "No skill named 'no-such-skill'" in nothing.stderr


@pytest.mark.parametrize("as_json", [False, True])
def test_a_stale_skill_says_which_memory_changed(
    run: Run, home: Path, clock: ManualClock, as_json: bool
) -> None:
    ids = seed(home, clock, "cc", DEPLOY_EN)
    run("insights", "--agent", "cc")
    run("insights", "accept", "1")
    run("forget", str(ids[1]), "--yes")
    if as_json:
        skill = json.loads(run("skill", "list", "--agent", "cc", "--json").stdout)[0]
        assert skill["state"] == "stale"
        assert {"memory_id": ids[1], "what": "forgotten", "other_id": None,
                "conflict_id": None} in skill["issues"]  # fmt: skip
    else:
        assert f"stale: memory {ids[1]} was forgotten" in run("skill", "list", "--agent",
                                                               "cc").stdout  # fmt: skip


@pytest.mark.parametrize("items", [DEPLOY_EN, SLOWSQL_ZH], ids=["en", "zh"])
def test_a_skill_resting_on_a_forgotten_memory_is_not_installed_until_reviewed(
    run: Run, home: Path, clock: ManualClock, tmp_path: Path, items: Any
) -> None:
    ids = seed(home, clock, "cc", items)
    run("insights", "--agent", "cc")
    name = json.loads(run("insights", "accept", "1", "--json").stdout)["name"]
    with Engine.open(home, clock=clock) as engine:
        words = engine.memory(ids[1]).memory.text
    run("forget", str(ids[1]), "--yes")
    listed = run("skill", "list", "--agent", "cc").stdout
    assert "withheld from agents" in listed
    refused = run("skill", "install", name, "--target", str(tmp_path / "skills"), ok=False)
    assert f"m{ids[1]}, which was forgotten" in refused.stderr
    assert "tapemind insights --agent cc" in refused.stderr
    assert not (tmp_path / "skills" / name).exists() and words not in refused.stderr
    # The owner still reads the version accepted, words and all.
    assert words in run("skill", "show", name, "--agent", "cc").stdout
