"""SQLModel tables of a home's database.

The DDL that creates them lives in `migrations.py` (numbered, recorded in the
database); these classes mirror it for typed queries, and a test checks that
the two agree. Rows never leave the engine: `app.models` converts them to
frozen dataclasses.
"""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class MetaRow(SQLModel, table=True):
    __tablename__ = "meta"
    key: str = Field(primary_key=True)
    value: str


class MigrationRow(SQLModel, table=True):
    __tablename__ = "migrations"
    id: int = Field(primary_key=True)
    name: str
    applied_at: str


class AgentRow(SQLModel, table=True):
    __tablename__ = "agents"
    id: int | None = Field(default=None, primary_key=True)
    name: str
    created_at: str
    settings: str  # JSON object, see app.models.AgentSettings
    next_seq: int = 1
    token_hash: str | None = None
    secret_echoes: int = 0  # migration 15: writes holding vault values it was not given


class TapeEntryRow(SQLModel, table=True):
    __tablename__ = "tape_entries"
    id: int = Field(primary_key=True)
    agent_id: int = Field(foreign_key="agents.id")
    seq: int
    thread: str
    turn: str | None = None
    user: str | None = None
    kind: str
    role: str
    content: str
    content_hash: str
    meta: str | None = None  # JSON object or NULL
    source_key: str | None = None  # set by importers, unique per agent
    created_at: str
    erased_at: str | None = None


class MemoryRow(SQLModel, table=True):
    __tablename__ = "memories"
    id: int = Field(primary_key=True)
    agent_id: int = Field(foreign_key="agents.id")
    category: str
    text: str
    content_hash: str
    importance: float
    confidence: float
    status: str
    version: int
    thread: str | None = None
    turn: str | None = None
    user: str | None = None
    created_at: str
    updated_at: str
    recall_count: int = 0
    use_count: int = 0
    last_recalled_at: str | None = None
    last_used_at: str | None = None
    last_reinforced_at: str | None = None
    archived_at: str | None = None
    superseded_by: int | None = None
    fade_at: str | None = None  # migration 3: when it becomes an archive candidate (NULL: stale)


class MemoryVersionRow(SQLModel, table=True):
    __tablename__ = "memory_versions"
    memory_id: int = Field(primary_key=True, foreign_key="memories.id")
    version: int = Field(primary_key=True)
    text: str
    content_hash: str
    changed_at: str
    changed_by: str  # owner | agent | system
    reason: str


class ProvenanceRow(SQLModel, table=True):
    __tablename__ = "provenance"
    memory_id: int = Field(primary_key=True, foreign_key="memories.id")
    entry_id: int = Field(primary_key=True, foreign_key="tape_entries.id")


class LineageRow(SQLModel, table=True):
    __tablename__ = "lineage"
    child_id: int = Field(primary_key=True, foreign_key="memories.id")
    parent_id: int = Field(primary_key=True, foreign_key="memories.id")
    relation: str = Field(primary_key=True)  # referenced | derived | supersedes | merged
    created_at: str


class AuditRow(SQLModel, table=True):
    __tablename__ = "audit"
    id: int | None = Field(default=None, primary_key=True)
    at: str
    agent: str | None = None  # agent name, kept as text so history outlives the agent
    actor: str  # owner | agent | system | reviewer
    action: str
    object_ids: str  # JSON list of ids
    counts: str  # JSON object of counts


class MemoryUseRow(SQLModel, table=True):
    """A memory the agent reported it actually used in a turn."""

    __tablename__ = "memory_uses"
    agent_id: int = Field(primary_key=True, foreign_key="agents.id")
    turn: str = Field(primary_key=True)
    memory_id: int = Field(primary_key=True, foreign_key="memories.id")
    reported_at: str


class EmbedQueueRow(SQLModel, table=True):
    """Rows waiting for the indexer ("unembedded"); derived data, never exported."""

    __tablename__ = "embed_queue"
    kind: str = Field(primary_key=True)  # memory | tape
    item_id: int = Field(primary_key=True)
    agent_id: int
    enqueued_at: str


class RecallRow(SQLModel, table=True):
    """One recall: what a `context` call injected and dropped, tokens and latency."""

    __tablename__ = "recalls"
    id: int | None = Field(default=None, primary_key=True)
    agent_id: int = Field(foreign_key="agents.id")
    at: str
    mode: str  # context | search
    thread: str | None = None
    user: str | None = None
    query: str | None = None
    budget: int
    tokens_used: int
    included: int
    dropped: int
    over_budget: int
    latency_ms: float


class RecallItemRow(SQLModel, table=True):
    __tablename__ = "recall_items"
    recall_id: int = Field(primary_key=True, foreign_key="recalls.id")
    memory_id: int = Field(primary_key=True, foreign_key="memories.id")
    rank: int
    included: int
    reason: str  # included | over_budget | below_relevance | archived
    score: float


# -- vault (migration 4); never exported, see app.transfer.jsonl -------------------------


class VaultMetaRow(SQLModel, table=True):
    """Vault bookkeeping: keystore_kind, key_id, generation, reviewer (JSON)."""

    __tablename__ = "vault_meta"
    key: str = Field(primary_key=True)
    value: str


class SecretRow(SQLModel, table=True):
    """A named secret; the value exists only as an AES-GCM blob bound to `id`."""

    __tablename__ = "secrets"
    id: str = Field(primary_key=True)  # random hex, the blob's associated data
    name: str
    tags: str  # JSON list
    mode: str | None = None  # ask | auto | review overrides the agent's mode
    created_at: str
    updated_at: str
    blob: bytes
    key_id: str  # hex fingerprint of the vault key that sealed `blob`


class AccessRequestRow(SQLModel, table=True):
    __tablename__ = "access_requests"
    id: int | None = Field(default=None, primary_key=True)
    agent_id: int = Field(foreign_key="agents.id")
    agent: str
    secret_id: str | None = Field(default=None, foreign_key="secrets.id")
    secret: str  # the name asked for, kept after the secret is removed
    reason: str  # redacted before it is stored
    session: str | None = None
    mode: str  # ask | auto | review, as resolved when asked
    status: str  # pending | allowed | denied | expired
    decided_by: str | None = None  # owner | auto | reviewer
    decision_reason: str | None = None
    reason_code: str | None = None  # the decision's reason as a code (app.vault.reasons)
    reason_params: str | None = None  # its parameters, JSON
    scope: str | None = None  # once | session | always
    grant_id: int | None = None
    created_at: str
    decided_at: str | None = None
    expires_at: str
    delivered_at: str | None = None


class GrantRow(SQLModel, table=True):
    __tablename__ = "grants"
    id: int | None = Field(default=None, primary_key=True)
    agent_id: int = Field(foreign_key="agents.id")
    agent: str
    secret_id: str = Field(foreign_key="secrets.id")
    secret: str
    scope: str  # once | session | always
    session: str | None = None
    request_id: int | None = None
    created_at: str
    revoked_at: str | None = None
    used_count: int = 0
    last_used_at: str | None = None


class VaultRotationJournalRow(SQLModel, table=True):
    __tablename__ = "vault_rotation_journal"
    id: int = Field(primary_key=True)
    journal: bytes
    created_at: str


# -- lifecycle (migration 3) ------------------------------------------------------


class DecisionRow(SQLModel, table=True):
    """What the arbiter decided for one `remember` candidate (for measuring quality)."""

    __tablename__ = "decisions"
    id: int | None = Field(default=None, primary_key=True)
    agent_id: int = Field(foreign_key="agents.id")
    at: str
    candidate_hash: str
    category: str
    action: str  # add | update | supersede | duplicate | conflict
    target_id: int | None = None
    memory_id: int | None = None
    conflict_id: int | None = None
    arbiter: str
    reason: str
    neighbours: int
    actor: str
    latency_ms: float
    request_key: str | None = None  # the caller's key: a retried remember finds its first
    reason_code: str | None = None  # the reason as a code (app.confront.arbiter.reasons)
    reason_params: str | None = None  # its parameters, JSON


class ConflictRow(SQLModel, table=True):
    """An open (or settled) question between an existing memory and a challenger."""

    __tablename__ = "conflicts"
    id: int | None = Field(default=None, primary_key=True)
    agent_id: int = Field(foreign_key="agents.id")
    existing_id: int = Field(foreign_key="memories.id")
    challenger_id: int = Field(foreign_key="memories.id")
    reason: str
    arbiter: str
    status: str  # open | resolved
    created_at: str
    resolved_at: str | None = None
    resolution: str | None = None  # old | new | both | merge
    merged_id: int | None = None
    resolved_by: str | None = None
    reason_code: str | None = None  # the reason as a code (app.confront.arbiter.reasons)
    reason_params: str | None = None  # its parameters, JSON


class HealthSnapshotRow(SQLModel, table=True):
    __tablename__ = "health_snapshots"
    id: int | None = Field(default=None, primary_key=True)
    agent_id: int | None = Field(default=None, foreign_key="agents.id")  # NULL: all agents
    at: str
    data: str  # JSON object of app.lifecycle.health.HealthSnapshot counts


class DistillStateRow(SQLModel, table=True):
    """Per-agent distiller watermark: the last tape sequence number read."""

    __tablename__ = "distill_state"
    agent_id: int = Field(primary_key=True, foreign_key="agents.id")
    last_seq: int
    updated_at: str
    runs: int = 0
    candidates: int = 0


class MemoryClassCountRow(SQLModel, table=True):
    """Memories per (agent, status, ever recalled, ever used), kept by triggers."""

    __tablename__ = "memory_class_counts"
    agent_id: int = Field(primary_key=True, foreign_key="agents.id")
    status: str = Field(primary_key=True)
    recalled: int = Field(primary_key=True)
    used: int = Field(primary_key=True)
    n: int


class IndexRowRow(SQLModel, table=True):
    """One vector the index holds (derived data, never exported): see app.index."""

    __tablename__ = "index_rows"
    model: str = Field(primary_key=True)
    kind: str = Field(primary_key=True)  # memory | tape
    item_id: int = Field(primary_key=True)
    agent_id: int
    content_hash: str
    indexed_at: str


# -- insights (migration 11) --------------------------------------------------------


class SkillRow(SQLModel, table=True):
    """A grown skill of an agent: accepted from a proposal, versioned."""

    __tablename__ = "skills"
    id: int | None = Field(default=None, primary_key=True)
    agent_id: int = Field(foreign_key="agents.id")
    name: str
    version: int
    created_at: str
    updated_at: str


class SkillVersionRow(SQLModel, table=True):
    __tablename__ = "skill_versions"
    skill_id: int = Field(primary_key=True, foreign_key="skills.id")
    version: int = Field(primary_key=True)
    text: str  # the SKILL.md as accepted
    description: str
    proposal_id: int | None = None
    edited: int  # 1: the owner changed the draft before accepting it
    accepted_at: str


class SkillEvidenceRow(SQLModel, table=True):
    """A memory a skill version rests on, at the version of the memory it took."""

    __tablename__ = "skill_evidence"
    skill_id: int = Field(primary_key=True, foreign_key="skills.id")
    version: int = Field(primary_key=True)
    memory_id: int = Field(primary_key=True, foreign_key="memories.id")
    memory_version: int


class InsightProposalRow(SQLModel, table=True):
    """A proposed skill (new, or a new version of `skill_id`) waiting for the owner."""

    __tablename__ = "insight_proposals"
    id: int | None = Field(default=None, primary_key=True)
    agent_id: int = Field(foreign_key="agents.id")
    skill_id: int | None = Field(default=None, foreign_key="skills.id")
    base_version: int | None = None
    reason: str  # new | grown | stale
    name: str
    draft: str  # JSON: name, title, description, when_to_use, steps, language
    writer: str  # extractive | llm:MODEL
    note: str | None = None
    group_key: str  # digest of the evidence ids (and the skill), to not propose twice
    status: str  # pending | accepted | rejected | withdrawn
    created_at: str
    decided_at: str | None = None


class InsightEvidenceRow(SQLModel, table=True):
    __tablename__ = "insight_evidence"
    proposal_id: int = Field(primary_key=True, foreign_key="insight_proposals.id")
    memory_id: int = Field(primary_key=True, foreign_key="memories.id")


# Tables that never leave the home in an export: bookkeeping, derived data (the vector
# index's ledger, class counts kept by triggers: an import rebuilds them) and the vault.
NOT_EXPORTED = frozenset(
    {
        "meta",
        "migrations",
        "embed_queue",
        "index_rows",
        "memory_class_counts",
        "vault_meta",
        "secrets",
        "access_requests",
        "grants",
        "vault_rotation_journal",
    }
)
NOT_EXPORTED_PREFIXES = ("secret", "vault", "grant", "access_request")
SECRET_COLUMNS = frozenset({("agents", "token_hash")})
