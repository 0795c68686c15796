"""Over MCP, a grown skill never gives an agent what the owner took back: a value stored in
the vault after the skill was accepted reads as a marker, and a skill resting on a
forgotten memory is neither listed nor given (prompts and resources, HTTP and stdio), in
English (agent A) and Chinese (agent B), until the owner accepts a version without it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from app import Engine
from tests.insight_cases import DEPLOY_EN, SLOWSQL_ZH, learn, proposal_for
from tests.pg import module_database

from .mcp_helpers import cli, http_client, start_serve, stdio_client, stop

pytestmark = pytest.mark.heavy  # real processes: not in make test-fast

VALUE = "Zq8-deploy-token-42"
ZH_VALUE = "数据库口令-Xk9#"


def grow(engine: Engine, agent: str, items: Any) -> tuple[list[int], Any]:
    ids = learn(engine, agent, items)
    engine.report_used(agent, f"{agent}-use-{ids[0]}", ids)  # a turn of its own
    return ids, engine.accept_proposal(proposal_for(engine.insights(agent), ids).id)


def with_value(items: Any, at: int, said: str) -> list[Any]:
    out = list(items)
    out[at] = (*out[at][:2], out[at][2] + said)
    return out


@pytest.fixture(scope="module")
def home_of(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """A: an English skill quoting a value later stored in the vault, and a Chinese one
    whose memory was forgotten; B: the other way round."""
    home = tmp_path_factory.mktemp("words") / "home"
    with Engine.open(home, create=True, database_url=module_database(request)) as engine:
        out: dict[str, Any] = {"home": home}
        for agent, (kept, kept_value, dropped) in {
            "A": ((DEPLOY_EN, 1, f" (log in with {VALUE})"), VALUE, SLOWSQL_ZH),
            "B": ((SLOWSQL_ZH, 0, f"（登录口令 {ZH_VALUE}）"), ZH_VALUE, DEPLOY_EN),
        }.items():
            engine.add_agent(agent)
            _, served = grow(engine, agent, with_value(*kept))
            dropped_ids, held = grow(engine, agent, dropped)
            words = engine.memory(dropped_ids[1]).memory.text
            engine.forget(dropped_ids[1])
            assert held.name != served.name and engine.skill(agent, held.name).withheld
            out[agent] = {"served": served, "held": held, "words": words, "value": kept_value}
        out["tokens"] = {name: engine.agent_token(name).token for name in ("A", "B")}
    # As the owner would, and with the passphrase the host is given (no keychain here).
    cli(home, "vault", "set", "DEPLOY_LOGIN", stdin=VALUE)
    cli(home, "vault", "set", "DB_LOGIN", stdin=ZH_VALUE)
    proc, url = start_serve(home)
    out["url"] = url
    try:
        yield out
    finally:
        stop(proc)


async def what_agent_gets(client: Client, case: dict[str, Any]) -> None:
    served, held, words, value = case["served"], case["held"], case["words"], case["value"]
    prompts = [p.name for p in (await client.list_prompts()).prompts]
    assert prompts == ["tapemind-memory", served.name]  # the held one is not listed
    resources = [r.uri for r in (await client.list_resources()).resources]
    assert f"tapemind://skills/{held.name}" not in resources
    got = (await client.get_prompt(served.name)).messages[0].content.text
    read = (await client.read_resource(f"tapemind://skills/{served.name}")).contents[0].text
    for text in (got, read):
        assert value not in text and "[secret]" in text
    for call in (
        client.get_prompt(held.name),
        client.read_resource(f"tapemind://skills/{held.name}"),
    ):
        with pytest.raises(MCPError, match="held back until the owner reviews it") as refused:
            await call
        said = refused.value.error.model_dump_json()
        assert words not in said and held.name not in said


def test_over_http_an_agent_gets_no_value_and_no_forgotten_words(home_of: dict) -> None:
    async def session() -> None:
        for agent in ("A", "B"):
            async with http_client(home_of["url"], home_of["tokens"][agent]) as client:
                await what_agent_gets(client, home_of[agent])

    anyio.run(session)


def test_over_stdio_an_agent_gets_no_value_and_no_forgotten_words(home_of: dict) -> None:
    async def session() -> None:
        for agent in ("A", "B"):
            async with stdio_client(home_of["home"], agent) as client:
                await what_agent_gets(client, home_of[agent])

    anyio.run(session)
