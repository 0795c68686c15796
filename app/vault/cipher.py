"""Sealed secrets: versioned AES-GCM blobs bound to a secret id and a vault key.

Blob layout, version 1 (all lengths in bytes)::

    version (1) = 0x01 | key id (8) | nonce (12) | ciphertext + GCM tag (len + 16)

The header (version and key id) and the secret id are the associated data, so a blob
cannot be moved to another secret, relabelled with another key id or downgraded
without failing authentication. The key id is a one-way fingerprint of the key; it
lets a wrong key be told apart from a damaged blob, and lets a key rotation that was
interrupted be finished (see ``rotation``).

A fresh random nonce is drawn for every seal. With 96-bit random nonces the usual
bound is 2**32 seals per key; a vault holds hundreds of secrets and ``rotate-key``
starts a new key, so the bound is far away.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from app.vault.errors import (
    BlobTampered,
    MalformedBlob,
    RotationError,
    SealedBlobError,
    UnsupportedBlobVersion,
    WrongKey,
)

KEY_BYTES = 32
VERSION = 1
KEY_ID_BYTES = 8
NONCE_BYTES = 12
TAG_BYTES = 16
HEADER_BYTES = 1 + KEY_ID_BYTES
MIN_BLOB_BYTES = HEADER_BYTES + NONCE_BYTES + TAG_BYTES

_KEY_ID_LABEL = b"tapemind/vault/key-id/v1"


def new_key() -> bytes:
    """Return a fresh random 256-bit vault key."""
    return os.urandom(KEY_BYTES)


def _check_key(key: bytes) -> None:
    # A programming error, not a user error; the message never shows the key.
    if not isinstance(key, bytes | bytearray) or len(key) != KEY_BYTES:
        raise ValueError(f"a vault key is {KEY_BYTES} bytes")


def key_id(key: bytes) -> bytes:
    """Return the 8-byte fingerprint of ``key`` (HMAC-SHA256 of a fixed label, truncated).

    It reveals nothing useful about the key and is safe to show in messages.
    """
    _check_key(key)
    return hmac.new(bytes(key), _KEY_ID_LABEL, hashlib.sha256).digest()[:KEY_ID_BYTES]


def blob_key_id(blob: bytes) -> bytes:
    """Return the key id written in ``blob``'s header.

    Raises:
        MalformedBlob: ``blob`` is too short to be a sealed secret.
        UnsupportedBlobVersion: ``blob`` has an unknown version byte.
    """
    _check_header(blob, "(unnamed)")
    return bytes(blob[1:HEADER_BYTES])


def _check_header(blob: bytes, secret_id: str) -> None:
    if len(blob) < 1:
        raise MalformedBlob(f"secret {secret_id!r}: the stored value is empty, not a sealed secret")
    if blob[0] != VERSION:
        raise UnsupportedBlobVersion(
            f"secret {secret_id!r} was sealed with format version {blob[0]}, but this "
            f"Tapemind reads version {VERSION}; upgrade Tapemind to read it"
        )
    if len(blob) < MIN_BLOB_BYTES:
        raise MalformedBlob(
            f"secret {secret_id!r}: the stored value is {len(blob)} bytes, too short to be "
            "a sealed secret; it was truncated or damaged"
        )


def _aad(header: bytes, secret_id: str) -> bytes:
    return header + secret_id.encode("utf-8")


def seal(key: bytes, secret_id: str, plaintext: bytes) -> bytes:
    """Encrypt ``plaintext`` for the secret ``secret_id`` under ``key``.

    Args:
        key: the 32-byte vault key.
        secret_id: the secret's stable id; bound as associated data.
        plaintext: the value.

    Returns:
        A version-1 blob (a fresh nonce each call, so sealing twice differs).
    """
    _check_key(key)
    header = bytes([VERSION]) + key_id(key)
    nonce = os.urandom(NONCE_BYTES)
    body = AESGCM(bytes(key)).encrypt(nonce, bytes(plaintext), _aad(header, secret_id))
    return header + nonce + body


def open_sealed(key: bytes, secret_id: str, blob: bytes) -> bytes:
    """Decrypt a blob made by ``seal`` for the same ``secret_id`` and ``key``.

    Returns:
        The plaintext.

    Raises:
        MalformedBlob, UnsupportedBlobVersion: the blob is not a readable sealed secret.
        WrongKey: the blob was sealed under another vault key (or its key id byte was
            damaged).
        BlobTampered: authentication failed: the blob was altered, or it belongs to
            another secret id.
    """
    _check_key(key)
    blob = bytes(blob)
    _check_header(blob, secret_id)
    header = blob[:HEADER_BYTES]
    expected = key_id(key)
    if header[1:] != expected:
        raise WrongKey(
            f"secret {secret_id!r} was sealed under vault key {header[1:].hex()}, but the "
            f"key in use is {expected.hex()}; unlock the vault with the key it was "
            "written with (or the blob header was damaged)"
        )
    nonce = blob[HEADER_BYTES : HEADER_BYTES + NONCE_BYTES]
    body = blob[HEADER_BYTES + NONCE_BYTES :]
    try:
        return AESGCM(key).decrypt(nonce, body, _aad(header, secret_id))
    except InvalidTag:
        # `from None`: InvalidTag carries nothing useful and the traceback should not
        # suggest that more detail exists.
        raise BlobTampered(
            f"secret {secret_id!r} failed authentication: the stored value was altered "
            "or belongs to another secret; nothing was returned"
        ) from None


def reseal_all(old_key: bytes, new_key: bytes, blobs: Mapping[str, bytes]) -> dict[str, bytes]:
    """Re-encrypt every blob in ``blobs`` (secret id -> blob) from ``old_key`` to ``new_key``.

    All or nothing: every blob is opened before anything is returned; if any fails,
    ``RotationError`` names every failing secret id and nothing is returned.

    Raises:
        RotationError: one or more blobs could not be opened with ``old_key``.
    """
    _check_key(new_key)
    failures: list[str] = []
    resealed: dict[str, bytes] = {}
    for secret_id, blob in blobs.items():
        try:
            resealed[secret_id] = seal(new_key, secret_id, open_sealed(old_key, secret_id, blob))
        except SealedBlobError as exc:
            failures.append(f"{secret_id!r} ({type(exc).__name__})")
    if failures:
        resealed.clear()
        raise RotationError(
            f"cannot re-encrypt {len(failures)} of {len(blobs)} secrets with the current "
            f"key: {', '.join(sorted(failures))}; nothing was changed"
        )
    return resealed
