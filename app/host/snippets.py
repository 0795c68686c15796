"""Client configuration snippets for an agent: Claude Code, Codex and DeepChat,
over HTTP (through the host, with the agent's bearer token) and over stdio.

Each format follows the client's own documentation and source:
- Claude Code: `claude mcp add [--transport http|stdio] [--scope user] [--header "K: V"] NAME
  URL`, or `claude mcp add NAME -- COMMAND ARGS...`. Without `--scope user` the server lands
  in the local scope: `~/.claude.json` under the current project's path, so memory would
  vanish as soon as the user starts claude in another folder. `.mcp.json` (at a project's
  root, the project scope) holds `{"mcpServers": {NAME:
  {"type": "http", "url", "headers"} | {"type": "stdio", "command", "args"}}}` and expands
  `${VAR}` in `url`, `headers`, `command` and `args`. `.mcp.json` is meant to be committed
  with a project, so its HTTP snippet names the token's environment variable, never the
  token itself (`claude mcp add` writes to the user's own `~/.claude.json`).
- Codex: `~/.codex/config.toml`, table `[mcp_servers.NAME]` with `url` and
  `bearer_token_env_var` (Codex refuses an inline `bearer_token`), or `command`, `args` and
  `env_vars` (names of variables passed through: Codex clears the rest);
  `codex mcp add NAME --url URL --bearer-token-env-var VAR` writes the first,
  `codex mcp add NAME -- COMMAND ARGS...` the second.
- DeepChat: Settings → MCP → add a server, paste `{"mcpServers": {NAME: {...}}}`; its importer
  reads `type` (`stdio` | `sse` | `http`), `command`, `args`, `env`, `baseUrl` (or `url`),
  `customHeaders` (or `headers`), `descriptions` and `icons` of the first server, and adds
  the server switched off (`enabled: false`) until the user turns it on.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from app.host.snippet_places import DESCRIPTIONS, place

DEFAULT_PORT = 7821
# Codex starts a stdio server with a handful of variables (HOME, PATH, USER, LANG, …).
# When no host runs, `tapemind mcp` owns the home and needs these: the desktop keyring's
# session bus (Linux) or the vault passphrase, or every append and `remember` is refused
# (a vault with secrets must check text for them); the LLM arbiter's and embedder's keys.
CODEX_PASSED_VARIABLES = (
    "DBUS_SESSION_BUS_ADDRESS",
    "XDG_RUNTIME_DIR",
    "TAPEMIND_VAULT_PASSPHRASE",
    "TAPEMIND_LLM_API_KEY",
    "TAPEMIND_EMBED_API_KEY",
)
SERVER_NAME = "tapemind"
DESCRIPTION = DESCRIPTIONS["en"]


@dataclass(frozen=True)
class Snippet:
    client: str
    transport: str  # http | stdio
    where: str  # where to paste or run it
    text: str
    form: str = "file"  # file: paste into a configuration file | command: run in a shell


def stdio_args(home: Path, agent: str) -> list[str]:
    return ["--home", str(home), "mcp", "--agent", agent]


def tapemind_command() -> str:
    """The `tapemind` executable as a client should launch it: an absolute path when it
    can be found (desktop clients often start without the shell's PATH), else the name."""
    name = "tapemind.exe" if sys.platform == "win32" else "tapemind"
    if getattr(sys, "frozen", False):  # the bundle: `tapemind` sits beside this executable
        return str(Path(sys.executable).with_name(name))
    found = shutil.which("tapemind")
    if found:
        return found
    # Not on PATH (a virtualenv that is not activated, `python -m app`): the script that
    # pip installed beside this interpreter, which a client can launch by its path.
    beside = Path(sysconfig.get_path("scripts")) / name
    return str(beside) if beside.is_file() else "tapemind"


def token_env_var(agent: str) -> str:
    """The environment variable that carries `agent`'s token: ASCII letters, digits and
    `_` only (any shell can set it); a name that had to change gets a short hash of it,
    so two agents never share a variable ("助手" and "助理" keep no letter at all)."""
    kept = re.sub(r"[^A-Za-z0-9]+", "_", agent).strip("_").upper()
    parts = [kept] if kept else []
    if kept != agent.upper():
        parts.append(hashlib.sha256(agent.encode("utf-8")).hexdigest()[:6].upper())
    return "TAPEMIND_TOKEN_" + "_".join(parts)


def set_variable(name: str, value: str) -> str:
    """The shell line that sets environment variable `name` for what starts after it:
    PowerShell's on Windows (where `export` means nothing), POSIX `export` elsewhere."""
    if sys.platform == "win32":
        return f'$env:{name}="{value}"'  # tokens are URL-safe base64: nothing to escape
    return f"export {name}={shlex.quote(value)}"


def toml_string(text: str) -> str:
    """`text` as a TOML basic string (JSON's escapes, plus DEL, which TOML also forbids raw)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007F")


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def snippets(
    agent: str,
    token: str,
    url: str,
    home: Path,
    *,
    command: str | None = None,
    lang: str = "en",
) -> list[Snippet]:
    """Every snippet for `agent`; `url` is the host's MCP endpoint (…/mcp); `lang` (en or
    zh) is the language of where each goes, and of DeepChat's description."""
    bearer = f"Bearer {token}"
    exe = command or tapemind_command()
    args = stdio_args(home, agent)
    env_var = token_env_var(agent)
    export = set_variable(env_var, token)
    stdio_entry = {"type": "stdio", "command": exe, "args": args}
    claude_http = {
        SERVER_NAME: {
            "type": "http",
            "url": url,
            "headers": {"Authorization": f"Bearer ${{{env_var}}}"},
        }
    }
    deepchat_http = {
        SERVER_NAME: {
            "type": "http",
            "baseUrl": url,
            "customHeaders": {"Authorization": bearer},
            "descriptions": DESCRIPTIONS.get(lang, DESCRIPTION),
            "icons": "🧠",
        }
    }
    deepchat_stdio = {
        SERVER_NAME: {
            **stdio_entry,
            "env": {},
            "descriptions": DESCRIPTIONS.get(lang, DESCRIPTION),
            "icons": "🧠",
        }
    }
    toml_args = ", ".join(toml_string(a) for a in args)
    return [
        Snippet(
            "Claude Code",
            "http",
            place(lang, "claude_shell"),
            f"claude mcp add --transport http --scope user {SERVER_NAME} {shlex.quote(url)} "
            f"--header {shlex.quote('Authorization: ' + bearer)}",
            form="command",
        ),
        Snippet(
            "Claude Code",
            "http",
            place(lang, "claude_project", export),
            _json({"mcpServers": claude_http}),
        ),
        Snippet(
            "Claude Code",
            "stdio",
            place(lang, "claude_shell"),
            f"claude mcp add --transport stdio --scope user {SERVER_NAME} -- "
            f"{shlex.join([exe, *args])}",
            form="command",
        ),
        Snippet(
            "Claude Code",
            "stdio",
            place(lang, "claude_project"),
            _json({"mcpServers": {SERVER_NAME: stdio_entry}}),
        ),
        Snippet(
            "Codex",
            "http",
            place(lang, "codex_file", export),
            f"[mcp_servers.{SERVER_NAME}]\n"
            f"url = {toml_string(url)}\n"
            f"bearer_token_env_var = {toml_string(env_var)}",
        ),
        Snippet(
            "Codex",
            "http",
            place(lang, "codex_shell", export),
            f"codex mcp add {SERVER_NAME} --url {shlex.quote(url)} "
            f"--bearer-token-env-var {env_var}",
            form="command",
        ),
        Snippet(
            "Codex",
            "stdio",
            place(lang, "codex_file"),
            f"[mcp_servers.{SERVER_NAME}]\ncommand = {toml_string(exe)}\nargs = [{toml_args}]\n"
            f"env_vars = [{', '.join(toml_string(v) for v in CODEX_PASSED_VARIABLES)}]",
        ),
        Snippet(
            "Codex",
            "stdio",
            place(lang, "codex_shell"),
            f"codex mcp add {SERVER_NAME} -- {shlex.join([exe, *args])}",
            form="command",
        ),
        Snippet(
            "DeepChat",
            "http",
            place(lang, "deepchat"),
            _json({"mcpServers": deepchat_http}),
        ),
        Snippet(
            "DeepChat",
            "stdio",
            place(lang, "deepchat"),
            _json({"mcpServers": deepchat_stdio}),
        ),
    ]
