"""What every tool shares: strict argument models, time parsing, the missing-feature error."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from app.clock import from_iso
from app.errors import InvalidInput, TapemindError


class ToolArgs(BaseModel):
    """Arguments of one tool. Unknown arguments are refused, so a typo is reported
    rather than silently ignored (and no one can pass `agent`). Strict: "5" or 5.0
    is not an id; the schema says what each argument is, and means it."""

    model_config = ConfigDict(extra="forbid", strict=True)


class NotAvailable(TapemindError):
    """The engine of this version does not have the feature behind a tool yet."""

    code = "not_available"


def parse_time(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        return from_iso(value)
    except (TypeError, ValueError):
        raise InvalidInput(
            f"{name} {value!r} is not a time: use ISO 8601, "
            "e.g. 2026-11-30 or 2026-11-30T09:00:00Z."
        ) from None


def engine_method(engine: Any, name: str, tool: str) -> Any:
    """The engine's `name` method, or NotAvailable naming the tool."""
    method = getattr(engine, name, None)
    if method is None:
        raise NotAvailable(
            f"The `{tool}` tool is not available in this version of Tapemind. "
            "Use the `tape` and `memory` tools meanwhile, and ask the owner to upgrade."
        )
    return method


def given(**values: Any) -> dict[str, Any]:
    """Only the arguments the agent gave, so the engine's defaults apply to the rest."""
    return {k: v for k, v in values.items() if v is not None}
