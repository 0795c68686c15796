"""`tapemind remember`, `memory …`, `forget`, `used`: the memories of an agent."""

from __future__ import annotations

import uuid

import click

from app import (
    CATEGORIES,
    STATUSES,
    MemoryDetail,
    RememberResult,
    check_edited_text,
    check_memory_text,
)
from app.cli.base import State, ask_first, json_option, pass_state
from app.cli.output import clip, counted, emit_json, fields, short_time, table, times


def _print_result(result: RememberResult) -> None:
    m = result.memory
    if result.decision == "duplicate":
        click.echo(
            f"duplicate of memory {result.target_id}: nothing new was stored; memory "
            f"{result.target_id} was reinforced instead."
        )
        # The exact-match reason repeats the line above for agents that read only it.
        why = (
            "the same text once normalised"
            if result.arbiter == "hash"
            else f"{result.reason} (arbiter: {result.arbiter})"
        )
        click.echo(f"  reason: {why}")
    elif m is not None:
        click.echo(f"{result.decision}: memory {m.id} [{m.category}] {clip(m.text, 70)}")
        if result.target_id is not None:
            click.echo(f"  target: memory {result.target_id}")
        click.echo(f"  reason: {result.reason} (arbiter: {result.arbiter})")
        if result.conflict_id is not None:
            click.echo(f"  conflict {result.conflict_id} is open for the owner to settle")
        click.echo(f"  sources: {', '.join(str(s) for s in result.source_ids)}")


@click.command()
@click.option("--agent", required=True)
@click.option("--category", required=True, type=click.Choice(CATEGORIES))
@click.option(
    "--source",
    "sources",
    multiple=True,
    type=int,
    metavar="ENTRY_ID",
    help="Tape entry this conclusion came from (repeatable). Without one, the "
    "call itself is appended to the tape and becomes the source.",
)
@click.option("--importance", type=click.FloatRange(0, 1), default=0.5, show_default=True)
@click.option(
    "--parent",
    "parents",
    multiple=True,
    type=int,
    metavar="MEMORY_ID",
    help="A memory this one builds on (repeatable).",
)
@click.option("--thread", help="Thread the memory belongs to (default: its source's).")
@click.option("--turn", help="Turn in which it was concluded.")
@click.option("--user", help="The person it is about.")
@click.option(
    "--key",
    help="A key of yours for this call: a second call with the same key returns the "
    "first one's result and stores nothing. Without one, the call gets a key of its own, "
    "so its retry through a host is safe.",
)
@click.argument("text")
@json_option
@pass_state
def remember(
    state: State,
    agent: str,
    category: str,
    sources: tuple[int, ...],
    importance: float,
    parents: tuple[int, ...],
    thread: str | None,
    turn: str | None,
    user: str | None,
    key: str | None,
    text: str,
) -> None:
    """Offer TEXT as a durable conclusion: stored, or refused with the reason."""
    check_memory_text(text)  # bad input is said as such (exit 2), before the vault is asked
    result = state.engine(vault="text").remember(
        agent,
        text,
        category,
        sources=sources,
        importance=importance,
        parents=parents,
        thread=thread,
        turn=turn,
        user=user,
        key=key or f"cli:{uuid.uuid4().hex}",
    )
    if state.as_json:
        emit_json(result)
    else:
        _print_result(result)


@click.group()
def memory() -> None:
    """Memories: list, show, edit."""


def print_detail(d: MemoryDetail) -> None:
    m = d.memory
    fields(
        [
            ("Memory", m.id),
            ("Agent", m.agent),
            ("Category", m.category),
            ("Status", m.status),
            ("Text", m.text or "(forgotten)"),
            ("Importance", f"{m.importance:.2f}"),
            ("Strength", "-" if m.strength is None else f"{m.strength:.2f}"),
            ("Version", m.version),
            ("Created", short_time(m.created_at)),
            ("Updated", short_time(m.updated_at)),
            ("Recalled", f"{times(m.recall_count)}, last {short_time(m.last_recalled_at)}"),
            ("Used", f"{times(m.use_count)}, last {short_time(m.last_used_at)}"),
            ("Thread", m.thread),
            ("User", m.user),
        ]
    )
    click.echo("\nSources:")
    table(
        ["ENTRY", "TIME", "THREAD", "TURN", "KIND", "ROLE", "TEXT"],
        [
            [
                e.id,
                short_time(e.created_at),
                e.thread,
                e.turn or "-",
                e.kind,
                e.role,
                "(erased)" if e.erased else e.text,
            ]
            for e in d.sources
        ],
    )
    for title, links in (("Parents", d.parents), ("Children", d.children)):
        if links:
            click.echo(f"\n{title}:")
            table(
                ["MEMORY", "RELATION", "CATEGORY", "STATUS", "TEXT"],
                [[ln.memory_id, ln.relation, ln.category, ln.status, ln.text] for ln in links],
            )
    if len(d.versions) > 1:
        click.echo("\nVersions:")
        table(
            ["VERSION", "CHANGED", "BY", "REASON", "TEXT"],
            [
                [v.version, short_time(v.changed_at), v.changed_by, v.reason, v.text]
                for v in d.versions
            ],
        )


@memory.command("show")
@click.argument("memory_id", type=int)
@json_option
@pass_state
def show(state: State, memory_id: int) -> None:
    """A memory with its source entries, parents, children and versions."""
    d = state.engine().memory(memory_id)
    if state.as_json:
        emit_json(d)
    else:
        print_detail(d)


@memory.command("list")
@click.option("--agent", required=True)
@click.option("--category", type=click.Choice(CATEGORIES))
@click.option(
    "--status",
    type=click.Choice([*STATUSES, "any"]),
    help="Only memories of this status (default: any, as `search --status any`).",
)
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@json_option
@pass_state
def list_(
    state: State, agent: str, category: str | None, status: str | None, limit: int, offset: int
) -> None:
    """An agent's memories, newest first."""
    items = state.engine().memories(
        agent,
        category=category,
        status=None if status == "any" else status,
        limit=limit,
        offset=offset,
    )
    if state.as_json:
        emit_json(items)
        return
    table(
        ["ID", "CATEGORY", "STATUS", "IMP", "RECALLED", "CREATED", "TEXT"],
        [
            [
                m.id,
                m.category,
                m.status,
                f"{m.importance:.2f}",
                m.recall_count,
                short_time(m.created_at),
                m.text or "(forgotten)",
            ]
            for m in items
        ],
    )


@memory.command("edit")
@click.argument("memory_id", type=int)
@click.argument("text")
@json_option
@pass_state
def edit(state: State, memory_id: int, text: str) -> None:
    """Owner edit: store TEXT as a new version (the old one is kept)."""
    check_edited_text(text)  # as `remember`: bad input first, before the vault is asked
    m = state.engine(vault="text").edit_memory(memory_id, text)
    if state.as_json:
        emit_json(m)
    else:
        click.echo(f"Memory {m.id} is now at version {m.version}.")


@click.command()
@click.argument("memory_id", type=int)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
@pass_state
def forget(state: State, memory_id: int, yes: bool) -> None:
    """Forget a memory: its text is removed; a hash keeps it from being learned again."""
    engine = state.engine()
    before = engine.memory(memory_id).memory  # NotFound before asking
    if before.status != "forgotten":
        question = f"Forget memory {memory_id} ({clip(before.text, 50)})?"
        ask_first(f"{question} Its text is removed for good", yes=yes)
    m = engine.forget(memory_id)
    if state.as_json:
        emit_json(m)
    elif before.status == "forgotten":
        click.echo(f"Memory {m.id} was already forgotten; nothing changed.")
    else:
        click.echo(f"Forgot memory {m.id}; the same text will be refused from now on.")


@click.command()
@click.option("--agent", required=True)
@click.option("--turn", required=True, help="The turn in which the memories were used.")
@click.argument("memory_ids", nargs=-1, type=int, required=True)
@json_option
@pass_state
def used(state: State, agent: str, turn: str, memory_ids: tuple[int, ...]) -> None:
    """Report the memories an agent actually used in a turn (reinforces them)."""
    recorded = state.engine().report_used(agent, turn, memory_ids)
    if state.as_json:
        emit_json({"recorded": recorded})
    else:
        click.echo(f"Recorded {counted(len(recorded), 'use')} in turn {turn}.")


def register(cli: click.Group) -> None:
    for command in (remember, memory, forget, used):
        cli.add_command(command)
