"""The vault's public values: frozen dataclasses returned by the engine.

None of them holds a secret value except `SecretResult.value` (and the owner's
`reveal_secret` string), which is left out of `repr` so a logged result shows
no value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from app.vault.reasons import Reason

REQUEST_STATUSES = ("pending", "allowed", "denied", "expired")
SCOPES = ("once", "session", "hour", "always")


@dataclass(frozen=True)
class SecretInfo:
    """A secret's name, tags and dates: never its value."""

    id: str
    name: str
    tags: tuple[str, ...]
    mode: str | None  # overrides the asking agent's permission mode when set
    created_at: datetime
    updated_at: datetime
    key_id: str
    # `set_secret` only: rows written before the value was a secret, in which it was
    # found and replaced by a marker (tape entries; memories; what only the owner reads;
    # grown skills' versions and proposals' drafts).
    redacted_entries: int = 0
    redacted_memories: int = 0
    redacted_other: int = 0
    redacted_skills: int = 0


@dataclass(frozen=True)
class AccessRequest:
    """An agent asked for a secret with a reason; status says what became of it."""

    id: int
    agent: str
    secret: str
    reason: str
    session: str | None
    mode: str
    status: str  # pending | allowed | denied | expired
    decided_by: str | None  # owner | auto | reviewer
    decision_reason: str | None
    scope: str | None  # once | session | hour | always
    grant_id: int | None
    created_at: datetime
    decided_at: datetime | None
    expires_at: datetime
    delivered_at: datetime | None
    # `decision_reason` as a code with parameters (app.vault.reasons), for a client to
    # say in the owner's language; None for a request decided before codes were kept.
    reason_code: str | None = None
    reason_params: Mapping[str, str | int | float] = field(default_factory=dict)


@dataclass(frozen=True)
class Grant:
    """Permission for one agent to read one secret: once, for a session, for an hour, or
    always. `expires_at`: when an hour grant lapses (None for the others)."""

    id: int
    agent: str
    secret: str
    scope: str
    session: str | None
    request_id: int | None
    created_at: datetime
    revoked_at: datetime | None
    used_count: int
    last_used_at: datetime | None
    active: bool
    expires_at: datetime | None = None


@dataclass(frozen=True)
class SecretResult:
    """What `request_secret` returns. `value` is set only when status is "allowed"."""

    status: str  # allowed | pending | denied | expired
    agent: str
    secret: str
    request_id: int | None
    grant_id: int | None
    decided_by: str | None
    reason: str | None  # why (decision reason), for the agent to read
    scope: str | None
    value: str | None = field(default=None, repr=False)

    @property
    def allowed(self) -> bool:
        return self.status == "allowed" and self.value is not None


@dataclass(frozen=True)
class VaultStatus:
    """Where the key lives and how many secrets there are (no unlock needed)."""

    keystore: str  # keyring | passphrase | memory: where this host keeps the key
    where: str
    secrets: int
    pending_requests: int
    active_grants: int
    key_id: str | None
    rotation_pending: bool


@dataclass(frozen=True)
class KeyHandover:
    """What `export_vault_key` or `import_vault_key` did (never the key).

    `file` is the exported key file; `where` is where this host keeps the key now
    (import) or the key file written (export); `stored` is False when an import found
    the key already in this host's key store and changed nothing.
    """

    key_id: str
    file: str
    where: str
    stored: bool = True


@dataclass(frozen=True)
class ReviewerRules:
    """What the "review" mode's reviewer may approve on the owner's behalf.

    agents / secrets: names (or fnmatch patterns for secrets) it may approve; None
    means any. Outside them it asks a person. A request without a reason of at
    least `min_reason_chars` is blocked when `require_reason`. More than
    `max_allowed` approvals for one agent within `window_seconds` goes to a person.
    llm_url/llm_model: an OpenAI-compatible endpoint that then decides allow,
    block or ask; `llm_api_key_secret` names a vault secret holding its API key.
    """

    agents: tuple[str, ...] | None = None
    secrets: tuple[str, ...] | None = None
    require_reason: bool = True
    min_reason_chars: int = 10
    max_allowed: int = 20
    window_seconds: int = 3600
    llm_url: str | None = None
    llm_model: str | None = None
    llm_timeout: float = 20.0
    llm_api_key_secret: str | None = None


@dataclass(frozen=True)
class Review:
    """A reviewer's verdict: allow, block or ask, with its reason."""

    decision: str  # allow | block | ask
    why: Reason
    by: str  # rules | llm

    @property
    def reason(self) -> str:
        return self.why.text
