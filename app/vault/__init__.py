"""The secret vault: key stores, sealed blobs, key rotation and redaction.

This package needs no database: the engine stores the sealed blobs and calls these
functions. Nothing here logs, and no error message carries a secret value.
"""

from app.vault.cipher import key_id, new_key, open_sealed, reseal_all, seal
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
    KeyringKeyStore,
    KeyStore,
    MemoryKeyStore,
    PassphraseKeyStore,
    choose_keystore,
    keyring_problem,
)
from app.vault.redact import Redactor, looks_like_credential
from app.vault.rotation import RotationResult, plan_rotation, resume_rotation, rotate_key

__all__ = [
    "BlobTampered",
    "KeyCorrupt",
    "KeyMissing",
    "KeyStore",
    "KeyringKeyStore",
    "KeyringUnavailable",
    "MalformedBlob",
    "MemoryKeyStore",
    "PassphraseKeyStore",
    "PassphraseRejected",
    "Redactor",
    "RotationError",
    "RotationResult",
    "SealedBlobError",
    "UnsupportedBlobVersion",
    "VaultError",
    "VaultLocked",
    "WrongKey",
    "WrongPassphrase",
    "choose_keystore",
    "key_id",
    "keyring_problem",
    "looks_like_credential",
    "new_key",
    "open_sealed",
    "plan_rotation",
    "reseal_all",
    "resume_rotation",
    "rotate_key",
    "seal",
]
