"""Skills and memories over MCP beside the tools: prompts/list|get give the memory skill and
the agent's grown skills, resources/list|read its skills and memories as tapemind:// URIs.
Real clients (the Python SDK over HTTP and stdio, the TypeScript SDK) against a real host;
each agent sees only its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from app import Engine
from tests.insight_cases import DEPLOY_EN, SLOWSQL_ZH, learn, proposal_for
from tests.pg import module_database

from .mcp_helpers import http_client, start_serve, stdio_client, stop
from .test_typescript_client import TOOLS, ts_calls

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

MEMORY_SKILL = (resources.files("resources") / "skills" / "tapemind-memory" / "SKILL.md").read_text(
    "utf-8"
)


def grow(engine: Engine, agent: str, items: Any) -> tuple[list[int], Any]:
    ids = learn(engine, agent, items)
    engine.report_used(agent, f"{agent}-turn", ids)
    proposal = proposal_for(engine.insights(agent), ids)
    return ids, engine.accept_proposal(proposal.id)


@pytest.fixture(scope="module")
def grown(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """A host serving agents A (an English grown skill) and B (a Chinese one)."""
    home = tmp_path_factory.mktemp("skills") / "home"
    with Engine.open(home, create=True, database_url=module_database(request)) as engine:
        engine.add_agent("A")
        engine.add_agent("B")
        a_ids, a_skill = grow(engine, "A", DEPLOY_EN)
        b_ids, b_skill = grow(engine, "B", SLOWSQL_ZH)
        tokens = {name: engine.agent_token(name).token for name in ("A", "B")}
    proc, url = start_serve(home)
    try:
        yield {"home": home, "url": url, "tokens": tokens, "A": (a_ids, a_skill),
               "B": (b_ids, b_skill)}  # fmt: skip
    finally:
        stop(proc)


def test_an_agent_gets_its_skills_as_prompts_and_resources_over_http(grown: dict) -> None:
    a_ids, a_skill = grown["A"]
    b_ids, b_skill = grown["B"]

    async def session() -> None:
        async with http_client(grown["url"], grown["tokens"]["A"]) as client:
            tools = await client.list_tools()
            assert {t.name for t in tools.tools} == TOOLS  # the toolbox as before
            caps = client.server_capabilities
            assert caps is not None and caps.prompts is not None and caps.resources is not None
            prompts = await client.list_prompts()
            assert [p.name for p in prompts.prompts] == ["tapemind-memory", a_skill.name]
            assert prompts.prompts[1].description == a_skill.description
            manual = await client.get_prompt("tapemind-memory")
            assert manual.messages[0].content.text == MEMORY_SKILL
            mine = await client.get_prompt(a_skill.name)
            assert mine.messages[0].role == "user"
            assert mine.messages[0].content.text == a_skill.text
            with pytest.raises(MCPError, match="no prompt of yours") as refused:
                await client.get_prompt(b_skill.name)  # B's skill: not A's to read
            assert b_skill.description not in str(refused.value)

            listed = await client.list_resources()
            uris = [r.uri for r in listed.resources]
            assert uris[:2] == ["tapemind://skills/tapemind-memory",
                                f"tapemind://skills/{a_skill.name}"]  # fmt: skip
            memory_uris = {u for u in uris if u.startswith("tapemind://memories/")}
            assert memory_uris == {f"tapemind://memories/{i}" for i in a_ids}
            assert listed.next_cursor is None
            read = await client.read_resource(f"tapemind://memories/{a_ids[1]}")
            detail = json.loads(read.contents[0].text)
            assert detail["memory"]["id"] == a_ids[1] and detail["sources"]
            assert read.contents[0].mime_type == "application/json"
            skill_md = await client.read_resource(f"tapemind://skills/{a_skill.name}")
            assert skill_md.contents[0].text == a_skill.text
            for uri in (f"tapemind://memories/{b_ids[0]}", f"tapemind://skills/{b_skill.name}",
                        "tapemind://secrets/GITHUB", "file:///etc/passwd"):  # fmt: skip
                with pytest.raises(MCPError, match="No resource"):
                    await client.read_resource(uri)
            templates = await client.list_resource_templates()
            assert {t.uri_template for t in templates.resource_templates} == {
                "tapemind://memories/{id}", "tapemind://skills/{name}"
            }  # fmt: skip
            with pytest.raises(MCPError, match="cursor"):
                await client.list_resources(cursor="not-ours")

    anyio.run(session)


def test_a_chinese_skill_over_stdio_for_its_own_agent(grown: dict) -> None:
    _, b_skill = grown["B"]

    async def session() -> None:
        async with stdio_client(grown["home"], "B") as client:
            prompts = await client.list_prompts()
            assert [p.name for p in prompts.prompts] == ["tapemind-memory", b_skill.name]
            got = await client.get_prompt(b_skill.name)
            text = got.messages[0].content.text
            assert text == b_skill.text and "## 步骤" in text

    anyio.run(session)


def test_the_typescript_client_lists_and_reads_prompts_and_resources(grown: dict) -> None:
    a_ids, a_skill = grown["A"]
    b_ids, _ = grown["B"]
    calls = [
        {"method": "listPrompts", "params": {}},
        {"method": "getPrompt", "params": {"name": a_skill.name}},
        {"method": "listResources", "params": {}},
        {"method": "readResource", "params": {"uri": f"tapemind://memories/{a_ids[0]}"}},
        {"method": "readResource", "params": {"uri": f"tapemind://memories/{b_ids[0]}"}},
    ]
    got = ts_calls(grown["url"], grown["tokens"]["A"], calls)
    assert "prompts" in got["capabilities"] and "resources" in got["capabilities"]
    assert {t["name"] for t in got["tools"]} == TOOLS
    listed, prompt, resources_, memory, foreign = got["results"]
    assert [p["name"] for p in listed["result"]["prompts"]] == ["tapemind-memory", a_skill.name]
    assert prompt["result"]["messages"][0]["content"]["text"] == a_skill.text
    assert f"tapemind://skills/{a_skill.name}" in {r["uri"] for r in resources_["result"]
                                                  ["resources"]}  # fmt: skip
    assert json.loads(memory["result"]["contents"][0]["text"])["memory"]["id"] == a_ids[0]
    assert "No resource" in foreign["rpcError"]["message"]
