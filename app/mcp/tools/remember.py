"""`remember`: offer a durable conclusion, with the tape entries it came from."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from app.codec import to_json
from app.limits import MAX_LABEL_CHARS, MAX_MEMORY_CHARS, MAX_SOURCES
from app.mcp.tools.base import Id, ToolArgs
from app.mcp.tools.views import lean
from app.models import CATEGORIES

NAME = "remember"
DESCRIPTION = (
    "Offer a durable conclusion worth keeping across conversations: a preference of the "
    "user, a project fact, a task outcome or a lesson learned. Not chit-chat, not one-off "
    "task state, not raw tool output, never a credential. Give the tape entry ids it came "
    "from as `sources`. Tapemind compares it with what you already remember and answers "
    "with a decision: add, update, supersede, duplicate (nothing stored) or conflict (the "
    "owner will settle it), or refuses it with the reason."
)
READ_ONLY = False

Category = Literal[CATEGORIES]  # type: ignore[valid-type]


class Args(ToolArgs):
    text: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_MEMORY_CHARS,
            description="The conclusion in one or two self-contained sentences.",
        ),
    ]
    category: Annotated[
        Category, Field(description="preference, project_fact, task_outcome or lesson.")
    ]
    sources: Annotated[
        list[Id],
        Field(
            max_length=MAX_SOURCES,
            description="Ids of your tape entries this conclusion came from (from `append`). "
            "Without any, the call itself is recorded on the tape as the source.",
        ),
    ] = Field(default_factory=list)
    importance: Annotated[
        float,
        Field(
            ge=0,
            le=1,
            description="0 to 1: how much it matters (default 0.5). 0.9 or more: a standing "
            "rule kept in mind in every turn, whatever the turn is about; use it sparingly.",
        ),
    ] = 0.5
    parents: Annotated[
        list[Id],
        Field(max_length=MAX_SOURCES, description="Ids of memories this one builds on."),
    ] = Field(default_factory=list)
    turn: Annotated[
        str | None,
        Field(
            max_length=MAX_LABEL_CHARS,
            description="Optional: the turn in which you concluded it; memories you reported "
            "with `used` in that turn become its parents.",
        ),
    ] = None
    thread: Annotated[
        str | None,
        Field(
            max_length=MAX_LABEL_CHARS,
            description="Optional: its thread (default: its source's).",
        ),
    ] = None
    key: Annotated[
        str | None,
        Field(
            max_length=200,
            description="Optional: a key of your choosing for this call (e.g. the turn id "
            "and a number). If the answer is lost and you call again with the same key, you "
            "get the first call's result and nothing is stored twice.",
        ),
    ] = None


def run(engine: Any, agent: str, args: Args) -> Any:
    result = engine.remember(
        agent,
        args.text,
        args.category,
        sources=args.sources,
        importance=args.importance,
        parents=args.parents,
        turn=args.turn,
        thread=args.thread,
        key=args.key,
    )
    # The memory as an agent reads it (see .views): `memory(id)` gives the full record.
    answer = to_json(result)
    if answer.get("memory") is not None:
        answer["memory"] = lean(answer["memory"])
    return answer
