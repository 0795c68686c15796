"""`append`: write the entries of a turn to the agent's tape."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from app.limits import MAX_APPEND_ENTRIES, MAX_APPEND_TERMS, MAX_ENTRY_CHARS, MAX_LABEL_CHARS
from app.mcp.tools.base import ToolArgs
from app.models import KINDS, ROLES

NAME = "append"
DESCRIPTION = (
    "Append the entries of a turn to your tape (the append-only record of everything that "
    "happened). Call it once per turn with the user's message, your tool calls and results, "
    "and your answer, all with the same `thread` and `turn`. All entries are stored or none. "
    "Returns the new entry ids: pass them as `sources` to `remember`. Never append a "
    "secret's value: a call holding one you were not given is refused whole. A call "
    f"may index at most {MAX_APPEND_TERMS:,} search terms (as many words, or half as many "
    "Chinese characters): split a bigger turn in two."
)
READ_ONLY = False

Kind = Literal[KINDS]  # type: ignore[valid-type]
Role = Literal[ROLES]  # type: ignore[valid-type]


class Entry(ToolArgs):
    thread: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_LABEL_CHARS,
            description="Conversation or session id; keep it stable across the turns of one "
            "conversation.",
        ),
    ]
    turn: Annotated[
        str | None,
        Field(
            max_length=MAX_LABEL_CHARS,
            description="Turn id shared by the entries of one input-to-output turn "
            "(e.g. the user message id). Use the same id in `used` and `remember`.",
        ),
    ] = None
    kind: Annotated[
        Kind,
        Field(description="message, tool_call, tool_result, event, anchor or compact."),
    ] = "message"
    role: Annotated[Role, Field(description="user, assistant, tool or system.")]
    text: Annotated[
        str,
        Field(
            max_length=MAX_ENTRY_CHARS,
            description="The entry's full text (any language). Credentials in it (API keys, "
            "tokens, passwords) are stored as [credential: KIND].",
        ),
    ]
    user: Annotated[
        str | None,
        Field(
            max_length=MAX_LABEL_CHARS,
            description="Optional: the person you work for in this thread.",
        ),
    ] = None
    key: Annotated[
        str | None,
        Field(
            max_length=200,
            description="Optional: a key of your choosing, unique on your tape (e.g. the "
            "message id). An entry whose key is already on the tape is not stored again: "
            "calling again after a lost answer is safe, and gives the first call's ids.",
        ),
    ] = None


class Args(ToolArgs):
    entries: Annotated[
        list[Entry],
        Field(
            min_length=1,
            max_length=MAX_APPEND_ENTRIES,
            description="The entries of the turn, in order: {thread, turn, kind, role, text}.",
        ),
    ]


def run(engine: Any, agent: str, args: Args) -> dict[str, Any]:
    entries = []
    for e in args.entries:
        entry = e.model_dump(exclude={"key"})
        if e.key is not None:
            entry["source_key"] = e.key
        entries.append(entry)
    result = engine.append(agent, entries, bounded=True)
    answer: dict[str, Any] = {"ids": list(result.ids), "skipped": result.skipped}
    if result.existing:
        answer["existing"] = list(result.existing)  # the ids the first call got
    return answer
