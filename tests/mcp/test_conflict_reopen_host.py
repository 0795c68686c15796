"""The whole path of a misclick, for real: agent A remembers two contradicting things over
MCP, the owner settles the conflict with the CLI through the running host, takes it back
with `conflicts reopen`, and A's next context marks both sides disputed again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from .mcp_helpers import cli, cli_json, data, http_client


def test_reopen_through_the_host_brings_the_dispute_back_to_the_agent(
    served: tuple[Path, str, dict[str, str]],
) -> None:
    home, url, tokens = served

    async def as_a(calls: Any) -> Any:
        async with http_client(url, tokens["A"]) as client:
            return await calls(client)

    async def contradict(client: Any) -> tuple[int, int, int]:
        old = data(
            await client.call_tool(
                "remember", {"text": "部署窗口是每周五", "category": "project_fact"}
            )
        )
        new = data(await client.call_tool(
            "remember", {"text": "部署窗口是每周三", "category": "project_fact"}))  # fmt: skip
        assert new["decision"] == "conflict", new
        return new["conflict_id"], old["memory"]["id"], new["memory"]["id"]

    async def context(client: Any) -> str:
        return str(data(await client.call_tool("context", {"query": "部署窗口"}))["text"])

    cid, old_id, _new_id = anyio.run(as_a, contradict)
    cli(home, "conflicts", "resolve", str(cid), "--keep", "old")  # meant: new
    block = anyio.run(as_a, context)
    assert "每周三" not in block and "disputed" not in block
    reopened = cli_json(home, "conflicts", "reopen", str(cid))
    assert reopened["status"] == "open" and reopened["challenger"]["memory"]["status"] == "active"
    block = anyio.run(as_a, context)
    assert f"disputed by m{old_id}, not settled" in block and "每周三" in block
    cli(home, "conflicts", "resolve", str(cid), "--keep", "new")
    block = anyio.run(as_a, context)
    assert "每周三" in block and "每周五" not in block and "disputed" not in block
    audit = cli_json(home, "audit", "--agent", "A", "--action", "conflict.reopen")
    assert [row["object_ids"][0] for row in audit] == [cid]
