"""Reading values of engine features that are still landing, by their likely field names.

The engine's later dataclasses (conflicts, secrets, access requests) are read
through `field(obj, *names)` so the app lights up as each feature lands.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def field(obj: Any, *names: str, default: Any = None) -> Any:
    """The first of `names` present on `obj` (attribute or mapping key)."""
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if not isinstance(obj, dict) and hasattr(obj, name):
            return getattr(obj, name)
    return default


def age_seconds(obj: Any, now: datetime | None = None) -> float | None:
    at = field(obj, "created_at", "opened_at", "at", "requested_at")
    if not isinstance(at, datetime):
        return None
    return ((now or datetime.now(UTC)) - at).total_seconds()
