"""The secret vault and every agent read of a secret.

- `service`: secrets sealed in the database under a key from a key store (`keystore`:
  the OS keyring, a passphrase, or memory); `cipher`, `passphrase`, `rotation`, `atomic`.
- `redact`, `live_redaction`: known values out of every write; `credentials`: credential-
  shaped text spotted (memories refuse it, the tape redacts it).
- `approvals`: access requests decided by the agent's permission mode; `requests`: reading,
  counting and expiring them; `reasons`: why one was decided, as a code with parameters;
  `grants`: standing permissions; `reviewer`: the "review" mode's rules and optional LLM.
Nothing here logs, and no error message carries a secret value.
"""

from app.vault import approvals, echoes, grants, requests, reviewer, service
from app.vault.cipher import key_id, new_key, open_sealed, reseal_all, seal
from app.vault.credentials import looks_like_credential, redact_credentials
from app.vault.errors import (
    BlobTampered,
    KeyCorrupt,
    KeyMissing,
    KeyringUnavailable,
    MalformedBlob,
    PassphraseRejected,
    RotationError,
    SealedBlobError,
    UnsupportedBlobVersion,
    VaultError,
    VaultLocked,
    WrongKey,
    WrongPassphrase,
)
from app.vault.keystore import (
    KEYSTORE,
    KeyringKeyStore,
    KeyStore,
    MemoryKeyStore,
    PassphraseKeyStore,
    choose_keystore,
    keyring_problem,
)
from app.vault.passphrase import PASSPHRASE_ENV
from app.vault.reasons import TEXTS as REQUEST_REASONS
from app.vault.records import (
    SCOPES,
    AccessRequest,
    Grant,
    KeyHandover,
    ReviewerRules,
    SecretInfo,
    SecretResult,
    VaultStatus,
)
from app.vault.redact import UNNAMED, Redaction, Redactor, marker
from app.vault.rotation import RotationResult, plan_rotation, resume_rotation, rotate_key

__all__ = [
    "KEYSTORE",
    "PASSPHRASE_ENV",
    "REQUEST_REASONS",
    "SCOPES",
    "UNNAMED",
    "AccessRequest",
    "BlobTampered",
    "Grant",
    "KeyCorrupt",
    "KeyHandover",
    "KeyMissing",
    "KeyStore",
    "KeyringKeyStore",
    "KeyringUnavailable",
    "MalformedBlob",
    "MemoryKeyStore",
    "PassphraseKeyStore",
    "PassphraseRejected",
    "Redaction",
    "Redactor",
    "ReviewerRules",
    "RotationError",
    "RotationResult",
    "SealedBlobError",
    "SecretInfo",
    "SecretResult",
    "UnsupportedBlobVersion",
    "VaultError",
    "VaultLocked",
    "VaultStatus",
    "WrongKey",
    "WrongPassphrase",
    "approvals",
    "choose_keystore",
    "echoes",
    "grants",
    "key_id",
    "keyring_problem",
    "looks_like_credential",
    "marker",
    "new_key",
    "open_sealed",
    "plan_rotation",
    "redact_credentials",
    "requests",
    "reseal_all",
    "resume_rotation",
    "reviewer",
    "rotate_key",
    "seal",
    "service",
]
