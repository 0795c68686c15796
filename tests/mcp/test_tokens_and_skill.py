"""Agent tokens (shown again, rotated, never exported), `agent token` snippets, the skill."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from app import Engine
from app.agents.tokens import TOKENS_FILE, token_hash
from app.cli.main import cli
from tests import committed


def test_a_token_is_shown_again_until_rotated_and_only_its_hash_is_in_the_database(
    engine: Engine, tmp_path: Path
) -> None:
    engine.add_agent("A")
    engine.add_agent("写作助手")
    first = engine.agent_token("A")
    assert first.issued and first.token.startswith("tm_")
    again = engine.agent_token("A")
    assert again.token == first.token and not again.issued
    other = engine.agent_token("写作助手")
    assert other.token != first.token
    assert engine.agent_for_token(first.token) == "A"
    assert engine.agent_for_token(other.token) == "写作助手"
    assert engine.agent_for_token("tm_" + "x" * 43) is None
    assert engine.agent_for_token("") is None

    rotated = engine.agent_token("A", rotate=True)
    assert rotated.issued and rotated.token != first.token
    assert engine.agent_for_token(first.token) is None
    assert engine.agent_for_token(rotated.token) == "A"

    database = committed.raw(engine)  # the SQLite file, or every PostgreSQL row
    assert rotated.token.encode() not in database and first.token.encode() not in database
    assert token_hash(rotated.token).encode() in database
    tokens_file = engine.home / TOKENS_FILE
    assert stat.S_IMODE(tokens_file.stat().st_mode) == 0o600
    assert json.loads(tokens_file.read_text())["A"] == rotated.token
    exported = tmp_path / "export.jsonl"
    engine.export(exported)
    text = exported.read_text()
    assert rotated.token not in text and token_hash(rotated.token) not in text
    assert [e.action for e in engine.audit(action="agent.token")].count("agent.token") == 3


def test_a_lost_token_file_means_a_new_token(engine: Engine) -> None:
    engine.add_agent("A")
    first = engine.agent_token("A")
    (engine.home / TOKENS_FILE).unlink()
    second = engine.agent_token("A")
    assert second.issued and second.token != first.token
    assert engine.agent_for_token(first.token) is None


def test_agent_token_prints_snippets_for_each_client(engine: Engine) -> None:
    engine.add_agent("A")
    home = str(engine.home)
    result = CliRunner().invoke(cli, ["--home", home, "agent", "token", "A"])
    assert result.exit_code == 0, result.output
    token = engine.agent_token("A").token
    assert (
        "claude mcp add --transport http --scope user tapemind http://127.0.0.1:7821/mcp"
        in result.output
    )
    assert f"Authorization: Bearer {token}" in result.output
    assert "[mcp_servers.tapemind]" in result.output and "bearer_token_env_var" in result.output
    assert f'args = ["--home", "{home}", "mcp", "--agent", "A"]' in result.output
    assert "DeepChat" in result.output
    data = json.loads(
        CliRunner().invoke(cli, ["--home", home, "--json", "agent", "token", "A"]).output
    )
    assert data["token"] == token and not data["issued"]
    clients = {(s["client"], s["transport"]) for s in data["snippets"]}
    for client in ("Claude Code", "Codex", "DeepChat"):
        assert {(client, "http"), (client, "stdio")} <= clients
    mcp_json = next(
        s
        for s in data["snippets"]
        if s["client"] == "Claude Code" and s["transport"] == "http" and ".mcp.json" in s["where"]
    )
    # .mcp.json is committed with a project: the token travels in an environment variable.
    headers = json.loads(mcp_json["text"])["mcpServers"]["tapemind"]["headers"]
    assert headers["Authorization"] == "Bearer ${TAPEMIND_TOKEN_A}"
    assert f"export TAPEMIND_TOKEN_A={token}" in mcp_json["where"]
    assert token not in mcp_json["text"]


def test_skill_install_copies_the_bilingual_manual(tmp_path: Path) -> None:
    target = tmp_path / "skills"
    result = CliRunner().invoke(cli, ["--json", "skill", "install", "--target", str(target)])
    assert result.exit_code == 0, result.output
    text = (target / "tapemind-memory" / "SKILL.md").read_text(encoding="utf-8")
    front = text.split("---")[1]
    assert "name: tapemind-memory" in front and "description:" in front
    for word in ("context", "append", "remember", "used", "request_secret", "先调用 `context`"):
        assert word in text


def front_matter(text: str) -> dict[str, str]:
    """The YAML front matter of a SKILL.md, read as the agents read it (`key: value`)."""
    assert text.startswith("---\n"), "a skill starts with its front matter"
    block = text[4 : text.index("\n---\n", 4)]
    return dict(line.split(": ", 1) for line in block.splitlines())


def test_the_skill_names_itself_and_says_when_to_use_it_within_the_limits(
    tmp_path: Path,
) -> None:
    CliRunner().invoke(cli, ["skill", "install", "--target", str(tmp_path / "skills")])
    text = (tmp_path / "skills" / "tapemind-memory" / "SKILL.md").read_text(encoding="utf-8")
    meta = front_matter(text)
    # The Agent Skills format: name = the folder's name (lowercase, hyphens, <= 64),
    # description <= 1024 characters, plain (no quotes or colons to trip a YAML reader).
    assert meta["name"] == "tapemind-memory"
    assert 0 < len(meta["description"]) <= 1024 and ": " not in meta["description"]
    # Every call it shows uses the tools' real argument names, in both languages.
    flat = " ".join(text.split())
    for call in (
        "context(thread, user, query)",
        "search(query, …)",
        "tape(thread=…, around=",
        "memory(id)",
        "used(turn, memory_ids)",
        "request_secret(name, reason)",
    ):
        assert flat.count(call) == 2, call


def test_skill_install_twice_says_so_and_never_overwrites_an_edited_copy(
    tmp_path: Path,
) -> None:
    target = tmp_path / "skills"
    skill_md = target / "tapemind-memory" / "SKILL.md"
    first = CliRunner().invoke(cli, ["skill", "install", "--target", str(target)])
    assert first.exit_code == 0 and str(skill_md) in first.output
    again = CliRunner().invoke(cli, ["skill", "install", "--target", str(target)])
    assert again.exit_code == 0 and "already up to date" in again.output
    shipped = skill_md.read_text(encoding="utf-8")

    skill_md.write_text(shipped + "\n我自己加的一条规则。\n", encoding="utf-8")
    refused = CliRunner().invoke(cli, ["skill", "install", "--target", str(target)])
    assert refused.exit_code == 2
    assert str(skill_md) in refused.output and "--force" in refused.output
    assert skill_md.read_text(encoding="utf-8").endswith("我自己加的一条规则。\n")

    forced = CliRunner().invoke(
        cli, ["--json", "skill", "install", "--target", str(target), "--force"]
    )
    assert forced.exit_code == 0 and json.loads(forced.output)["status"] == "updated"
    assert skill_md.read_text(encoding="utf-8") == shipped


def test_skill_install_into_the_skill_folder_itself_is_not_nested(tmp_path: Path) -> None:
    # `--target ~/.claude/skills/tapemind-memory`: no client looks two levels down.
    folder = tmp_path / ".claude" / "skills" / "tapemind-memory"
    result = CliRunner().invoke(cli, ["--json", "skill", "install", "--target", str(folder)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["installed"] == str(folder)
    assert (folder / "SKILL.md").is_file() and not (folder / "tapemind-memory").exists()


def test_mcp_typed_in_a_terminal_says_it_waits_for_a_client(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A person trying `tapemind mcp --agent A` by hand would otherwise see nothing at all.
    import app.cli.host_cmds as host_cmds

    engine.add_agent("A")
    monkeypatch.setattr(host_cmds, "_stdin_is_terminal", lambda: True)
    result = CliRunner().invoke(cli, ["--home", str(engine.home), "mcp", "--agent", "A"], input="")
    assert result.exit_code == 0, result.output
    assert "waiting for an MCP client on stdin" in result.stderr
    assert "tapemind agent token A" in result.stderr
