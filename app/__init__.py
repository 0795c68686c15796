"""Tapemind: local-first long-term memory for AI agents.

The public API is `Engine` and the values in `app.models`; see DESIGN.md.
"""

from .engine import Engine
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
