"""The engine's public values: frozen dataclasses, safe to pass between threads.

ORM rows never leave the engine; everything a caller gets is one of these.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

CATEGORIES = ("preference", "project_fact", "task_outcome", "lesson")
KINDS = ("message", "tool_call", "tool_result", "event", "anchor", "compact")
ROLES = ("user", "assistant", "tool", "system")
STATUSES = ("active", "archived", "superseded", "forgotten")
PERMISSION_MODES = ("ask", "auto", "review")
ARBITERS = ("offline", "learned", "llm")  # an agent's `arbiter` setting

Decision = Literal["add", "update", "supersede", "duplicate", "conflict"]


@dataclass(frozen=True)
class AgentSettings:
    """Per-agent settings; every field has a sensible default."""

    half_life_days: float = 30.0
    recall_budget: int = 800
    permission_mode: str = "ask"
    embedder: str | None = None  # None: the home's default embedder
    arbiter: str = "offline"
    llm: str | None = None  # OpenAI-compatible "model@base_url" for arbiter/distiller
    # Forgetting: archive when strength < archive_below AND idle >= archive_idle_days.
    archive_below: float = 0.1
    archive_idle_days: float = 30.0
    # Credential-looking text (API keys, tokens, "password=…") on this agent's tape is
    # replaced by [credential: KIND] as it is written; the owner may keep it for an agent
    # whose work is handling such text.
    redact_credentials: bool = True

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentSettings:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def parse(cls, stored: str) -> AgentSettings:
        """The settings an agent row stores (JSON); keys this version does not know are
        ignored, so a home written by a newer version still opens."""
        return cls.from_dict(json.loads(stored))


@dataclass(frozen=True)
class Agent:
    id: int
    name: str
    created_at: datetime
    settings: AgentSettings


@dataclass(frozen=True)
class AgentStats:
    """An agent's counts: tape entries, threads, memories by status, refused vault echoes."""

    tape_entries: int
    threads: int
    memories: Mapping[str, int]  # status -> count; a status with none is left out
    secret_echoes: int = 0  # writes refused for holding a vault value it was not given
    writes_blocked: bool = False  # after too many of them, until `agent unblock`

    @property
    def active(self) -> int:
        return self.memories.get("active", 0)

    @property
    def total(self) -> int:
        """Every memory the agent holds, whatever its status (forgotten ones included)."""
        return sum(self.memories.values())


@dataclass(frozen=True)
class ThreadSummary:
    """One thread of an agent's tape: how many entries and turns, first and last time."""

    name: str
    entries: int
    turns: int
    first_at: datetime
    last_at: datetime


@dataclass(frozen=True)
class NewEntry:
    """One tape entry to append. `turn` groups the entries of one turn."""

    thread: str
    kind: str
    role: str
    text: str
    turn: str | None = None
    user: str | None = None
    created_at: datetime | None = None
    meta: Mapping[str, Any] | None = None
    source_key: str | None = None  # importers: makes re-imports idempotent


@dataclass(frozen=True)
class TapeEntry:
    id: int
    agent: str
    seq: int
    thread: str
    turn: str | None
    user: str | None
    kind: str
    role: str
    text: str
    content_hash: str
    created_at: datetime
    erased: bool
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AppendResult:
    ids: tuple[int, ...]
    skipped: int = 0  # entries whose source_key was already on the tape
    # The ids of those entries, in the order given: a retried append gets the first's ids.
    existing: tuple[int, ...] = ()


@dataclass(frozen=True)
class Memory:
    id: int
    agent: str
    category: str
    text: str
    content_hash: str
    importance: float
    confidence: float
    status: str
    version: int
    thread: str | None
    user: str | None
    created_at: datetime
    updated_at: datetime
    recall_count: int
    use_count: int
    last_recalled_at: datetime | None
    last_used_at: datetime | None
    archived_at: datetime | None
    superseded_by: int | None
    # Current strength (1.0 just reinforced, halving every effective half-life), where a
    # listing works it out (the archive); None elsewhere.
    strength: float | None = None


@dataclass(frozen=True)
class MemoryLink:
    """A parent or child of a memory in the lineage DAG."""

    memory_id: int
    relation: str
    category: str
    status: str
    text: str


@dataclass(frozen=True)
class MemoryVersion:
    version: int
    text: str
    changed_at: datetime
    changed_by: str
    reason: str


@dataclass(frozen=True)
class MemoryDetail:
    memory: Memory
    sources: tuple[TapeEntry, ...]
    parents: tuple[MemoryLink, ...]
    children: tuple[MemoryLink, ...]
    versions: tuple[MemoryVersion, ...]


@dataclass(frozen=True)
class RememberResult:
    """What became of a `remember` call.

    decision: add | update | supersede | duplicate | conflict.
    memory: the stored (or, for duplicate, the existing) memory.
    target_id: the existing memory the decision is about, if any.
    """

    decision: str
    memory: Memory | None
    target_id: int | None
    reason: str
    arbiter: str
    source_ids: tuple[int, ...]
    conflict_id: int | None = None
    # `reason` as a code with parameters (app.confront.arbiter.reasons): None for free text
    reason_code: str | None = None
    reason_params: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class AuditEvent:
    id: int
    at: datetime
    agent: str | None
    actor: str
    action: str
    object_ids: tuple[Any, ...]
    counts: Mapping[str, int]
