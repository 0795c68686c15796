"""`context`: the memories to keep in mind for this turn (recall mode 1)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from app.limits import MAX_BUDGET, MAX_LABEL_CHARS, MAX_QUERY_CHARS
from app.mcp.tools.base import ToolArgs, given
from app.recall import dropped_summary

NAME = "context"
DESCRIPTION = (
    "Call this first in every turn. Returns what you should keep in mind: memories recent "
    "in this thread, about this user, and relevant to the query, packed under a token "
    "budget: `text` is that block, ready to read; `included` the ids of its memories; "
    "`dropped` the ids left out, by reason (over_budget, below_relevance, archived: use "
    "`search` or `memory` to look further); `tokens_used` of `budget`. Fill in every "
    "argument you can."
)
READ_ONLY = True


class Args(ToolArgs):
    thread: Annotated[
        str | None,
        Field(max_length=MAX_LABEL_CHARS, description="The current thread (conversation) id."),
    ] = None
    user: Annotated[
        str | None, Field(max_length=MAX_LABEL_CHARS, description="The person you are working for.")
    ] = None
    query: Annotated[
        str | None,
        Field(
            max_length=MAX_QUERY_CHARS,
            description="The user's message or keywords of what this turn is about.",
        ),
    ] = None
    budget: Annotated[
        int | None,
        Field(ge=1, le=MAX_BUDGET, description="Token budget (default: your agent's setting)."),
    ] = None


def run(engine: Any, agent: str, args: Args) -> Any:
    method = engine.context
    block = method(
        agent, **given(thread=args.thread, user=args.user, query=args.query, budget=args.budget)
    )
    # Several clients (Claude Code among them) give the model the JSON of the structured
    # result rather than the text: it holds the block once and ids only. Each memory's
    # text, score and routes again, and a {"id", "reason"} object per dropped memory,
    # cost the model three to five times the budget it asked for.
    dropped: dict[str, list[int]] = {}
    for d in block.dropped:
        dropped.setdefault(d.reason, []).append(d.memory_id)
    return {
        "text": block.text,
        "included": list(block.included_ids),
        "dropped": dropped,
        "tokens_used": block.tokens_used,
        "budget": block.budget,
        "recall_id": block.recall_id,
    }


def render_text(result: dict[str, Any]) -> str:
    """The text content, for clients that give the model the text: the block itself and
    one line of manifest, rather than the JSON of the result."""
    block = result["text"] or "No memories to keep in mind for this turn."
    n = len(result["included"])
    memories = "1 memory" if n == 1 else f"{n} memories"
    line = f"({memories}, {result['tokens_used']}/{result['budget']} tokens"
    reasons = [reason for reason, ids in result["dropped"].items() for _ in ids]
    if left_out := dropped_summary(reasons):
        line += f"; left out: {left_out}; `search` finds more"
    return f"{block}\n\n{line})"
