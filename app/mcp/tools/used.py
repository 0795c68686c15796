"""`used`: report the memories the agent actually used in a turn."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from app.limits import MAX_LABEL_CHARS, MAX_USED
from app.mcp.tools.base import Id, ToolArgs

NAME = "used"
DESCRIPTION = (
    "Report which memories you actually used in this turn (not merely received from "
    "`context`). They are reinforced, so they fade more slowly, and they become parents of "
    "what you `remember` in the same turn. Call it at the end of the turn."
)
READ_ONLY = False


class Args(ToolArgs):
    turn: Annotated[
        str,
        Field(
            min_length=1, max_length=MAX_LABEL_CHARS, description="The turn id (as in `append`)."
        ),
    ]
    memory_ids: Annotated[
        list[Id],
        Field(min_length=1, max_length=MAX_USED, description="Ids of the memories you used."),
    ]


def run(engine: Any, agent: str, args: Args) -> dict[str, Any]:
    return {"recorded": engine.report_used(agent, args.turn, args.memory_ids)}
