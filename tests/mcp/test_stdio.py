"""An agent over stdio: the SDK's client launches `tapemind mcp --agent A`."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from .mcp_helpers import (
    cli,
    cli_json,
    counts,
    data,
    error_text,
    start_serve,
    stdio_client,
    stop,
    wait_for_host,
)

# tool -> (required arguments, all arguments): the names match the CLI's.
TOOLS = {
    "context": (set(), {"thread", "user", "query", "budget"}),
    "append": ({"entries"}, {"entries"}),
    "remember": (
        {"text", "category"},
        {"text", "category", "sources", "importance", "parents", "turn", "thread", "key"},
    ),
    "search": (
        {"query"},
        {
            "query",
            "scope",
            "mode",
            "category",
            "status",
            "thread",
            "since",
            "until",
            "limit",
            "offset",
        },
    ),
    "tape": (
        set(),
        {"thread", "turn", "kinds", "around", "since", "until", "limit", "max_chars"},
    ),
    "memory": ({"id"}, {"id"}),
    "used": ({"turn", "memory_ids"}, {"turn", "memory_ids"}),
    "request_secret": ({"name", "reason"}, {"name", "reason", "wait_seconds"}),
}


def test_an_agent_over_stdio_lists_tools_appends_remembers_and_reads(two_agents: Path) -> None:
    home = two_agents
    cli(home, "vault", "set", "GITHUB_TOKEN", stdin="ghp_示例value\n")
    cli(home, "vault", "mode", "GITHUB_TOKEN", "auto")

    async def session() -> None:
        async with stdio_client(home, "A") as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert set(listed) == set(TOOLS)
            for name, (required, names) in TOOLS.items():
                schema = listed[name].input_schema
                assert set(schema.get("required", [])) == required, name
                assert set(schema["properties"]) == names, name
                assert schema.get("additionalProperties") is False, name
                assert listed[name].description
                for prop in schema["properties"].values():
                    assert prop.get("description"), name

            turn = [
                {
                    "thread": "t1",
                    "turn": "u1",
                    "kind": "message",
                    "role": "user",
                    "text": "以后代码缩进都用 tab",
                },
                {
                    "thread": "t1",
                    "turn": "u1",
                    "kind": "message",
                    "role": "assistant",
                    "text": "好的，以后用 tab。",
                },
            ]
            ids = data(await client.call_tool("append", {"entries": turn}))["ids"]
            assert len(ids) == 2

            # While this stdio server owns the home, the CLI goes through it.
            shown = cli_json(home, "tape", "show", "--agent", "A")
            assert [e["text"] for e in shown] == [e["text"] for e in turn]

            result = data(
                await client.call_tool(
                    "remember",
                    {
                        "text": "用户要求代码缩进用 tab",
                        "category": "preference",
                        "sources": [ids[0]],
                        "turn": "u1",
                    },
                )
            )
            assert result["decision"] == "add"
            memory_id = result["memory"]["id"]

            detail = data(await client.call_tool("memory", {"id": memory_id}))
            assert [s["id"] for s in detail["sources"]] == [ids[0]]

            entries = data(await client.call_tool("tape", {"thread": "t1", "kinds": ["message"]}))
            assert [e["id"] for e in entries["entries"]] == ids

            block = data(
                await client.call_tool(
                    "context", {"thread": "t1", "query": "代码缩进用什么？", "budget": 200}
                )
            )
            assert memory_id in block["included"]
            assert "tab" in block["text"]

            found = data(await client.call_tool("search", {"query": "缩进", "mode": "fulltext"}))
            assert [h["id"] for h in found["hits"]] == [memory_id]

            used = data(await client.call_tool("used", {"turn": "u2", "memory_ids": [memory_id]}))
            assert used["recorded"] == [memory_id]

            # Secrets: granted at once in auto mode, the value reaches this agent only.
            secret = data(
                await client.call_tool(
                    "request_secret", {"name": "GITHUB_TOKEN", "reason": "push the release branch"}
                )
            )
            assert secret["status"] == "allowed" and secret["value"] == "ghp_示例value"
            missing = error_text(
                await client.call_tool("request_secret", {"name": "NOPE", "reason": "just looking"})
            )
            assert "No secret by that name" in missing and "ghp_" not in missing

            # A tool's text content is the same JSON as its structured content.
            raw = await client.call_tool("tape", {"limit": 1})
            assert json.loads(raw.content[0].text) == raw.structured_content

    anyio.run(session)
    after = counts(home)
    assert after["tape_entries"] == 2 and after["memories"] == 1 and after["memory_uses"] == 1


def test_stdio_for_an_unknown_agent_answers_with_what_to_do(two_agents: Path) -> None:
    async def session() -> str:
        async with stdio_client(two_agents, "nobody") as client:
            return error_text(await client.call_tool("tape", {}))

    message = anyio.run(session)
    assert "acts for agent 'nobody'" in message and "Tell the user to add the agent" in message


def test_a_stdio_server_outlives_its_host(two_agents: Path) -> None:
    home = two_agents
    proc, _url = start_serve(home)

    async def session() -> None:
        async with stdio_client(home, "A") as client:
            first = data(
                await client.call_tool(
                    "append",
                    {"entries": [{"thread": "t", "role": "user", "text": "through the host"}]},
                )
            )["ids"]
            stop(proc)
            # The call that finds the host gone says so; the next one opens the home itself.
            gone = await client.call_tool("tape", {})
            if gone.is_error:
                assert "Run the command again" in gone.content[0].text
            after = data(
                await client.call_tool(
                    "append",
                    {"entries": [{"thread": "t", "role": "user", "text": "owning the home"}]},
                )
            )["ids"]
            assert after[0] > first[0]
            # Now this stdio server is the host the CLI goes through.
            assert wait_for_host(home)["role"] == "mcp"
            texts = [e["text"] for e in cli_json(home, "tape", "show", "--agent", "A")]
            assert texts == ["through the host", "owning the home"]

    try:
        anyio.run(session)
    finally:
        stop(proc)


def test_a_stdio_server_that_owns_the_home_embeds_what_its_agent_writes(two_agents: Path) -> None:
    home = two_agents

    async def session() -> None:
        async with stdio_client(home, "A") as client:
            made = data(
                await client.call_tool(
                    "remember", {"text": "用户喜欢用 Postgres 数据库", "category": "preference"}
                )
            )
            assert made["memory"] is not None
            # No other host runs: this server owns the home and runs the host's jobs, so
            # the indexer embeds the new memory in the background.
            assert wait_for_host(home)["role"] == "mcp"
            status: dict = {}
            with anyio.fail_after(90):
                while True:
                    status = cli_json(home, "index", "status")
                    if status["unembedded_total"] == 0 and status["indexed"]["memory"] >= 1:
                        break
                    await anyio.sleep(0.5)
            hits = data(await client.call_tool("search", {"query": "数据库", "mode": "semantic"}))
            assert [h["id"] for h in hits["hits"]] == [made["memory"]["id"]]

    anyio.run(session)
