"""Tapemind: local-first long-term memory for AI agents.

The public API is `Engine` and the values in `app.models`; see DESIGN.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import HomeError, InvalidInput, NotFound, Refused, TapemindError
from .models import (
    CATEGORIES,
    KINDS,
    ROLES,
    Agent,
    AgentSettings,
    AppendResult,
    AuditEvent,
    Memory,
    MemoryDetail,
    NewEntry,
    RememberResult,
    TapeEntry,
)

if TYPE_CHECKING:
    from .engine import Engine

__version__ = "0.1.0"

__all__ = [
    "CATEGORIES",
    "KINDS",
    "ROLES",
    "Agent",
    "AgentSettings",
    "AppendResult",
    "AuditEvent",
    "Engine",
    "HomeError",
    "InvalidInput",
    "Memory",
    "MemoryDetail",
    "NewEntry",
    "NotFound",
    "Refused",
    "RememberResult",
    "TapeEntry",
    "TapemindError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    # `Engine` is imported on first use (PEP 562): a process that only needs a
    # submodule (the desktop app's first paint, `--version`) skips the engine's
    # imports until it opens a home.
    if name == "Engine":
        from .engine import Engine

        return Engine
    raise AttributeError(f"module 'app' has no attribute {name!r}")
