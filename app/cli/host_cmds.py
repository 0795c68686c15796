"""`tapemind serve`, `mcp`, `agent token`, `skill install`: agents' access to a home."""

from __future__ import annotations

import os
import sys
import threading
import uuid
from importlib import resources
from pathlib import Path
from typing import Any

import click

from app import InvalidInput, TapemindError
from app.cli.base import State, home_path, json_option, pass_state, writing_to
from app.cli.output import emit_json
from app.host.snippets import DEFAULT_PORT, snippets


@click.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port on 127.0.0.1 (0: any free port).",
)
@json_option
@pass_state
def serve(state: State, port: int) -> None:
    """Own the home and serve it: MCP over HTTP for agents, and the CLI's calls.

    Runs until Ctrl-C. Only one process may own a home; a second one is refused
    with the name of the process that holds it.
    """
    from app.host import make_host
    from app.host.connect import own_home

    engine, lock = own_home(state.home, role="host")
    try:
        host = make_host(engine, lock, port=port)
    except OSError as exc:
        lock.release()
        engine.close()
        raise InvalidInput(
            f"Cannot listen on 127.0.0.1:{port} ({exc.strerror}); choose another --port."
        ) from None
    announce = {"home": str(engine.home), "url": f"{host.url}/mcp", "pid": lock.info["pid"]}
    if state.as_json:
        emit_json(announce)
    else:
        click.echo(f"Serving {engine.home} on {host.url}/mcp (pid {announce['pid']}).")
        click.echo("Agents: `tapemind agent token NAME` prints their configuration. Ctrl-C stops.")
    sys.stdout.flush()
    try:
        host.serve()
    finally:
        engine.close()


class StdioHome:
    """The home as a stdio MCP server sees it: through the host, or owned (and then
    served to the others) when none runs. If the host goes away, the next call
    opens the home again: through a new host, or owning it."""

    def __init__(self, home: str | None) -> None:
        self._home = home
        self._opened: Any = None
        self._host: Any = None
        self._lock = threading.Lock()

    def engine(self) -> Any:
        with self._lock:
            if self._opened is not None and getattr(self._opened.engine, "broken", False):
                self.close()
            if self._opened is None:
                from app.host import make_host
                from app.host.connect import open_home

                self._opened = open_home(self._home, role="mcp")
                if self._opened.lock is not None:
                    # We own the home: serve the others too, and do a host's work (the
                    # indexer, snapshots, maintenance), or what this agent writes would
                    # stay unembedded until some other host ran.
                    self._host = make_host(self._opened.engine, self._opened.lock, port=0)
                    self._host.start()
            return self._opened.engine

    def close(self) -> None:
        if self._host is not None:
            self._host.stop()  # releases the lock
            self._host = None
        if self._opened is not None:
            self._opened.close()
            self._opened = None


@click.command("mcp")
@click.option("--agent", required=True, help="The agent this MCP server acts for.")
@pass_state
def mcp_stdio(state: State, agent: str) -> None:
    """MCP over stdio for one agent (for clients that launch a subprocess).

    Goes through the running host; where none runs, it owns the home itself and
    serves the other programs (the CLI, other agents) for as long as it runs.
    """
    from app.host import serve_stdio

    if _stdin_is_terminal():
        # Someone typed it to try it: a client speaks JSON-RPC here, a person sees nothing.
        click.echo(
            "tapemind mcp: waiting for an MCP client on stdin (Ctrl-C to stop). Agent "
            "clients start this command themselves: `tapemind agent token "
            f"{agent}` prints their configuration.",
            err=True,
        )
    home = StdioHome(state.home)
    try:
        try:
            home.engine().agent(agent)
        except TapemindError as exc:  # keep serving: each tool call will say what to do
            click.echo(f"tapemind mcp: warning: {exc.message}", err=True)
        session = f"stdio:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        serve_stdio(home.engine, agent, session=session)
    finally:
        home.close()


def _stdin_is_terminal() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def _mcp_url(state: State) -> str:
    from app.host.served import mcp_url

    return mcp_url(home_path(state))


@click.command("token")
@click.argument("name")
@click.option("--rotate", is_flag=True, help="Issue a new token; the old one stops working.")
@json_option
@pass_state
def token(state: State, name: str, rotate: bool) -> None:
    """Print agent NAME's MCP token and client configuration (HTTP and stdio)."""
    engine = state.engine()
    issued = engine.agent_token(name, rotate=rotate)
    url = _mcp_url(state)
    items = snippets(name, issued.token, url, engine.home)
    if state.as_json:
        emit_json(
            {
                "agent": name,
                "token": issued.token,
                "issued": issued.issued,
                "url": url,
                "snippets": items,
            }
        )
        return
    click.echo(f"Agent {name}: {'new token' if issued.issued else 'token'} {issued.token}")
    click.echo(f"MCP endpoint (while `tapemind serve` or the desktop app runs): {url}")
    for s in items:
        click.echo(f"\n## {s.client}, {s.transport} — {s.where}")
        click.echo(s.text)


@click.group()
def skill() -> None:
    """Skills: the Tapemind manual that tells agents how to use their memory, and the
    skills grown from an agent's memories (`tapemind insights`)."""


SKILL_NAME = "tapemind-memory"


@skill.command("install")
@click.argument("name", required=False, default=SKILL_NAME)
@click.option(
    "--target",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Skills directory: ~/.claude/skills (Claude Code), ~/.agents/skills (Codex), or a "
    "project's .claude/skills or .agents/skills.",
)
@click.option(
    "--agent",
    help="The agent a grown skill NAME belongs to (needed when several agents have one of "
    "that name).",
)
@click.option(
    "--force", is_flag=True, help="Replace an installed copy that differs (e.g. was edited)."
)
@json_option
@pass_state
def skill_install(state: State, name: str, target: Path, agent: str | None, force: bool) -> None:
    """Copy skill NAME into TARGET/NAME/: the tapemind-memory skill (the default), or an
    agent's grown skill (see `tapemind skill list --agent A`)."""
    if name == SKILL_NAME:
        source = resources.files("resources") / "skills" / SKILL_NAME
        shipped = {
            item.name: item.read_bytes()
            for item in source.iterdir()
            if item.is_file() and not item.name.startswith(("_", "."))
        }
        origin = "the skill of this Tapemind version"
    else:
        grown = _grown_skill(state, name, agent)
        if grown.withheld:
            gone = ", ".join(f"m{i.memory_id}" for i in grown.issues if i.what == "forgotten")
            raise InvalidInput(
                f"Skill {name} of agent {grown.agent} rests on memory {gone}, which was "
                "forgotten, so it is not given to agents (its words must go with the memory). "
                f"Run `tapemind insights --agent {grown.agent}` for a version without it, "
                "review it with `tapemind insights show ID` and accept it, then install again."
            )
        shipped = {"SKILL.md": grown.text.encode("utf-8")}
        origin = f"version {grown.version} of agent {grown.agent}'s grown skill"
    target = target.expanduser()
    # `--target ~/.claude/skills/tapemind-memory` means that folder: a skill one level
    # deeper (…/tapemind-memory/tapemind-memory/SKILL.md) is found by no client.
    dest = target if target.name == name else target / name
    with writing_to(dest, "--target"):
        differs = [
            file
            for file, body in shipped.items()
            if (dest / file).is_file() and (dest / file).read_bytes() != body
        ]
        if differs and not force:
            # Never overwrite silently: the owner may have edited the manual.
            raise InvalidInput(
                f"{dest / differs[0]} differs from {origin} "
                "(edited, or installed by another version), so it was left as it is. "
                "Keep a copy of your changes, then run again with --force to replace it."
            )
        fresh = [n for n in shipped if not (dest / n).is_file()]
        dest.mkdir(parents=True, exist_ok=True)
        for file in [*differs, *fresh]:
            (dest / file).write_bytes(shipped[file])
    status = "updated" if differs else "installed" if fresh else "unchanged"
    result: dict[str, Any] = {"installed": str(dest), "files": sorted(shipped), "status": status}
    if state.as_json:
        emit_json(result)
        return
    if status == "unchanged":
        click.echo(f"The {name} skill in {dest} is already up to date.")
    else:
        click.echo(
            f"{'Updated' if differs else 'Installed'} the {name} skill in "
            f"{dest / 'SKILL.md'}. Start a new Claude Code or Codex session to load it."
        )
    if dest.parent.name != "skills":
        click.echo(
            "Note: Claude Code and Codex look for skills in a folder named skills "
            "(~/.claude/skills, ~/.agents/skills, or a project's .claude/skills).",
            err=True,
        )


def _grown_skill(state: State, name: str, agent: str | None) -> Any:
    """The grown skill NAME: of `agent`, or of the one agent that has a skill so named."""
    engine = state.engine()
    if agent is not None:
        return engine.skill(agent, name)
    owners = [a.name for a in engine.agents() if any(s.name == name for s in engine.skills(a.name))]
    if len(owners) == 1:
        return engine.skill(owners[0], name)
    if owners:
        raise InvalidInput(
            f"Agents {', '.join(owners)} each have a skill named {name!r}: say which with --agent."
        )
    raise InvalidInput(
        f"No skill named {name!r}: install tapemind-memory, or a grown skill listed by "
        "`tapemind skill list --agent NAME`."
    )


def register(cli: click.Group) -> None:
    from app.cli.agent_cmds import agent

    agent.add_command(token)
    for command in (serve, mcp_stdio, skill):
        cli.add_command(command)
