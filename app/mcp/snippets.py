"""Client configuration snippets for an agent: Claude Code, Codex and DeepChat,
over HTTP (through the host, with the agent's bearer token) and over stdio."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PORT = 7821
SERVER_NAME = "tapemind"


@dataclass(frozen=True)
class Snippet:
    client: str
    transport: str  # http | stdio
    where: str  # where to paste or run it
    text: str


def stdio_args(home: Path, agent: str) -> list[str]:
    return ["--home", str(home), "mcp", "--agent", agent]


def snippets(agent: str, token: str, url: str, home: Path) -> list[Snippet]:
    """Every snippet for `agent`; `url` is the host's MCP endpoint (…/mcp)."""
    bearer = f"Bearer {token}"
    args = stdio_args(home, agent)
    env_var = "TAPEMIND_TOKEN_" + "".join(c if c.isalnum() else "_" for c in agent).upper()
    http_json = {
        "mcpServers": {
            SERVER_NAME: {"type": "http", "url": url, "headers": {"Authorization": bearer}}
        }
    }
    stdio_json = {
        "mcpServers": {SERVER_NAME: {"type": "stdio", "command": "tapemind", "args": args}}
    }
    deepchat_http = {
        "mcpServers": {
            SERVER_NAME: {
                "type": "http",
                "baseUrl": url,
                "customHeaders": {"Authorization": bearer},
            }
        }
    }
    deepchat_stdio = {
        "mcpServers": {SERVER_NAME: {"type": "stdio", "command": "tapemind", "args": args}}
    }
    toml_args = ", ".join(json.dumps(a, ensure_ascii=False) for a in args)
    return [
        Snippet(
            "Claude Code",
            "http",
            "run in a shell",
            f"claude mcp add --transport http {SERVER_NAME} {url} "
            f"--header {shlex.quote('Authorization: ' + bearer)}",
        ),
        Snippet("Claude Code", "http", ".mcp.json", json.dumps(http_json, indent=2)),
        Snippet(
            "Claude Code",
            "stdio",
            "run in a shell",
            f"claude mcp add {SERVER_NAME} -- tapemind {shlex.join(args)}",
        ),
        Snippet(
            "Claude Code",
            "stdio",
            ".mcp.json",
            json.dumps(stdio_json, indent=2, ensure_ascii=False),
        ),
        Snippet(
            "Codex",
            "http",
            f"~/.codex/config.toml (and `export {env_var}={token}` before starting codex)",
            f'[mcp_servers.{SERVER_NAME}]\nurl = "{url}"\nbearer_token_env_var = "{env_var}"',
        ),
        Snippet(
            "Codex",
            "stdio",
            "~/.codex/config.toml",
            f'[mcp_servers.{SERVER_NAME}]\ncommand = "tapemind"\nargs = [{toml_args}]',
        ),
        Snippet(
            "DeepChat",
            "http",
            "Settings → MCP → add server → import JSON",
            json.dumps(deepchat_http, indent=2),
        ),
        Snippet(
            "DeepChat",
            "stdio",
            "Settings → MCP → add server → import JSON",
            json.dumps(deepchat_stdio, indent=2, ensure_ascii=False),
        ),
    ]
