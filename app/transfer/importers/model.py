"""The plain data an importer returns: entries ready to append, and what was skipped."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

KINDS = frozenset({"message", "tool_call", "tool_result", "event", "anchor", "compact"})
ROLES = frozenset({"user", "assistant", "tool", "system"})


@dataclass(frozen=True)
class ImportedEntry:
    """One tape entry read from an existing agent history.

    ``turn`` groups one user input with the tool loop and the answer that follow it; it is
    ``"<thread>:<n>"`` where n counts the real user inputs of the thread (0 before the first).
    ``source_key`` is stable across re-imports of the same history and unique within a batch,
    so the engine can skip entries it already holds. ``meta`` holds small JSON-safe values only.
    """

    thread: str
    turn: str
    kind: str
    role: str
    text: str
    created_at: datetime | None
    source_key: str
    meta: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class ImportProblem:
    """A line or record that was malformed and skipped (``line`` is 1-based, when known)."""

    line: int | None
    message: str
    path: str | None = None


@dataclass(frozen=True)
class ImportBatch:
    """Everything one ``parse_history`` call read: entries in source order, problems, threads."""

    entries: tuple[ImportedEntry, ...]
    problems: tuple[ImportProblem, ...]
    threads: int
