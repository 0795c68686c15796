"""`tapemind agent …`: add, list, show and remove agents."""

from __future__ import annotations

import click

from app import PERMISSION_MODES, AgentSettings, AgentStats
from app.cli.base import State, json_option, pass_state
from app.cli.output import counted, emit_json, fields, short_time, table


@click.group()
def agent() -> None:
    """Agents: identities with their own tape, memories and settings."""


@agent.command("add")
@click.argument("name")
@click.option(
    "--half-life",
    "half_life",
    type=float,
    default=None,
    help="Days for a memory's strength to halve (default 30).",
)
@click.option("--budget", type=int, default=None, help="Recall token budget (default 800).")
@click.option(
    "--mode",
    "permission_mode",
    type=click.Choice(PERMISSION_MODES),
    default=None,
    help="How secret requests are decided (default ask).",
)
@json_option
@pass_state
def add(
    state: State,
    name: str,
    half_life: float | None,
    budget: int | None,
    permission_mode: str | None,
) -> None:
    """Add an agent named NAME."""
    base = AgentSettings()
    settings = AgentSettings(
        half_life_days=half_life if half_life is not None else base.half_life_days,
        recall_budget=budget if budget is not None else base.recall_budget,
        permission_mode=permission_mode or base.permission_mode,
    )
    created = state.engine().add_agent(name, settings)
    if state.as_json:
        emit_json(created)
    else:
        click.echo(f"Added agent {created.name} (id {created.id}).")
        # What a new user does next: connect the agent's client.
        click.echo(
            f"Next: tapemind agent token {created.name}  "
            "(its MCP configuration for Claude Code, Codex or DeepChat)"
        )


@agent.command("list")
@json_option
@pass_state
def list_(state: State) -> None:
    """List the agents of this home."""
    engine = state.engine()
    agents = engine.agents()
    if state.as_json:
        emit_json(agents)
        return
    rows = []
    for a in agents:
        stats = engine.agent_stats(a.name)
        rows.append(
            [
                a.name,
                stats.tape_entries,
                stats.active,
                a.settings.permission_mode,
                short_time(a.created_at),
            ]
        )
    # Active memories: the figure the app's Agents page gives for each agent too.
    table(["AGENT", "TAPE", "ACTIVE MEMORIES", "MODE", "CREATED"], rows)


@agent.command("show")
@click.argument("name")
@json_option
@pass_state
def show(state: State, name: str) -> None:
    """Show an agent's settings and counts."""
    engine = state.engine()
    a = engine.agent(name)
    stats = engine.agent_stats(name)
    if state.as_json:
        emit_json({"agent": a, "stats": stats})
        return
    s = a.settings
    by_status = ", ".join(f"{k} {v}" for k, v in sorted(stats.memories.items())) or "none"
    fields(
        [
            ("Agent", a.name),
            ("Id", a.id),
            ("Created", short_time(a.created_at)),
            ("Tape entries", stats.tape_entries),
            ("Threads", stats.threads),
            ("Memories", by_status),
            ("Half-life", f"{s.half_life_days:g} days"),
            ("Recall budget", f"{s.recall_budget} tokens"),
            ("Secret mode", s.permission_mode),
            ("Embedder", s.embedder or "home default"),
            ("Arbiter", s.arbiter),
            ("Credentials on tape", "redacted" if s.redact_credentials else "kept"),
            ("Vault values written", _echoes(stats)),
        ]
    )


@agent.command("unblock")
@click.argument("name")
@json_option
@pass_state
def unblock(state: State, name: str) -> None:
    """Let agent NAME write again after writing values of the vault it was not given.

    Such writes are refused and counted; after a few, every write of the agent is
    refused until you check what it reads and writes, and unblock it here.
    """
    echoes = state.engine().unblock_agent(name)
    if state.as_json:
        emit_json({"agent": name, "secret_echoes": echoes})
    else:
        click.echo(f"{name} may write again (it had written vault values {echoes} times).")


@agent.command("rm")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
@pass_state
def rm(state: State, name: str, yes: bool) -> None:
    """Remove an agent with its whole tape and all its memories."""
    engine = state.engine()
    stats = engine.agent_stats(name)
    # Not `ask_first`: removing a whole agent asks scripts too (they pass --yes).
    if not yes and not click.confirm(
        f"Remove agent {name} with {counted(stats.tape_entries, 'tape entry', 'tape entries')} "
        f"and {counted(stats.total, 'memory', 'memories')}? This cannot be undone",
        default=False,
        err=True,
    ):
        raise click.exceptions.Exit(1)
    removed = engine.remove_agent(name)
    if state.as_json:
        emit_json({"removed": name, **removed})
    else:
        click.echo(
            f"Removed agent {name} "
            f"({counted(removed['tape_entries'], 'tape entry', 'tape entries')}, "
            f"{counted(removed['memories'], 'memory', 'memories')})."
        )


def _echoes(stats: AgentStats) -> str:
    count = stats.secret_echoes
    if stats.writes_blocked:
        return f"{count}: writes refused (tapemind agent unblock NAME)"
    return str(count)


def register(cli: click.Group) -> None:
    cli.add_command(agent)
