"""What every tool shares: strict argument models, time parsing, the missing-feature error."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from app.clock import from_iso
from app.errors import InvalidInput
from app.limits import MAX_ID

# An id as the schemas give it: a positive 64-bit number (SQLite's INTEGER).
Id = Annotated[int, Field(ge=1, le=MAX_ID)]
# An ISO 8601 time: long enough for any form of one, short enough to be one.
TIME_CHARS = 64


class ToolArgs(BaseModel):
    """Arguments of one tool. Unknown arguments are refused, so a typo is reported
    rather than silently ignored (and no one can pass `agent`). Strict: "5" or 5.0
    is not an id; the schema says what each argument is, and means it."""

    model_config = ConfigDict(extra="forbid", strict=True)


def parse_time(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        return from_iso(value)
    except (TypeError, ValueError, OverflowError):
        # The value is not repeated: it could be anything, of any length.
        raise InvalidInput(
            f"{name} is not a time: use ISO 8601, e.g. 2026-11-30 or 2026-11-30T09:00:00Z."
        ) from None


def given(**values: Any) -> dict[str, Any]:
    """Only the arguments the agent gave, so the engine's defaults apply to the rest."""
    return {k: v for k, v in values.items() if v is not None}
