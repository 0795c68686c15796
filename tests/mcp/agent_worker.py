"""One agent process for the concurrency test: TURNS turns over MCP HTTP, then a JSON report.

Run as `python -m tests.mcp.agent_worker URL TOKEN NAME TURNS [MODE]` (MODE: the SDK
client's protocol era, "auto" or "legacy" for an `initialize`d session).
"""

from __future__ import annotations

import json
import sys

import anyio

from .mcp_helpers import data, http_client


async def main(url: str, token: str, name: str, turns: int, mode: str = "auto") -> None:
    entry_ids: list[int] = []
    memory_ids: list[int] = []
    async with http_client(url, token, mode) as client:  # type: ignore[arg-type]
        for n in range(turns):
            turn = f"{name}-{n}"
            data(await client.call_tool("context", {"thread": name, "query": f"turn {n}"}))
            ids = data(
                await client.call_tool(
                    "append",
                    {
                        "entries": [
                            {
                                "thread": name,
                                "turn": turn,
                                "role": "user",
                                "text": f"{name} 第{n}轮：记录端口 {4000 + n}",
                            },
                            {
                                "thread": name,
                                "turn": turn,
                                "role": "assistant",
                                "text": f"好的 {name} {n}",
                            },
                        ]
                    },
                )
            )["ids"]
            entry_ids += ids
            made = data(
                await client.call_tool(
                    "remember",
                    {
                        "text": f"{name} service number {n} listens on port {4000 + n * 7}",
                        "category": "project_fact",
                        "sources": ids[:1],
                        "turn": turn,
                    },
                )
            )
            if made["memory"] is not None:
                memory_ids.append(made["memory"]["id"])
                data(
                    await client.call_tool(
                        "used", {"turn": turn, "memory_ids": [made["memory"]["id"]]}
                    )
                )
    print(json.dumps({"agent": name, "entries": entry_ids, "memories": memory_ids}))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:])
