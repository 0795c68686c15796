"""`tape`: read the agent's own tape."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from app.codec import to_json
from app.limits import MAX_ENTRY_CHARS, MAX_ID, MAX_LABEL_CHARS, MAX_READ
from app.mcp.tools.base import TIME_CHARS, ToolArgs, parse_time
from app.mcp.tools.views import MAX_ANSWER_CHARS, TEXT_CHARS, TEXT_CHARS_MIN, entry_view
from app.models import KINDS

NAME = "tape"
DESCRIPTION = (
    "Read your tape, oldest first: the raw record of past turns. Filter by thread, turn, "
    "kinds or time, or read the entries around one entry id (e.g. a memory's source) to see "
    "its context. Without `since`, returns the latest `limit` entries. A long text is cut "
    "at `max_chars` and marked `truncated`, which says how to read it whole."
)
READ_ONLY = True

Kind = Literal[KINDS]  # type: ignore[valid-type]


class Args(ToolArgs):
    thread: Annotated[
        str | None, Field(max_length=MAX_LABEL_CHARS, description="Only this thread.")
    ] = None
    turn: Annotated[
        str | None, Field(max_length=MAX_LABEL_CHARS, description="Only this turn.")
    ] = None
    kinds: Annotated[
        list[Kind] | None,
        Field(max_length=6, description='Only these kinds, e.g. ["message"].'),
    ] = None
    around: Annotated[
        int | None,
        Field(
            ge=1,
            le=MAX_ID,
            description="An entry id: the `limit` entries of its thread nearest to it, "
            "the entry among them.",
        ),
    ] = None
    since: Annotated[
        str | None,
        Field(max_length=TIME_CHARS, description="From this time on (ISO 8601, e.g. 2026-11-30)."),
    ] = None
    until: Annotated[
        str | None, Field(max_length=TIME_CHARS, description="Up to this time (ISO 8601).")
    ] = None
    limit: Annotated[int, Field(ge=1, le=MAX_READ, description="At most this many entries.")] = 50
    max_chars: Annotated[
        int,
        Field(
            ge=TEXT_CHARS_MIN,
            le=MAX_ENTRY_CHARS,
            description="Each entry's text is cut at this many characters (marked truncated); "
            f"one answer holds at most {MAX_ANSWER_CHARS} characters of text in all.",
        ),
    ] = TEXT_CHARS


def run(engine: Any, agent: str, args: Args) -> dict[str, Any]:
    entries = engine.tape(
        agent,
        thread=args.thread,
        turn=args.turn,
        kinds=args.kinds,
        around=args.around,
        since=parse_time(args.since, "since"),
        until=parse_time(args.until, "until"),
        limit=args.limit,
    )
    # One answer carries at most MAX_ANSWER_CHARS of text, however many long entries it
    # lists: each is cut at its share (and says how to read it whole).
    share = max(TEXT_CHARS_MIN, MAX_ANSWER_CHARS // max(1, len(entries)))
    cut = min(args.max_chars, share)
    answer: dict[str, Any] = {"entries": [entry_view(to_json(e), cut) for e in entries]}
    if not entries and args.thread is not None:
        # An empty list reads like "nothing was said": say what was asked, and the way out.
        answer["note"] = (
            f"No entry of thread {args.thread!r} matches. Thread ids are the ones given to "
            'append; search(query, scope="tape") finds entries by what was said.'
        )
    return answer
