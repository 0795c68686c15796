"""Open conflicts as the review shows them: both sides with their evidence (worker side).

Nothing here touches Qt: `load_conflicts` runs on a worker thread and returns
frozen values that the Conflicts page and the review dialog only display.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from .reasons import decision_reason

if TYPE_CHECKING:
    from app import Conflict, ConflictSide, Engine

PAGE = 200  # conflicts read per engine call
SETTLED_SHOWN = 200  # the most recently settled conflicts the page lists


@dataclass(frozen=True)
class Evidence:
    """One source entry on the tape behind a memory."""

    entry_id: int
    role: str
    text: str
    at: datetime


@dataclass(frozen=True)
class Side:
    """One memory of a conflict as it is now."""

    memory_id: int
    text: str
    category: str
    importance: float
    created_at: datetime
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class ConflictView:
    id: int
    agent: str
    reason: str
    arbiter: str
    age_s: float
    old: Side
    new: Side
    resolution: str | None = None  # old | new | both | merge, once settled
    resolved_at: datetime | None = None
    # the arbiter's reason as a code with parameters, where the engine keeps one
    reason_code: str | None = None
    reason_params: Mapping[str, object] = field(default_factory=dict)

    def reason_shown(self) -> str:
        """The arbiter's reason in the app's language."""
        return decision_reason(self.reason_code, self.reason_params, self.reason)


def _side(side: ConflictSide) -> Side:
    memory = side.memory
    return Side(
        memory_id=memory.id,
        text=memory.text,
        category=memory.category,
        importance=memory.importance,
        created_at=memory.created_at,
        evidence=tuple(Evidence(e.id, e.role, e.text, e.created_at) for e in side.sources),
    )


def to_view(conflict: Conflict) -> ConflictView:
    """The engine's Conflict as the review shows it."""
    return ConflictView(
        id=conflict.id,
        agent=conflict.agent,
        reason=conflict.reason,
        arbiter=conflict.arbiter,
        age_s=conflict.age_days * 86400,
        old=_side(conflict.existing),
        new=_side(conflict.challenger),
        resolution=conflict.resolution,
        resolved_at=conflict.resolved_at,
        reason_code=conflict.reason_code,
        reason_params=conflict.reason_params,
    )


def load_conflicts(engine: Engine) -> list[ConflictView]:
    """Every agent's open conflicts, oldest first, with both sides read."""
    out: list[ConflictView] = []
    while True:
        page = engine.conflicts(None, status="open", limit=PAGE, offset=len(out))
        out.extend(to_view(c) for c in page)
        if len(page) < PAGE:
            return out


def load_settled(engine: Engine) -> list[ConflictView]:
    """Every agent's settled conflicts, the most recent first (to reopen a misclick)."""
    return [to_view(c) for c in engine.settled_conflicts(None, limit=SETTLED_SHOWN)]
