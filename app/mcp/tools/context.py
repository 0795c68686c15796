"""`context`: the memories to keep in mind for this turn (recall mode 1)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ...recall import dropped_summary
from .base import ToolArgs, engine_method, given

NAME = "context"
DESCRIPTION = (
    "Call this first in every turn. Returns what you should keep in mind: memories recent "
    "in this thread, about this user, and relevant to the query, packed under a token "
    "budget. The text is that block, ready to read, and one line saying how many were "
    "left out (use `search` for more); the structured result is the manifest: the memory "
    "ids included and dropped (with the reason), tokens used. Fill in every argument you can."
)
READ_ONLY = True


class Args(ToolArgs):
    thread: Annotated[
        str | None, Field(max_length=200, description="The current thread (conversation) id.")
    ] = None
    user: Annotated[
        str | None, Field(max_length=200, description="The person you are working for.")
    ] = None
    query: Annotated[
        str | None,
        Field(
            max_length=4000,
            description="The user's message or keywords of what this turn is about.",
        ),
    ] = None
    budget: Annotated[
        int | None,
        Field(ge=1, le=100_000, description="Token budget (default: your agent's setting)."),
    ] = None


def run(engine: Any, agent: str, args: Args) -> Any:
    method = engine_method(engine, "context", NAME)
    return method(
        agent, **given(thread=args.thread, user=args.user, query=args.query, budget=args.budget)
    )


def render_text(result: dict[str, Any]) -> str:
    """What the agent's model reads: the block itself and one line of manifest, not the
    JSON of the whole result, which repeats every memory's text with its score and routes
    and so would cost the model about three times the budget it asked for."""
    block = result["text"] or "No memories to keep in mind for this turn."
    line = f"({len(result['included'])} memories, {result['tokens_used']}/{result['budget']} tokens"
    if left_out := dropped_summary(d["reason"] for d in result["dropped"]):
        line += f"; left out: {left_out}; `search` finds more"
    return f"{block}\n\n{line})"
