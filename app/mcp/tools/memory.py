"""`memory`: one memory with its sources, parents, children and versions."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .base import ToolArgs

NAME = "memory"
DESCRIPTION = (
    "Read one of your memories in full: its text, category, status and counters, the tape "
    "entries it came from (its evidence), its parent and child memories, and its versions. "
    "Use it to check where a memory came from before relying on it."
)
READ_ONLY = True


class Args(ToolArgs):
    id: Annotated[int, Field(ge=1, description="The memory id (from `context` or `search`).")]


def run(engine: Any, agent: str, args: Args) -> Any:
    return engine.memory(args.id, agent=agent)
