"""``vault rotate-key``: re-encrypt every secret under a new key, surviving a crash.

The sealed secrets live in the store (SQLite) and the key lives in a key store (the OS
keyring or a key file); no single transaction spans both. So the rotation writes a
*journal* with the re-encrypted secrets, in the store's one transaction: the new key
sealed under the old key. Whatever point a crash stops at, one of the two keys is in
the key store and the journal bridges to the other:

1. plan: open every blob with the old key and seal it under a new key, in memory
   (all or nothing; a blob that does not open stops everything, nothing changed);
2. ``commit(resealed, journal)``: the caller writes all new blobs and the journal in
   one transaction;
3. the key store gets the new key;
4. ``clear_journal()``.

After a crash between 2 and 3 the key store still holds the old key, which opens the
journal: ``resume_rotation`` stores the new key. After 3, the journal names the new
key's id, and ``resume_rotation`` sees the rotation already finished.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from app.vault.cipher import (
    KEY_ID_BYTES,
    blob_key_id,
    key_id,
    new_key,
    open_sealed,
    reseal_all,
    seal,
)
from app.vault.errors import RotationError, VaultError
from app.vault.keystore import KeyStore

JOURNAL_SECRET_ID = "tapemind:rotation-journal"


@dataclass(frozen=True)
class RotationPlan:
    """A rotation computed in memory, not yet written anywhere."""

    old_key_id: str
    new_key_id: str
    new_key: bytes = field(repr=False)
    resealed: Mapping[str, bytes] = field(repr=False)
    journal: bytes = field(repr=False)


@dataclass(frozen=True)
class RotationResult:
    """What a finished rotation changed (ids and counts only)."""

    old_key_id: str
    new_key_id: str
    secrets: int


def plan_rotation(old_key: bytes, blobs: Mapping[str, bytes]) -> RotationPlan:
    """Re-encrypt ``blobs`` (secret id -> blob) under a fresh key, in memory.

    Raises:
        RotationError: a blob does not open with ``old_key``; nothing is returned.
    """
    key = new_key()
    resealed = reseal_all(old_key, key, blobs)
    journal = key_id(key) + seal(old_key, JOURNAL_SECRET_ID, key)
    return RotationPlan(key_id(old_key).hex(), key_id(key).hex(), key, resealed, journal)


def rotate_key(
    keystore: KeyStore,
    blobs: Mapping[str, bytes],
    commit: Callable[[Mapping[str, bytes], bytes], None],
    clear_journal: Callable[[], None],
) -> RotationResult:
    """Rotate the vault key held by ``keystore`` and re-encrypt ``blobs`` under it.

    Args:
        keystore: holds the current key; receives the new one.
        blobs: every sealed secret, by secret id.
        commit: writes the re-encrypted blobs and the journal in ONE transaction; if it
            raises, it must have written nothing.
        clear_journal: deletes the journal once the key store holds the new key.

    Raises:
        RotationError: nothing was changed (a blob did not open), or the key store
            refused the new key after the commit; the message says which, and in the
            second case ``resume_rotation`` finishes the job on the next unlock.
        VaultError: the current key could not be loaded; nothing was changed.
    """
    plan = plan_rotation(keystore.load_key(), blobs)
    commit(plan.resealed, plan.journal)
    try:
        keystore.store_key(plan.new_key)
    except VaultError as exc:
        raise RotationError(
            f"the secrets were re-encrypted under key {plan.new_key_id}, but "
            f"{keystore.describe()} refused the new key ({_said(exc)}); the old "
            "key is still in place and the rotation journal holds the new one: unlock "
            "the vault again to finish the rotation"
        ) from exc
    clear_journal()
    return RotationResult(plan.old_key_id, plan.new_key_id, len(plan.resealed))


def resume_rotation(keystore: KeyStore, journal: bytes) -> bool:
    """Finish a rotation interrupted after its commit. Call when a journal exists.

    Returns:
        True if the new key was moved into ``keystore`` now, False if it was already
        there. Either way the caller then deletes the journal.

    Raises:
        RotationError: the journal matches neither the key in the store nor the key it
            carries (it belongs to another vault or was damaged).
    """
    current = keystore.load_key()
    carried_id, sealed = journal[:KEY_ID_BYTES], journal[KEY_ID_BYTES:]
    if carried_id == key_id(current):
        return False
    if len(sealed) and blob_key_id(sealed) == key_id(current):
        fresh = open_sealed(current, JOURNAL_SECRET_ID, sealed)
        if key_id(fresh) != carried_id:
            raise RotationError("the rotation journal is damaged; the vault key was not changed")
        keystore.store_key(fresh)
        return True
    raise RotationError(
        f"a rotation journal for key {carried_id.hex()} exists, but {keystore.describe()} "
        f"holds key {key_id(current).hex()}, which neither wrote it nor is its target"
    )


def _said(exc: Exception) -> str:
    """What an error said, in words: never its class name (a user reads this line)."""
    return str(exc).strip().rstrip(".") or "it gave no reason"
