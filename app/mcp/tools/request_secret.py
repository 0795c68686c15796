"""`request_secret`: ask the owner for a secret, with a reason."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from app.limits import MAX_REASON_CHARS, MAX_SECRET_NAME_CHARS, MAX_WAIT_SECONDS
from app.mcp.tools.base import ToolArgs, given

NAME = "request_secret"
DESCRIPTION = (
    "Ask for a secret (an API key, a password) by name, saying why you need it now. "
    "Depending on the owner's settings it is granted at once, reviewed, or the owner is "
    "asked and may deny. Read `status`: allowed (the secret is in `value`), denied (the "
    "owner said no; do without it), "
    "pending (the owner has not answered yet: call again later with the same name and "
    "reason, or with a longer wait_seconds) or expired (no answer in time, a deny; `reason` "
    "says what to do). Never store the value on the tape or in a memory, and never repeat "
    "it back."
)
READ_ONLY = False
WANTS_SESSION = True  # a grant "for this session" is bound to the caller's connection


class Args(ToolArgs):
    name: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_SECRET_NAME_CHARS,
            description="The secret's name, e.g. GITHUB_TOKEN.",
        ),
    ]
    reason: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_REASON_CHARS,
            description="Why you need it for this task; the owner reads this.",
        ),
    ]
    wait_seconds: Annotated[
        float | None,
        Field(
            ge=0,
            le=MAX_WAIT_SECONDS,
            description="Seconds to wait for the owner's answer (default 0: answer at once, "
            "`pending` while the owner decides).",
        ),
    ] = None


def run(engine: Any, agent: str, args: Args, *, session: str | None = None) -> Any:
    method = engine.request_secret
    result = method(
        agent,
        args.name,
        args.reason,
        **given(wait_seconds=args.wait_seconds, session=session),
    )
    return result
