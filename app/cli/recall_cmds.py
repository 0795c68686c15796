"""`tapemind context` and `tapemind search`: the two recall modes."""

from __future__ import annotations

import click

from app import CATEGORIES, STATUSES, dropped_summary
from app import SEARCH_MODES as MODES
from app import SEARCH_SCOPES as SCOPES
from app.cli.base import State, json_option, pass_state
from app.cli.output import emit_json, short_time, table
from app.cli.tape_cmds import parse_time


@click.command()
@click.option("--agent", required=True)
@click.option("--thread", help="The current thread: its recent memories come first.")
@click.option("--user", help="The person the agent works for: memories about them.")
@click.option("--query", help="What this turn is about: relevant memories.")
@click.option("--budget", type=int, help="Hard token budget (default: the agent's setting).")
@json_option
@pass_state
def context(
    state: State,
    agent: str,
    thread: str | None,
    user: str | None,
    query: str | None,
    budget: int | None,
) -> None:
    """Recall mode 1: the memory block to inject at the start of a turn."""
    block = state.engine().context(agent, thread=thread, user=user, query=query, budget=budget)
    if state.as_json:
        emit_json(
            {
                "text": block.text,
                "included": [i.memory_id for i in block.included],
                "dropped": [{"id": d.memory_id, "reason": d.reason} for d in block.dropped],
                "tokens_used": block.tokens_used,
                "budget": block.budget,
                "recall_id": block.recall_id,
                "items": block.included,
            }
        )
        return
    click.echo(block.text or "(no memories to inject)")
    click.echo()
    dropped = dropped_summary(d.reason for d in block.dropped) or "none"
    click.echo(
        f"{len(block.included)} included, dropped: {dropped}; "
        f"{block.tokens_used}/{block.budget} tokens; recall {block.recall_id}",
        err=True,
    )


@click.command()
@click.option("--agent", required=True)
@click.argument("query")
@click.option("--scope", type=click.Choice(SCOPES), default="memories", show_default=True)
@click.option("--mode", type=click.Choice(MODES), default="hybrid", show_default=True)
@click.option("--category", type=click.Choice(CATEGORIES))
@click.option(
    "--status",
    type=click.Choice([*STATUSES, "any"]),
    help="Memory status to search (default active; archived ones only when asked).",
)
@click.option("--thread")
@click.option("--since", help="Only from this time on (ISO 8601).")
@click.option("--until", help="Only up to this time (ISO 8601).")
@click.option("--limit", type=click.IntRange(1, 200), default=10, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@json_option
@pass_state
def search(
    state: State,
    agent: str,
    query: str,
    scope: str,
    mode: str,
    category: str | None,
    status: str | None,
    thread: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    offset: int,
) -> None:
    """Recall mode 2: search an agent's memories and/or tape."""
    result = state.engine().search(
        agent,
        query,
        scope=scope,
        mode=mode,
        category=category,
        status=status,
        thread=thread,
        since=parse_time(since, "--since"),
        until=parse_time(until, "--until"),
        limit=limit,
        offset=offset,
    )
    if state.as_json:
        emit_json(result)
        return
    table(
        ["KIND", "ID", "SCORE", "WHY", "WHEN", "TEXT"],
        [
            [
                h.kind,
                h.id,
                f"{h.score:.4f}",
                " ".join(f"{k}={v:g}" for k, v in h.why.items() if k != "rrf")
                + (" weak" if h.weak else ""),
                short_time(
                    h.memory.created_at if h.memory else h.entry.created_at if h.entry else None
                ),
                h.text,
            ]
            for h in result.hits
        ],
    )
    if result.has_more:
        click.echo(f"(more: --offset {offset + limit})", err=True)
    for note in getattr(result, "notes", ()):
        click.echo(f"note: {note}", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(context)
    cli.add_command(search)
