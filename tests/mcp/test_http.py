"""Agents over streamable HTTP through a real `tapemind serve`, each with its own token."""

from __future__ import annotations

import anyio
import httpx

from bench.mcp.raw_client import VERSION, host_ms

from .mcp_helpers import cli_json, data, error_text, http_client


def post_tools_list(url: str, token: str | None) -> httpx.Response:
    headers = {"Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    return httpx.post(f"{url}/mcp", json=body, headers=headers, timeout=30)


def test_missing_wrong_or_foreign_tokens_get_401_and_nothing_else(served: tuple) -> None:
    home, url, tokens = served
    for token in (None, "tm_wrong", "Bearer", tokens["A"] + "x", tokens["A"][:-1]):
        response = post_tools_list(url, token)
        assert response.status_code == 401, token
        assert "tools" not in response.text and "append" not in response.text
    # The owner token opens the owner endpoint only, never MCP.
    owner = (home / "host-owner.token").read_text()
    assert post_tools_list(url, owner).status_code == 401
    # An agent token never opens the owner endpoint.
    rpc = httpx.post(
        f"{url}/rpc",
        json={"method": "agents", "args": [], "kwargs": {}},
        headers={"Authorization": f"Bearer {tokens['A']}"},
    )
    assert rpc.status_code == 401


def test_every_answer_says_how_long_the_host_took(served: tuple) -> None:
    """A standard Server-Timing header (what the overhead benchmark splits round trips by)."""
    _, url, tokens = served
    headers = {
        "Authorization": f"Bearer {tokens['A']}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "context",
    }
    meta = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "context", "arguments": {"query": "部署"}, "_meta": meta}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    response = httpx.post(f"{url}/mcp", json=body, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    took = host_ms(response.headers["server-timing"])
    assert took is not None and took >= 0
    assert host_ms("db;dur=2, host;dur=1.5") == 1.5 and host_ms(None) is None


def test_an_agent_appends_remembers_and_reads_over_http(served: tuple) -> None:
    _home, url, tokens = served

    async def session() -> None:
        async with http_client(url, tokens["A"]) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"append", "remember", "context", "search", "tape", "memory", "used"} <= names
            ids = data(
                await client.call_tool(
                    "append",
                    {
                        "entries": [
                            {
                                "thread": "h1",
                                "turn": "h1-1",
                                "kind": "message",
                                "role": "user",
                                "text": "The staging database is called stg-eu-2.",
                            },
                            {
                                "thread": "h1",
                                "turn": "h1-1",
                                "kind": "message",
                                "role": "assistant",
                                "text": "Noted: staging is stg-eu-2.",
                            },
                        ]
                    },
                )
            )["ids"]
            made = data(
                await client.call_tool(
                    "remember",
                    {
                        "text": "The staging database is stg-eu-2.",
                        "category": "project_fact",
                        "sources": ids[:1],
                        "importance": 0.7,
                    },
                )
            )
            assert made["decision"] == "add" and made["source_ids"] == ids[:1]
            detail = data(await client.call_tool("memory", {"id": made["memory"]["id"]}))
            assert detail["memory"]["agent"] == "A"
            answer = await client.call_tool("context", {"query": "staging database name"})
            block = data(answer)
            assert made["memory"]["id"] in block["included"]
            # The model reads the block itself, then one line of manifest; not JSON.
            assert answer.content[0].text.startswith(block["text"] + "\n\n(1 memory,")
            used = data(
                await client.call_tool(
                    "used", {"turn": "h1-2", "memory_ids": [made["memory"]["id"]]}
                )
            )
            assert used["recorded"] == [made["memory"]["id"]]

    anyio.run(session)


def test_agent_a_never_reaches_agent_b_data(served: tuple) -> None:
    home, url, tokens = served

    async def as_agent(token: str, body: object) -> object:
        async with http_client(url, token) as client:
            return await body(client)  # type: ignore[operator]

    async def b_writes(client) -> tuple[int, int]:  # type: ignore[no-untyped-def]
        ids = data(
            await client.call_tool(
                "append",
                {
                    "entries": [
                        {
                            "thread": "b-private",
                            "turn": "b1",
                            "role": "user",
                            "text": "B 的秘密项目代号是青鸟",
                        },
                    ]
                },
            )
        )["ids"]
        made = data(
            await client.call_tool(
                "remember", {"text": "项目代号是青鸟", "category": "project_fact", "sources": ids}
            )
        )
        return ids[0], made["memory"]["id"]

    b_entry, b_memory = anyio.run(as_agent, tokens["B"], b_writes)

    async def a_probes(client) -> None:  # type: ignore[no-untyped-def]
        assert "not_found" in error_text(await client.call_tool("memory", {"id": b_memory}))
        tape = data(await client.call_tool("tape", {"thread": "b-private"}))
        assert tape["entries"] == []
        around = await client.call_tool("tape", {"around": b_entry})
        assert around.is_error or around.structured_content["entries"] == []
        found = data(await client.call_tool("search", {"query": "青鸟", "scope": "all"}))
        assert found["hits"] == []
        block = data(await client.call_tool("context", {"query": "项目代号"}))
        assert b_memory not in block["included"]
        # Citing B's entry as a source or B's memory as a parent is refused.
        assert error_text(
            await client.call_tool(
                "remember", {"text": "代号青鸟", "category": "project_fact", "sources": [b_entry]}
            )
        )
        assert error_text(
            await client.call_tool(
                "remember", {"text": "代号青鸟", "category": "project_fact", "parents": [b_memory]}
            )
        )
        # Naming another agent in the arguments is refused, not obeyed.
        refused = error_text(await client.call_tool("tape", {"agent": "B"}))
        assert "identity comes from your connection" in refused

    anyio.run(as_agent, tokens["A"], a_probes)
    b_memories = cli_json(home, "memory", "list", "--agent", "B")
    assert [m["id"] for m in b_memories] == [b_memory]


def test_a_rotated_token_is_refused_at_once(served: tuple) -> None:
    home, url, tokens = served
    # A valid token passes authentication (the bare request then fails for want of a session).
    assert post_tools_list(url, tokens["B"]).status_code != 401
    rotated = cli_json(home, "agent", "token", "B", "--rotate")
    assert rotated["issued"] and rotated["token"] != tokens["B"]
    assert post_tools_list(url, tokens["B"]).status_code == 401
    assert post_tools_list(url, rotated["token"]).status_code != 401
    tokens["B"] = rotated["token"]
