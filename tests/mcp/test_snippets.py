"""The client snippets of `tapemind agent token`: each parses in its client's format, and
what a client would build from it reaches the agent's memory (HTTP and stdio, for real)."""

from __future__ import annotations

import json
import re
import shlex
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from app import Engine
from app.host.snippets import CODEX_PASSED_VARIABLES, Snippet, snippets, token_env_var
from tests.pg import module_database

from .mcp_helpers import ROOT, data, env, start_serve, stop

AGENT = "写作助手"
EXE = "/opt/tapemind/bin/tapemind"


def pick(items: list[Snippet], client: str, transport: str, where: str) -> str:
    """The text of the one snippet for this client and transport whose place starts with
    `where` ("run in a shell", ".mcp.json", "~/.codex/config.toml", "Settings → MCP")."""
    (text,) = [
        s.text
        for s in items
        if (s.client, s.transport) == (client, transport) and s.where.startswith(where)
    ]
    return text


def expand(text: str, variables: dict[str, str]) -> str:
    """`${VAR}` as Claude Code expands it in .mcp.json."""
    return re.sub(r"\$\{(\w+)\}", lambda m: variables[m.group(1)], text)


@pytest.fixture
def made(tmp_path: Path) -> list[Snippet]:
    # A home whose path needs quoting in a shell and escaping in TOML and JSON.
    home = tmp_path / 'my "home" \\ 家'
    return snippets(AGENT, "tm_tok-EN_123", "http://127.0.0.1:7821/mcp", home, command=EXE)


def test_every_snippet_parses_in_its_clients_format(made: list[Snippet], tmp_path: Path) -> None:
    home = str(tmp_path / 'my "home" \\ 家')
    args = ["--home", home, "mcp", "--agent", AGENT]
    var = token_env_var(AGENT)
    assert {(s.client, s.transport) for s in made} == {
        (c, t) for c in ("Claude Code", "Codex", "DeepChat") for t in ("http", "stdio")
    }

    # Claude Code: options before the name, the stdio command after `--`.
    add_http = shlex.split(pick(made, "Claude Code", "http", "run in a shell"))
    # --scope user: memory follows the user into every project (the default, local scope,
    # would keep it to the folder the command was run in).
    assert add_http == [
        "claude", "mcp", "add", "--transport", "http", "--scope", "user", "tapemind",
        "http://127.0.0.1:7821/mcp", "--header", "Authorization: Bearer tm_tok-EN_123",
    ]  # fmt: skip
    add_stdio = shlex.split(pick(made, "Claude Code", "stdio", "run in a shell"))
    assert add_stdio[:8] == [
        "claude", "mcp", "add", "--transport", "stdio", "--scope", "user", "tapemind",
    ]  # fmt: skip
    assert add_stdio[8:] == ["--", EXE, *args]
    http = json.loads(pick(made, "Claude Code", "http", ".mcp.json"))["mcpServers"]["tapemind"]
    assert http == {
        "type": "http",
        "url": "http://127.0.0.1:7821/mcp",
        "headers": {"Authorization": f"Bearer ${{{var}}}"},
    }
    # .mcp.json is committed with a project: it names the variable, never the token.
    assert "tm_tok" not in pick(made, "Claude Code", "http", ".mcp.json")
    assert var in next(s.where for s in made if ".mcp.json" in s.where and s.transport == "http")
    stdio = json.loads(pick(made, "Claude Code", "stdio", ".mcp.json"))["mcpServers"]["tapemind"]
    assert stdio == {"type": "stdio", "command": EXE, "args": args}

    # Codex: a url table with the token's variable (Codex refuses an inline bearer_token),
    # a command table with no HTTP keys (Codex refuses a mix).
    codex_http = tomllib.loads(pick(made, "Codex", "http", "~/.codex/config.toml"))
    assert codex_http == {
        "mcp_servers": {
            "tapemind": {"url": "http://127.0.0.1:7821/mcp", "bearer_token_env_var": var}
        }
    }
    codex_stdio = tomllib.loads(pick(made, "Codex", "stdio", "~/.codex/config.toml"))
    assert codex_stdio == {
        "mcp_servers": {
            "tapemind": {"command": EXE, "args": args, "env_vars": list(CODEX_PASSED_VARIABLES)}
        }
    }
    assert shlex.split(pick(made, "Codex", "stdio", "run in a shell")) == [
        "codex", "mcp", "add", "tapemind", "--", EXE, *args,
    ]  # fmt: skip
    assert shlex.split(pick(made, "Codex", "http", "run in a shell")) == [
        "codex", "mcp", "add", "tapemind", "--url", "http://127.0.0.1:7821/mcp",
        "--bearer-token-env-var", var,
    ]  # fmt: skip
    # Every snippet says where it goes: a file by its path, or the shell with what it writes.
    for s in made:
        assert s.where.startswith(
            (
                "run in a shell (saved in",
                ".mcp.json at your project's root",
                "~/.codex/config.toml",
                "Settings → MCP",
            )
        ), s.where

    # DeepChat reads the first server of mcpServers: type, baseUrl, customHeaders / command.
    deepchat_http = json.loads(pick(made, "DeepChat", "http", "Settings → MCP"))["mcpServers"]
    assert list(deepchat_http) == ["tapemind"]
    entry = deepchat_http["tapemind"]
    assert entry["type"] == "http" and entry["baseUrl"] == "http://127.0.0.1:7821/mcp"
    assert entry["customHeaders"] == {"Authorization": "Bearer tm_tok-EN_123"}
    deepchat_stdio = json.loads(pick(made, "DeepChat", "stdio", "Settings → MCP"))["mcpServers"][
        "tapemind"
    ]
    assert deepchat_stdio["type"] == "stdio"
    # DeepChat adds a pasted server switched off: the instructions say to switch it on.
    for s in made:
        if s.client == "DeepChat":
            assert "switch the server on" in s.where
    assert (deepchat_stdio["command"], deepchat_stdio["args"]) == (EXE, args)


def test_token_variables_are_shell_names_and_distinct_per_agent() -> None:
    names = ["A", "agent-1", "写作助手", "写作助理", "助手", "a b"]
    made = [token_env_var(n) for n in names]
    assert made[0] == "TAPEMIND_TOKEN_A"
    assert all(re.fullmatch(r"[A-Z_][A-Z0-9_]*", v) for v in made), made
    assert len(set(made)) == len(made)


@pytest.fixture(scope="module")
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, str, str]]:
    home = tmp_path_factory.mktemp("snippets") / "home"
    with Engine.open(home, create=True, database_url=module_database(request)) as engine:
        engine.add_agent(AGENT)
        engine.add_agent("B")
        token = engine.agent_token(AGENT).token
        engine.agent_token("B")
    proc, url = start_serve(home)
    try:
        yield home, url, token
    finally:
        stop(proc)


async def remember_and_recall(client: Client, text: str) -> str:
    """Append a turn, remember it, and return the block `context` gives back."""
    ids = data(
        await client.call_tool(
            "append", {"entries": [{"thread": "s1", "role": "user", "text": text}]}
        )
    )["ids"]
    made = {"text": text, "category": "project_fact", "sources": ids}
    data(await client.call_tool("remember", made))
    block = data(await client.call_tool("context", {"query": text}))
    return str(block["text"])


def test_what_each_http_snippet_configures_reaches_the_agents_memory(served: tuple) -> None:
    home, base, token = served
    made = snippets(AGENT, token, f"{base}/mcp", home, command=EXE)
    var = token_env_var(AGENT)
    claude = json.loads(expand(pick(made, "Claude Code", "http", ".mcp.json"), {var: token}))
    codex = tomllib.loads(pick(made, "Codex", "http", "~/.codex/config.toml"))["mcp_servers"][
        "tapemind"
    ]
    deepchat = json.loads(pick(made, "DeepChat", "http", "Settings → MCP"))["mcpServers"][
        "tapemind"
    ]
    cli_args = shlex.split(pick(made, "Claude Code", "http", "run in a shell"))
    header_name, header_value = cli_args[cli_args.index("--header") + 1].split(": ", 1)
    claude_server = claude["mcpServers"]["tapemind"]
    codex_token = {var: token}[codex["bearer_token_env_var"]]  # what the shell exported
    configured = {
        "claude mcp add": (cli_args[8], {header_name: header_value}),
        ".mcp.json": (claude_server["url"], claude_server["headers"]),
        "codex": (codex["url"], {"Authorization": f"Bearer {codex_token}"}),
        "deepchat": (deepchat["baseUrl"], deepchat["customHeaders"]),
    }

    async def use(url: str, headers: dict[str, str], text: str) -> str:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
        ):
            return await remember_and_recall(client, text)

    for n, (name, (url, headers)) in enumerate(configured.items()):
        text = f"snippet {name} works: 第{n}号配置"
        assert text in anyio.run(use, url, headers, text), name


def test_what_the_stdio_snippet_launches_reaches_the_agents_memory(served: tuple) -> None:
    home, _base, token = served
    made = snippets(AGENT, token, "http://127.0.0.1:1/mcp", home, command=EXE)
    entry = json.loads(pick(made, "Claude Code", "stdio", ".mcp.json"))["mcpServers"]["tapemind"]
    assert entry["command"] == EXE
    # The same arguments, given to this checkout's CLI instead of an installed `tapemind`.
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from app.cli.main import main; main()", *entry["args"]],
        env=env(),
        cwd=str(ROOT),
    )

    async def use() -> str:
        async with Client(params) as client:
            return await remember_and_recall(client, "stdio 片段也能用")

    assert "stdio 片段也能用" in anyio.run(use)


def test_the_stdio_command_is_the_installed_script_when_tapemind_is_not_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A virtualenv that is not activated (or `python -m app`): a bare `tapemind` would not
    # start from a desktop client, the script pip put beside this interpreter does.
    import app.host.snippets as module

    monkeypatch.setattr(module.shutil, "which", lambda name: None)
    monkeypatch.setattr(module.sysconfig, "get_path", lambda name: str(tmp_path))
    assert module.tapemind_command() == "tapemind"  # nothing installed there either
    script = tmp_path / ("tapemind.exe" if sys.platform == "win32" else "tapemind")
    script.write_text("#!/bin/sh\n")
    assert module.tapemind_command() == str(script)
    made = snippets("A", "tm_x", "http://127.0.0.1:7821/mcp", tmp_path)
    stdio = json.loads(pick(made, "Claude Code", "stdio", ".mcp.json"))["mcpServers"]["tapemind"]
    assert stdio["command"] == str(script)


def test_the_token_variable_is_set_the_way_the_users_shell_does_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import app.host.snippets as module

    var = token_env_var("A")
    monkeypatch.setattr(module.sys, "platform", "linux")
    posix = snippets("A", "tm_abc-_1", "http://127.0.0.1:7821/mcp", Path("/h"), command=EXE)
    assert f"`export {var}=tm_abc-_1`" in next(s.where for s in posix if s.client == "Codex")
    monkeypatch.setattr(module.sys, "platform", "win32")
    win = snippets("A", "tm_abc-_1", "http://127.0.0.1:7821/mcp", Path("/h"), command=EXE)
    assert f'`$env:{var}="tm_abc-_1"`' in next(s.where for s in win if s.client == "Codex")


def test_a_chinese_user_reads_where_each_snippet_goes_in_chinese(tmp_path: Path) -> None:
    en = snippets(AGENT, "tm_tok", "http://127.0.0.1:7821/mcp", tmp_path, command=EXE)
    zh = snippets(AGENT, "tm_tok", "http://127.0.0.1:7821/mcp", tmp_path, command=EXE, lang="zh")
    assert [(s.client, s.transport, s.text) for s in en if s.client != "DeepChat"] == [
        (s.client, s.transport, s.text) for s in zh if s.client != "DeepChat"
    ]  # the same configuration, only the words around it change
    var = token_env_var(AGENT)
    for e, z in zip(en, zh, strict=True):
        assert re.search(r"[\u4e00-\u9fff]", z.where), z.where
        assert (f"export {var}=tm_tok" in e.where) == (f"export {var}=tm_tok" in z.where)
        for path in ("~/.claude.json", ".mcp.json", "~/.codex/config.toml"):
            assert (path in e.where) == (path in z.where), (e.where, z.where)
    deepchat = json.loads(next(s.text for s in zh if s.client == "DeepChat"))
    assert "长期记忆" in deepchat["mcpServers"]["tapemind"]["descriptions"]


# What Codex gives a stdio server besides its `env_vars` (codex-rs rmcp-client's list).
CODEX_DEFAULT_VARIABLES = ("HOME", "LOGNAME", "PATH", "SHELL", "USER", "LANG", "LC_ALL", "TERM")


def test_codex_launches_the_stdio_server_with_what_the_vault_needs(two_agents: Path) -> None:
    # No host runs, so the server Codex starts owns the home; its vault holds a secret, so
    # every append must be checked for it, which needs the vault open in that process.
    from .mcp_helpers import cli

    cli(two_agents, "vault", "set", "GITHUB_TOKEN", stdin="ghp_示例value\n")
    codex = tomllib.loads(
        pick(
            snippets("A", "tm_x", "http://127.0.0.1:1/mcp", two_agents, command=EXE),
            "Codex",
            "stdio",
            "~/.codex/config.toml",
        )
    )
    passed = codex["mcp_servers"]["tapemind"]["env_vars"]
    ours = env()  # the user's shell: it holds the vault passphrase

    def launched_by_codex(names: list[str], text: str = "token ghp_示例value") -> str:
        kept = {k: ours[k] for k in (*CODEX_DEFAULT_VARIABLES, *names) if k in ours}
        kept["PYTHONPATH"] = str(ROOT)  # this checkout, where Codex would run `tapemind`
        # No test touches a real keychain; it stands for a keyring the server cannot reach.
        kept["PYTHON_KEYRING_BACKEND"] = ours["PYTHON_KEYRING_BACKEND"]
        params = StdioServerParameters(
            command=sys.executable,
            args=[
                "-c",
                "from app.cli.main import main; main()",
                *codex["mcp_servers"]["tapemind"]["args"],
            ],
            env=kept,
            cwd=str(ROOT),
        )

        async def turn() -> str:
            async with Client(params) as client:
                result = await client.call_tool(
                    "append",
                    {"entries": [{"thread": "t", "role": "user", "text": text}]},
                )
                return "error: " + result.content[0].text if result.is_error else "stored"

        return anyio.run(turn)

    assert "vault" in launched_by_codex([])  # Codex's own few variables: refused
    # With them the vault is open and the write is checked: A was never given the value,
    # so its write is refused (app/vault/echoes.py), and an ordinary one is stored.
    assert launched_by_codex(passed).endswith("[secret_value]")
    assert launched_by_codex(passed, "pushed the release branch") == "stored"
    (entry,) = json.loads(cli(two_agents, "--json", "tape", "show", "--agent", "A").stdout)
    assert entry["text"] == "pushed the release branch"
