"""What an agent reads when a tool fails: advice in tools and arguments it can use, never
a `tapemind` command it cannot run; the CLI keeps the commands for people."""

from __future__ import annotations

import pytest

from app import Engine
from app.engine import runtime_of
from app.errors import NotFound
from app.mcp.server import run_tool
from app.vault.service import for_runtime as vault_of
from tests.conftest import MemoryKeyring


def test_an_index_not_ready_yet_points_the_agent_to_full_text(engine: Engine) -> None:
    engine.add_agent("A")
    engine.remember("A", "部署在周五下午", "project_fact")
    refused = run_tool(engine, "A", "search", {"query": "部署", "mode": "semantic"})
    assert refused.is_error
    text = refused.content[0].text
    assert 'mode "fulltext"' in text and "tapemind" not in text and "--mode" not in text
    # A hybrid search falls back to full-text by itself and says so, without advice.
    found = run_tool(engine, "A", "search", {"query": "部署"})
    assert found.structured_content is not None
    assert found.structured_content["hits"]
    (note,) = found.structured_content["notes"]
    assert "full-text only" in note and "tapemind" not in note


def test_an_unknown_memory_points_the_agent_to_its_tools(engine: Engine) -> None:
    engine.add_agent("A")
    refused = run_tool(engine, "A", "memory", {"id": 999})
    assert refused.is_error
    text = refused.content[0].text
    assert "`search`" in text and "tapemind" not in text and "[not_found]" in text
    # A person at the CLI still gets the command.
    with pytest.raises(NotFound, match="tapemind memory list"):
        engine.memory(999, agent="A")


def test_unknown_ids_and_names_say_where_an_agent_finds_real_ones(engine: Engine) -> None:
    engine.add_agent("A")
    used = run_tool(engine, "A", "used", {"turn": "t1", "memory_ids": [999]})
    assert used.is_error
    assert "`context` or `search`" in used.content[0].text
    remembered = run_tool(
        engine,
        "A",
        "remember",
        {"text": "部署在周五", "category": "project_fact", "parents": [999]},
    )
    assert remembered.is_error and "`context` or `search`" in remembered.content[0].text
    secret = run_tool(engine, "A", "request_secret", {"name": "NOPE_TOKEN", "reason": "deploy"})
    assert secret.is_error
    text = secret.content[0].text
    assert "ask them to store it" in text and "tapemind" not in text


def test_a_missing_tape_entry_points_the_agent_to_where_ids_come_from(engine: Engine) -> None:
    engine.add_agent("A")
    refused = run_tool(engine, "A", "tape", {"around": 4242})
    assert refused.is_error
    text = refused.content[0].text
    assert "No entry 4242 on your tape" in text and "`append`" in text
    assert "tapemind" not in text


def test_an_agent_the_home_lacks_is_for_the_user_to_fix_not_the_model(engine: Engine) -> None:
    # `tapemind mcp --agent 助手` on a home without 助手: every call says it is a setup
    # problem the model cannot solve with arguments, and what the user does about it.
    refused = run_tool(engine, "助手", "context", {"query": "部署"})
    assert refused.is_error
    text = refused.content[0].text
    assert "acts for agent '助手'" in text and "no argument can change that" in text
    # Advice an agent can pass on, in the product's words, never a command line to run.
    assert "Tell the user to add the agent" in text and "`tapemind" not in text
    with pytest.raises(NotFound, match="tapemind agent list"):  # the CLI's message stays
        engine.agent("助手")


def test_request_secret_says_what_each_status_means_and_pending_is_one(engine: Engine) -> None:
    # Without wait_seconds the owner has not answered yet: the agent must know that
    # `pending` means "ask again later", which the description tells it.
    from app.mcp.tools import TOOLS

    engine.add_agent("A")
    engine.set_secret("GITHUB_TOKEN", "ghp_示例value")
    asked = run_tool(engine, "A", "request_secret", {"name": "GITHUB_TOKEN", "reason": "推送标签"})
    assert asked.structured_content is not None
    assert asked.structured_content["status"] == "pending"
    module = TOOLS["request_secret"]
    for status in ("allowed", "denied", "pending", "expired"):
        assert f"{status} (" in module.DESCRIPTION, status
    wait = module.Args.model_json_schema()["properties"]["wait_seconds"]["description"]
    assert "default 0" in wait and "pending" in wait


def test_the_type_mistakes_models_make_most_get_a_hint_once(engine: Engine) -> None:
    # `context` shows memories as [m12]; models copy the prefix, quote numbers and send a
    # list as a string of JSON. Each error says how to write it, once per call.
    engine.add_agent("A")

    def text(tool: str, args: dict) -> str:
        result = run_tool(engine, "A", tool, args)
        assert result.is_error
        return str(result.content[0].text)

    used = text("used", {"turn": "t1", "memory_ids": ["m12", "m13"]})
    assert "memory_ids.0" in used and "memory_ids.1" in used
    assert used.count("[m12] is 12") == 1
    assert "[m12] is 12" in text("memory", {"id": "m3"})
    assert "without quotes" in text("context", {"budget": "500"})
    assert "without quotes" in text("tape", {"around": "17"})
    listed = text("append", {"entries": '[{"thread": "t", "role": "user", "text": "你好"}]'})
    assert "a JSON array itself, not a string" in listed
    assert "你好" not in listed  # the values sent are never echoed


def test_a_host_without_the_vault_key_tells_the_agent_to_ask_for_it(
    engine: Engine, memory_keyring: MemoryKeyring
) -> None:
    engine.add_agent("A")
    engine.configure_agent("A", permission_mode="auto")
    engine.set_secret("GITHUB_TOKEN", "ghp_示例value-0123456789")
    # This host never had the key: its keyring is empty and nothing is unlocked.
    memory_keyring.entries.clear()
    vault_of(runtime_of(engine), engine.home_id).close()
    asked = run_tool(engine, "A", "request_secret", {"name": "GITHUB_TOKEN", "reason": "deploy"})
    assert asked.is_error
    text = asked.content[0].text
    assert "import-key" in text and "export-key" in text and "request_secret again" in text
    assert "tapemind" not in text.replace("Tapemind host", "")
