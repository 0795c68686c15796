"""`memory`: one memory with its sources, parents, children and versions."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from app.codec import to_json
from app.mcp.tools.base import Id, ToolArgs
from app.mcp.tools.views import entry_view

NAME = "memory"
DESCRIPTION = (
    "Read one of your memories in full: its text, category, status and counters, the tape "
    "entries it came from (its evidence), its parent and child memories, and its versions. "
    "Use it to check where a memory came from before relying on it."
)
READ_ONLY = True


class Args(ToolArgs):
    id: Annotated[Id, Field(description="The memory id (from `context` or `search`).")]


def run(engine: Any, agent: str, args: Args) -> Any:
    detail = to_json(engine.memory(args.id, agent=agent))
    # The memory itself in full, but its evidence as `tape` shows entries: a source may be
    # a pasted 300,000-character log, which would flood the model on every check.
    if isinstance(detail, dict) and isinstance(detail.get("sources"), list):
        detail["sources"] = [entry_view(e) for e in detail["sources"]]
    return detail
