"""The vault, approvals and grants from the `tapemind` command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import keyring
import pytest
from click.testing import CliRunner, Result

from app import Engine
from app.cli import vault_cmds
from app.cli.main import cli
from app.vault.passphrase import PASSPHRASE_ENV
from tests.conftest import MemoryKeyring
from tests.insight_cases import DEPLOY_EN, learn, proposal_for

VALUE = "ghp_cliValue0123456789abcdefABCDEF"
ROOT = Path(__file__).resolve().parents[2]


def run(home: Path, *args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["--home", str(home), *args], input=input)


@pytest.fixture
def cli_home(home: Path) -> Path:
    assert run(home, "init").exit_code == 0
    assert run(home, "agent", "add", "claude-code").exit_code == 0
    assert run(home, "agent", "add", "robot", "--mode", "auto").exit_code == 0
    return home


def test_vault_set_reads_stdin_never_argv(cli_home: Path) -> None:
    out = run(cli_home, "vault", "set", "GITHUB_TOKEN", "--tag", "github", input=VALUE + "\n")
    assert out.exit_code == 0, out.output
    assert "Stored secret GITHUB_TOKEN" in out.output and VALUE not in out.output
    listed = run(cli_home, "--json", "vault", "list")
    [item] = json.loads(listed.output)
    assert item["name"] == "GITHUB_TOKEN" and item["tags"] == ["github"]
    assert VALUE not in listed.output
    # There is no option that takes a value on the command line.
    bad = run(cli_home, "vault", "set", "X", "--value", VALUE)
    assert bad.exit_code == 2 and "No such option" in bad.output
    with Engine.open(cli_home) as eng:
        assert eng.reveal_secret("GITHUB_TOKEN") == VALUE  # the newline was the shell's


def test_show_reveals_only_after_confirmation(cli_home: Path) -> None:
    run(cli_home, "vault", "set", "API", input=VALUE)
    plain = run(cli_home, "vault", "show", "API")
    assert plain.exit_code == 0 and "API" in plain.output and VALUE not in plain.output
    refused = run(cli_home, "vault", "show", "API", "--reveal", input="n\n")
    assert refused.exit_code == 1 and VALUE not in refused.output
    shown = run(cli_home, "vault", "show", "API", "--reveal", input="y\n")
    assert shown.exit_code == 0 and VALUE in shown.output
    as_json = run(cli_home, "--json", "vault", "show", "API", "--reveal", "--yes")
    assert json.loads(as_json.output)["value"] == VALUE


def test_request_approve_read_revoke(cli_home: Path) -> None:
    run(cli_home, "vault", "set", "API", input=VALUE)
    ask = ["secret", "get", "API", "--agent", "claude-code", "--reason", "部署 staging 服务"]
    first = run(cli_home, *ask)
    assert first.exit_code == 8 and VALUE not in first.output
    assert "approvals approve 1" in first.output
    listed = json.loads(run(cli_home, "--json", "approvals", "list").output)
    assert [(r["id"], r["agent"], r["reason"]) for r in listed] == [
        (1, "claude-code", "部署 staging 服务")
    ]
    table = run(cli_home, "approvals", "list").output
    assert "部署 staging 服务" in table and "claude-code" in table
    approved = run(cli_home, "approvals", "approve", "1", "--scope", "always")
    assert approved.exit_code == 0 and "always" in approved.output
    got = run(cli_home, *ask)
    assert got.exit_code == 0 and got.output.strip() == VALUE
    grants = json.loads(run(cli_home, "--json", "grants", "list").output)
    assert [(g["id"], g["scope"], g["used_count"]) for g in grants] == [(1, "always", 1)]
    assert run(cli_home, "grants", "revoke", "1").exit_code == 0
    after = run(cli_home, "--json", *ask)
    assert after.exit_code == 8 and json.loads(after.output)["value"] is None


def test_an_agent_without_a_session_can_be_allowed_for_an_hour(cli_home: Path) -> None:
    run(cli_home, "vault", "set", "API", input=VALUE)
    ask = ["secret", "get", "API", "--agent", "claude-code", "--reason", "发布 v2.1"]
    assert run(cli_home, *ask).exit_code == 8
    refused = run(cli_home, "approvals", "approve", "1", "--scope", "session")
    assert refused.exit_code == 2 and "once, for an hour or always" in refused.output
    approved = run(cli_home, "approvals", "approve", "1", "--scope", "hour")
    assert approved.exit_code == 0 and "may read API for an hour" in approved.output
    for _ in range(2):
        got = run(cli_home, *ask)
        assert got.exit_code == 0 and got.output.strip() == VALUE
    [grant] = json.loads(run(cli_home, "--json", "grants", "list").output)
    assert (grant["scope"], grant["used_count"], grant["active"]) == ("hour", 2, True)
    assert grant["expires_at"] > grant["created_at"]
    assert "active until" in run(cli_home, "grants", "list").output


def test_deny_and_unknowns(cli_home: Path) -> None:
    run(cli_home, "vault", "set", "API", input=VALUE)
    run(cli_home, "secret", "get", "API", "--agent", "claude-code", "--reason", "x")
    assert run(cli_home, "approvals", "deny", "1", "--reason", "no").exit_code == 0
    again = run(cli_home, "approvals", "approve", "1")
    assert again.exit_code == 2 and "already denied" in again.output
    missing = run(cli_home, "--json", "approvals", "approve", "99")
    assert missing.exit_code == 3
    nosecret = run(cli_home, "secret", "get", "NOPE", "--agent", "claude-code", "--reason", "x")
    assert nosecret.exit_code == 3 and "vault list" in nosecret.output


def test_auto_agent_gets_the_value(cli_home: Path) -> None:
    run(cli_home, "vault", "set", "API", input=VALUE)
    got = run(cli_home, "--json", "secret", "get", "API", "--agent", "robot", "--reason", "sync")
    data = json.loads(got.output)
    assert got.exit_code == 0 and data["value"] == VALUE and data["decided_by"] == "auto"


def test_timeout_is_a_deny(cli_home: Path) -> None:
    run(cli_home, "vault", "set", "API", input=VALUE)
    out = run(
        cli_home, "secret", "get", "API", "--agent", "claude-code", "--reason", "x", "--wait", "0.3"
    )
    assert out.exit_code == 7 and "expired" in out.output


def test_rotate_rm_status_mode(cli_home: Path) -> None:
    run(cli_home, "vault", "set", "API", input=VALUE)
    status = json.loads(run(cli_home, "--json", "vault", "status").output)
    rotated = json.loads(run(cli_home, "--json", "vault", "rotate-key").output)
    assert rotated["old_key_id"] == status["key_id"] and rotated["secrets"] == 1
    assert run(cli_home, "vault", "mode", "API", "auto").exit_code == 0
    got = run(cli_home, "secret", "get", "API", "--agent", "claude-code", "--reason", "now auto")
    assert got.output.strip() == VALUE
    assert run(cli_home, "vault", "rm", "API").exit_code == 0
    assert json.loads(run(cli_home, "--json", "vault", "list").output) == []


def test_vault_rm_asks_a_person_first(cli_home: Path, at_a_terminal: None) -> None:
    run(cli_home, "vault", "set", "API", input=VALUE)
    kept = run(cli_home, "vault", "rm", "API", input="n\n")
    assert kept.exit_code == 1 and "Remove secret API?" in kept.output
    assert [s["name"] for s in json.loads(run(cli_home, "--json", "vault", "list").output)] == [
        "API"
    ]
    assert run(cli_home, "vault", "rm", "API", "--yes").exit_code == 0
    assert json.loads(run(cli_home, "--json", "vault", "list").output) == []


def test_reviewer_rules_from_the_cli(cli_home: Path) -> None:
    out = run(
        cli_home, "--json", "approvals", "reviewer", "--agents", "claude-code", "--max-allowed", "3"
    )
    rules = json.loads(out.output)
    assert rules["agents"] == ["claude-code"] and rules["max_allowed"] == 3
    out = run(cli_home, "--json", "approvals", "reviewer", "--agents", "*")
    assert json.loads(out.output)["agents"] is None


def test_locked_vault_without_keyring_says_what_to_do(
    cli_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keyring.backends import fail

    monkeypatch.setattr("keyring.core._keyring_backend", fail.Keyring())
    out = run(cli_home, "--json", "vault", "set", "API", input=VALUE)
    assert out.exit_code == 6
    assert PASSPHRASE_ENV in json.loads(out.output.strip().splitlines()[-1])["message"]


def test_agent_waits_in_a_subprocess_while_the_owner_answers(
    cli_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`secret get --wait` in another process sees an answer given here."""
    from keyring.backends import fail

    passphrase = "a passphrase for this test"
    monkeypatch.setattr("keyring.core._keyring_backend", fail.Keyring())
    monkeypatch.setenv(PASSPHRASE_ENV, passphrase)
    with Engine.open(cli_home) as eng:
        eng.set_secret("API", VALUE)
    env = {
        **os.environ,
        PASSPHRASE_ENV: passphrase,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "PYTHONPATH": str(ROOT),
    }
    code = "import sys; from app.cli.main import cli; cli(prog_name='tapemind')"
    agent = subprocess.Popen(
        [sys.executable, "-c", code, "--home", str(cli_home), "--json", "secret", "get", "API",
         "--agent", "claude-code", "--reason", "waiting in a subprocess", "--wait", "60"],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        with Engine.open(cli_home) as eng:
            deadline = time.monotonic() + 30
            while not eng.access_requests(status="pending") and time.monotonic() < deadline:
                time.sleep(0.05)
            [req] = eng.access_requests(status="pending")
            assert req.reason == "waiting in a subprocess"
            eng.answer_request(req.id, True, "once")
        out, err = agent.communicate(timeout=60)
    finally:
        if agent.poll() is None:
            agent.kill()
    assert agent.returncode == 0, err
    assert json.loads(out)["value"] == VALUE


def test_vault_set_says_how_many_grown_skills_held_the_value(cli_home: Path) -> None:
    with Engine.open(cli_home) as engine:
        items = [*DEPLOY_EN]
        items[1] = (*items[1][:2], f"{items[1][2]} Log in with {VALUE}.")
        ids = learn(engine, "claude-code", items)
        engine.report_used("claude-code", "t-used", ids)
        skill = engine.accept_proposal(proposal_for(engine.insights("claude-code"), ids).id)
        assert VALUE in skill.text
    out = run(cli_home, "vault", "set", "GITHUB_TOKEN", input=VALUE + "\n")
    assert out.exit_code == 0, out.output
    assert "2 grown skill texts" in out.output and VALUE not in out.output
    shown = run(cli_home, "skill", "show", skill.name, "--agent", "claude-code")
    assert VALUE not in shown.output and "[secret]" in shown.output


def test_a_value_of_the_vault_is_refused_in_the_cli_s_own_words(cli_home: Path) -> None:
    assert run(cli_home, "vault", "set", "GITHUB_TOKEN", input=VALUE + "\n").exit_code == 0
    out = run(
        cli_home, "remember", f"push with {VALUE}", "--agent", "claude-code",
        "--category", "project_fact",
    )  # fmt: skip
    assert out.exit_code == 4 and VALUE not in out.output
    assert "nothing was stored" in out.stderr
    assert "tapemind secret get NAME --agent AGENT --reason WHY" in out.stderr
    assert "request_secret" not in out.stderr  # the agents' MCP tool, not a command


HANDOVER = "carried to the server 交接"


def test_export_key_then_import_key_on_a_new_machine(
    cli_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PASSPHRASE_ENV, raising=False)
    monkeypatch.setattr(vault_cmds, "has_terminal", lambda: True)
    assert run(cli_home, "vault", "set", "GITHUB_TOKEN", input=VALUE).exit_code == 0
    carried = tmp_path / "vault.key"
    typed_twice = f"{HANDOVER}\n{HANDOVER}\n"
    out = run(cli_home, "vault", "export-key", "--to", str(carried), input=typed_twice)
    assert out.exit_code == 0, out.output
    assert "Wrote vault key" in out.output and "import-key" in out.output
    assert carried.stat().st_mode & 0o777 == 0o600
    again = run(cli_home, "vault", "export-key", "--to", str(carried), input=typed_twice)
    assert again.exit_code == 2 and "--force" in again.output
    forced = run(
        cli_home, "vault", "export-key", "--to", str(carried), "--force", input=typed_twice
    )
    assert forced.exit_code == 0, forced.output

    moved = tmp_path / "new-machine"
    shutil.copytree(cli_home, moved)
    monkeypatch.setattr(keyring.core, "_keyring_backend", MemoryKeyring())  # its own keyring
    locked = run(moved, "vault", "show", "GITHUB_TOKEN", "--reveal", "--yes")
    assert locked.exit_code == 6
    assert "tapemind vault import-key" in locked.output
    assert "tapemind vault export-key" in locked.output
    wrong = run(moved, "vault", "import-key", str(carried), input="not it at all\n")
    assert wrong.exit_code == 6 and "does not unlock" in wrong.output
    took = run(moved, "vault", "import-key", str(carried), input=HANDOVER + "\n")
    assert took.exit_code == 0, took.output
    assert "now keeps vault key" in took.output
    shown = run(moved, "vault", "show", "GITHUB_TOKEN", "--reveal", "--yes")
    assert shown.exit_code == 0 and VALUE in shown.output
    monkeypatch.setenv(PASSPHRASE_ENV, HANDOVER)
    same = json.loads(run(moved, "--json", "vault", "import-key", str(carried)).output)
    assert same["stored"] is False and same["key_id"] in locked.output
    for result in (out, forced, wrong, took, locked):
        assert HANDOVER not in result.output and VALUE not in result.output
