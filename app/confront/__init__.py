"""Confrontation at write time: a candidate meets its nearest memories and an arbiter decides.

The way of a new memory: `offer.remember` runs the intake gate and the duplicate check,
`neighbours` finds the candidate's nearest active memories (full-text and vector), the
`arbiter` decides add, update, supersede, duplicate or conflict, and `decisions` applies
and records what it decided. A conflict waits in `conflicts` for the owner; `undo`
takes a settlement back.
"""

from app.confront import conflicts, decisions, undo
from app.confront.arbiter import Arbiter, LearnedArbiter, LLMArbiter, OfflineArbiter
from app.confront.arbiter.evaluate import Report, evaluate, load_cases
from app.confront.arbiter.reasons import TEMPLATES as DECISION_REASONS
from app.confront.arbiter.reasons import render as decision_reason
from app.confront.arbiter.similarity import USESimilarity
from app.confront.conflicts import KEEPS, Conflict, ConflictSide, count_open, raise_conflict
from app.confront.decisions import (
    ARBITER,
    DecisionRecord,
    KeepAll,
    store_decision,
)
from app.confront.offer import remember

__all__ = [
    "ARBITER",
    "DECISION_REASONS",
    "KEEPS",
    "Arbiter",
    "Conflict",
    "ConflictSide",
    "DecisionRecord",
    "KeepAll",
    "LLMArbiter",
    "LearnedArbiter",
    "OfflineArbiter",
    "Report",
    "USESimilarity",
    "conflicts",
    "count_open",
    "decision_reason",
    "decisions",
    "evaluate",
    "load_cases",
    "raise_conflict",
    "remember",
    "store_decision",
    "undo",
]
