"""`search`: explore memories and the tape (recall mode 2)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from app.codec import to_json
from app.limits import (
    MAX_LABEL_CHARS,
    MAX_QUERY_CHARS,
    MAX_REGEX_CHARS,
    MAX_SEARCH_LIMIT,
    MAX_SEARCH_OFFSET,
)
from app.mcp.tools.base import TIME_CHARS, ToolArgs, given, parse_time
from app.mcp.tools.views import entry_view, lean
from app.models import CATEGORIES, STATUSES

# The values the engine's search accepts (app.recall.search.SCOPES and MODES).
Scope = Literal["memories", "tape", "all"]
Mode = Literal["hybrid", "fulltext", "semantic", "regex"]
Category = Literal[CATEGORIES]  # type: ignore[valid-type]
Status = Literal[STATUSES]  # type: ignore[valid-type]

NAME = "search"
DESCRIPTION = (
    "Search your memories (and, with scope, your tape) when `context` was not enough. "
    "Modes: hybrid (default), fulltext, semantic, regex. Filter by category, status "
    "(archived memories are found only when you ask for them), thread and time; page with "
    "limit and offset. Read a hit in full with `memory`, or its tape with `tape(around=…)`. "
    "No hit means nothing stored is about the query: rows found by meaning alone and far "
    "from it are left out."
)
READ_ONLY = True


class Args(ToolArgs):
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_QUERY_CHARS,
            description=f"Words, a question or a regex (at most {MAX_REGEX_CHARS} characters).",
        ),
    ]
    scope: Annotated[
        Scope | None,
        Field(description="memories (default), tape, or all."),
    ] = None
    mode: Annotated[
        Mode | None,
        Field(description="hybrid (default), fulltext, semantic or regex."),
    ] = None
    category: Annotated[
        Category | None,
        Field(description="preference, project_fact, task_outcome or lesson."),
    ] = None
    status: Annotated[
        Status | None,
        Field(description="active (default), archived, superseded or forgotten."),
    ] = None
    thread: Annotated[
        str | None, Field(max_length=MAX_LABEL_CHARS, description="Only this thread.")
    ] = None
    since: Annotated[
        str | None, Field(max_length=TIME_CHARS, description="From this time on (ISO 8601).")
    ] = None
    until: Annotated[
        str | None, Field(max_length=TIME_CHARS, description="Up to this time (ISO 8601).")
    ] = None
    limit: Annotated[int | None, Field(ge=1, le=MAX_SEARCH_LIMIT, description="Hits per page.")] = (
        None
    )
    offset: Annotated[
        int | None, Field(ge=0, le=MAX_SEARCH_OFFSET, description="Hits to skip.")
    ] = None


def run(engine: Any, agent: str, args: Args) -> Any:
    method = engine.search
    found = to_json(
        method(
            agent,
            args.query,
            **given(
                scope=args.scope,
                mode=args.mode,
                category=args.category,
                status=args.status,
                thread=args.thread,
                since=parse_time(args.since, "since"),
                until=parse_time(args.until, "until"),
                limit=args.limit,
                offset=args.offset,
            ),
        )
    )
    # Each hit as an agent reads it (see .views): the memory or the entry, lean.
    for hit in found["hits"]:
        hit["score"] = round(hit["score"], 5)
        for kind in ("memory", "entry"):
            if hit.get(kind) is None:
                hit.pop(kind, None)
            else:
                hit[kind] = lean(hit[kind]) if kind == "memory" else entry_view(hit[kind])
    return found
