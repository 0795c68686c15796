"""Open conflicts as the review shows them: both sides with their evidence (worker side).

Nothing here touches Qt: `load_conflicts` runs on a worker thread and returns
frozen values that the Conflicts page and the review dialog only display.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

PAGE = 200  # conflicts read per engine call


@dataclass(frozen=True)
class Evidence:
    """One source entry on the tape behind a memory."""

    entry_id: int
    role: str
    text: str
    at: datetime | None


@dataclass(frozen=True)
class Side:
    """One memory of a conflict as it is now."""

    memory_id: int | None
    text: str
    category: str
    importance: float | None
    created_at: datetime | None
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class ConflictView:
    id: int
    agent: str
    reason: str
    arbiter: str
    age_s: float | None
    old: Side
    new: Side
    resolution: str | None = None  # old | new | both | merge, once settled
    resolved_at: datetime | None = None


def _side(side: Any) -> Side:
    memory = side.memory
    return Side(
        memory_id=memory.id,
        text=memory.text,
        category=memory.category,
        importance=memory.importance,
        created_at=memory.created_at,
        evidence=tuple(Evidence(e.id, e.role, e.text, e.created_at) for e in side.sources),
    )


def to_view(conflict: Any) -> ConflictView:
    """The engine's Conflict as the review shows it."""
    return ConflictView(
        id=conflict.id,
        agent=conflict.agent,
        reason=conflict.reason or "",
        arbiter=conflict.arbiter or "",
        age_s=float(conflict.age_days) * 86400 if conflict.age_days is not None else None,
        old=_side(conflict.existing),
        new=_side(conflict.challenger),
        resolution=getattr(conflict, "resolution", None),
        resolved_at=getattr(conflict, "resolved_at", None),
    )


def load_conflicts(engine: Any) -> list[ConflictView]:
    """Every agent's open conflicts, oldest first, with both sides read."""
    out: list[ConflictView] = []
    while True:
        page = engine.conflicts(None, status="open", limit=PAGE, offset=len(out))
        out.extend(to_view(c) for c in page)
        if len(page) < PAGE:
            return out


SETTLED_SHOWN = 200  # the most recently settled conflicts the page lists


def load_settled(engine: Any) -> list[ConflictView]:
    """Every agent's settled conflicts, the most recent first (to reopen a misclick)."""
    return [to_view(c) for c in engine.settled_conflicts(None, limit=SETTLED_SHOWN)]
