"""The official TypeScript MCP client, the one Claude Code and DeepChat embed, against a real
`tapemind serve` (interop/typescript/calls.mjs; `make test` installs it with npm).

The Python SDK's client is driven everywhere else; this is what most agents actually speak:
a handshake-era session over streamable HTTP, its own schema checks of every answer.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app import Engine

from .mcp_helpers import ROOT, counts, env, tapemind_argv

CLIENT = ROOT / "interop" / "typescript"
TOOLS = {"append", "context", "memory", "remember", "request_secret", "search", "tape", "used"}


def ts_calls(where: str | list[str], token: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Open a session (to a host's URL with `token`, or over stdio with a server launched
    by the command `where`), list the tools, make `calls`; what the client got."""
    if (
        shutil.which("node") is None
        or not (CLIENT / "node_modules" / "@modelcontextprotocol").is_dir()
    ):
        pytest.fail(
            "The TypeScript MCP client is not installed: run `make setup-node` (Node.js, npm)."
        )
    done = subprocess.run(
        [
            "node",
            str(CLIENT / "calls.mjs"),
            *([where] if isinstance(where, str) else ["stdio", *where]),
        ],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**env(), "TAPEMIND_TOKEN": token},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_a_turn_in_chinese_through_the_typescript_client(served: tuple) -> None:
    _, url, tokens = served
    said = "以后 Python 代码一律用 4 个空格缩进。"
    entry = {"thread": "ts1", "turn": "1", "kind": "message", "role": "user", "text": said}
    got = ts_calls(url, tokens["A"], [{"name": "append", "arguments": {"entries": [entry]}}])
    [appended] = got["results"]
    assert not appended["isError"]
    [source] = appended["structured"]["ids"]
    # A session of the handshake era, with every tool and its input schema.
    assert got["protocolVersion"] and got["protocolVersion"] < "2026"
    assert {t["name"] for t in got["tools"]} == TOOLS
    assert all(t["inputSchema"]["type"] == "object" for t in got["tools"])

    fact = "用户要求 Python 代码一律用 4 个空格缩进。"
    remember = {"text": fact, "category": "preference", "sources": [source]}
    got = ts_calls(url, tokens["A"], [{"name": "remember", "arguments": remember}])
    [stored] = got["results"]
    memory_id = stored["structured"]["memory"]["id"]
    assert stored["structured"]["decision"] == "add"

    calls = [
        {"name": "context", "arguments": {"thread": "ts1", "query": "缩进"}},
        {"name": "search", "arguments": {"query": "空格缩进", "mode": "fulltext"}},
        {"name": "memory", "arguments": {"id": memory_id}},
        {"name": "used", "arguments": {"turn": "1", "memory_ids": [memory_id]}},
        {"name": "tape", "arguments": {"thread": "ts1"}},
    ]
    context, search, memory, used, tape = ts_calls(url, tokens["A"], calls)["results"]
    assert not any(r["isError"] for r in (context, search, memory, used, tape))
    # What the model reads: the block, then one manifest line; the manifest in structure.
    assert f"[m{memory_id}]" in context["text"] and fact in context["text"]
    assert context["text"].splitlines()[-1].startswith("(1 memory, ")
    assert context["structured"]["included"] == [memory_id]
    assert [h["id"] for h in search["structured"]["hits"]] == [memory_id]
    assert [s["id"] for s in memory["structured"]["sources"]] == [source]
    assert used["structured"]["recorded"] == [memory_id]
    assert [e["text"] for e in tape["structured"]["entries"]] == [said]


def test_an_agent_sees_only_its_own_home_through_the_typescript_client(served: tuple) -> None:
    _, url, tokens = served
    fact = "The staging database of project X is stg-7."
    [stored] = ts_calls(
        url,
        tokens["A"],
        [{"name": "remember", "arguments": {"text": fact, "category": "project_fact"}}],
    )["results"]
    memory_id = stored["structured"]["memory"]["id"]
    calls = [
        {"name": "search", "arguments": {"query": "staging database", "mode": "fulltext"}},
        {"name": "context", "arguments": {"query": "staging database"}},
        {"name": "memory", "arguments": {"id": memory_id}},
    ]
    search, context, memory = ts_calls(url, tokens["B"], calls)["results"]
    assert search["structured"]["hits"] == []
    assert fact not in context["text"] and context["structured"]["included"] == []
    assert memory["isError"] and fact not in memory["text"]


def test_wrong_tokens_and_bad_arguments_get_clean_refusals(served: tuple) -> None:
    home, url, tokens = served
    refused = ts_calls(url, "tm_wrong", [])
    assert "invalid_token" in refused["error"] and "tools" not in refused
    assert "tapemind agent token NAME" in refused["error"]  # what to do, in the agent's log
    before = counts(home)
    calls = [
        {"name": "context", "arguments": {"budget": "many"}},
        {"name": "remember", "arguments": {"text": "", "category": "preference"}},
        {"name": "append", "arguments": {"entries": [{"thread": "t", "role": "wizard"}]}},
        {"name": "used", "arguments": {"turn": "1", "memory_ids": [987654]}},
    ]
    results = ts_calls(url, tokens["A"], calls)["results"]
    assert all(r["isError"] for r in results), results
    assert "budget" in results[0]["text"] and "call it again" in results[0]["text"]
    assert all("Traceback" not in r["text"] for r in results)
    assert counts(home) == before  # nothing written by a refused call


def test_a_stdio_server_launched_by_the_typescript_client(two_agents: Path) -> None:
    """What Claude Code does with a stdio configuration: launch `tapemind mcp --agent A`
    (no host running: it opens the home itself) and talk to it over its pipes."""
    server = tapemind_argv(two_agents, "mcp", "--agent", "A")
    said = "部署在每周五下午进行。"
    calls = [
        {
            "name": "append",
            "arguments": {"entries": [{"thread": "s1", "role": "user", "text": said}]},
        },
        {"name": "remember", "arguments": {"text": said, "category": "project_fact"}},
        {"name": "context", "arguments": {"query": "部署"}},
    ]
    got = ts_calls(server, "", calls)
    assert got["server"] and {t["name"] for t in got["tools"]} == TOOLS
    _, stored, context = got["results"]
    assert not any(r["isError"] for r in got["results"]), got["results"]
    memory_id = stored["structured"]["memory"]["id"]
    assert context["structured"]["included"] == [memory_id] and said in context["text"]
    with Engine.open(two_agents) as engine:  # written to agent A's home, nothing to B's
        assert [m.id for m in engine.memories("A")] == [memory_id]
        assert engine.memories("B") == []
        assert engine.tape("A")[0].text == said and engine.tape("B") == []
