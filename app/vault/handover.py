"""Handing the vault key to another host: ``vault export-key`` and ``vault import-key``.

In team mode several home directories, each on its own machine, serve one database.
The secrets are sealed in that database under one vault key, and every host keeps its
own copy of the key where it keeps keys: its OS keyring, else its own passphrase key
file. The key never goes into the database, so a host that lacks it cannot open the
vault until the owner hands it over:

1. where the key is, ``vault export-key --to FILE`` writes it wrapped under a
   passphrase the owner chooses for the handover (the key file format of
   ``passphrase``: scrypt and AES-GCM, 0600, written atomically);
2. on the other host, ``vault import-key FILE`` unwraps it, checks its fingerprint
   against the database's ``key_id`` and stores it in that host's key store.

The same two steps move a key with a home directory to a new machine. After
``vault rotate-key`` on one host, the others hold the key it replaced; the database
remembers the replaced fingerprints (meta ``former_key_ids``), so those hosts are told
to import the new key rather than that they hold a foreign one.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.vault.cipher import key_id
from app.vault.errors import KeyCorrupt, KeyMissing, VaultError, WrongPassphrase
from app.vault.passphrase import read_key_file

FORMER_KEY_IDS = "former_key_ids"  # vault meta: JSON list of the key ids rotate-key replaced

HOW_TO_HAND_OVER = (
    "run `tapemind vault export-key --to FILE` on a host or machine that has this home's "
    "vault key, copy FILE here and run `tapemind vault import-key FILE`"
)


class KeyHandoverRefused(VaultError):
    """An exported key file cannot be imported here; nothing was changed."""


def read_exported_key(path: Path, passphrase: str) -> bytes:
    """The key in an exported key file, unwrapped with ``passphrase``.

    Raises:
        KeyHandoverRefused: no file, not a key file, a damaged one, or a wrong
            passphrase; the message says which and what to do.
    """
    try:
        return read_key_file(path, passphrase)
    except KeyMissing:
        raise KeyHandoverRefused(f"there is no file at {path}; nothing was changed") from None
    except WrongPassphrase:
        raise KeyHandoverRefused(
            f"the passphrase does not unlock {path}; nothing was changed. Type the passphrase "
            "chosen when the key was exported with `tapemind vault export-key`"
        ) from None
    except KeyCorrupt:
        raise KeyHandoverRefused(
            f"{path} is not a Tapemind vault key file, or it was damaged on the way; nothing "
            "was changed. Export the key again with `tapemind vault export-key --to FILE`"
        ) from None


def check_belongs(key: bytes, recorded: str, former: list[str], path: Path) -> None:
    """Refuse ``key`` unless it is the key this home's secrets are sealed under.

    Raises:
        KeyHandoverRefused: an earlier key of this vault (rotated away), or another
            vault's key.
    """
    found = key_id(key).hex()
    if found == recorded:
        return
    if found in former:
        raise KeyHandoverRefused(
            f"{path} holds vault key {found}, which `tapemind vault rotate-key` has since "
            f"replaced with key {recorded}; nothing was changed. Export the current key "
            "again on a host that has it (`tapemind vault export-key --to FILE`)"
        )
    raise KeyHandoverRefused(
        f"{path} holds vault key {found}, but this home's secrets are sealed under key "
        f"{recorded}: it is another vault's key; nothing was changed. Export the key from "
        "a host of this home (`tapemind vault export-key --to FILE`)"
    )


def stale_key_message(where: str, held: str, recorded: str, former: list[str]) -> str:
    """What a host says when its key store holds a key that is not the vault's key."""
    if held in former:
        return (
            f"{where} holds vault key {held}, but `tapemind vault rotate-key` (on another "
            f"host or process) replaced it with key {recorded}: this host needs the new "
            f"key. Nothing was changed; {HOW_TO_HAND_OVER}."
        )
    return (
        f"{where} holds vault key {held}, but this home's secrets were sealed under key "
        f"{recorded}: it is another vault's key. Nothing was changed; restore this home's "
        f"key (or its passphrase file), or {HOW_TO_HAND_OVER}."
    )


def former_key_ids(raw: str | None) -> list[str]:
    """The replaced key ids kept in vault meta (an unreadable value counts as none)."""
    try:
        value = json.loads(raw) if raw else []
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def with_former(raw: str | None, replaced: str) -> str:
    """The meta value with ``replaced`` added (once)."""
    ids = former_key_ids(raw)
    if replaced not in ids:
        ids.append(replaced)
    return json.dumps(ids)
