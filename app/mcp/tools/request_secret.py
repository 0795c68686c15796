"""`request_secret`: ask the owner for a secret, with a reason."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .base import ToolArgs, engine_method, given

NAME = "request_secret"
DESCRIPTION = (
    "Ask for a secret (an API key, a password) by name, saying why you need it now. "
    "Depending on the owner's settings it is granted at once, reviewed, or the owner is "
    "asked and may deny; no answer in time is a deny. Never store the value on the tape or "
    "in a memory, and never repeat it back."
)
READ_ONLY = False
WANTS_SESSION = True  # a grant "for this session" is bound to the caller's connection


class Args(ToolArgs):
    name: Annotated[
        str,
        Field(min_length=1, max_length=200, description="The secret's name, e.g. GITHUB_TOKEN."),
    ]
    reason: Annotated[
        str,
        Field(
            min_length=1,
            max_length=2000,
            description="Why you need it for this task; the owner reads this.",
        ),
    ]
    wait_seconds: Annotated[
        float | None,
        Field(ge=0, le=600, description="How long to wait for the owner's answer."),
    ] = None


def run(engine: Any, agent: str, args: Args, *, session: str | None = None) -> Any:
    method = engine_method(engine, "request_secret", NAME)
    result = method(
        agent,
        args.name,
        args.reason,
        **given(wait_seconds=args.wait_seconds, session=session),
    )
    return result
