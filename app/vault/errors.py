"""Errors raised by the vault.

Every message says what happened and what the owner can do next. No message ever
contains a secret value, a key or a passphrase: only names, ids, paths and key ids
(a key id is a one-way fingerprint, see ``cipher.key_id``).
"""

from __future__ import annotations


class VaultError(Exception):
    """Base class of every vault error."""


class KeyringUnavailable(VaultError):
    """No usable OS keyring backend (a headless server, a missing D-Bus session...)."""


class KeyMissing(VaultError):
    """The vault key is not where the key store keeps it (deleted, another machine...)."""


class VaultLocked(VaultError):
    """The key exists but cannot be unlocked now (locked keyring, no passphrase given)."""


class WrongPassphrase(VaultLocked):
    """The passphrase does not unlock the vault key (checked against the verifier)."""


class PassphraseRejected(VaultError):
    """A new passphrase was refused (too short); nothing was written."""


class KeyCorrupt(VaultError):
    """The stored vault key (keyring entry or key file) is damaged or unreadable."""


class SealedBlobError(VaultError):
    """A sealed secret cannot be opened. Nothing is returned, nothing is changed."""


class MalformedBlob(SealedBlobError):
    """The blob is too short or otherwise not a sealed secret."""


class UnsupportedBlobVersion(SealedBlobError):
    """The blob was written by a newer (or unknown) format version."""


class WrongKey(SealedBlobError):
    """The blob was sealed under a different vault key (or its header was damaged)."""


class BlobTampered(SealedBlobError):
    """Authentication failed: the blob was altered or belongs to another secret."""


class RotationError(VaultError):
    """A key rotation could not be completed; see the message for the state left behind."""
