"""Handing the vault key to another host or machine: `export_vault_key` where the key is,
`import_vault_key` where it is not.

Each host here has a keyring backend of its own (a real `KeyringBackend` in memory,
behind `KeyringKeyStore`); a home directory copied to a new machine is the embedded
home's version of a second host. Secrets stay sealed in the database throughout.
"""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from app import Engine
from app.clock import ManualClock
from app.errors import InvalidInput, VaultKeyNotHere, VaultProblem
from app.vault import KeyringKeyStore, PassphraseKeyStore, WrongPassphrase
from app.vault.passphrase import FORMAT, read_key_file
from tests import committed
from tests.conftest import MemoryKeyring

VALUE = "ghp_Zt8QmX2vLr9KwYp4NcB7dF3sHj6TgA1eUo5i"
HANDOVER = "carried across 交接-口令"
HOST_PASSPHRASE = "this host's own passphrase"


def _copy_home(home: Path, to: Path) -> Path:
    """The home directory moved to a new machine (the database goes with it)."""
    shutil.copytree(home, to)
    return to


def _on_host(home: Path, clock: ManualClock, backend: MemoryKeyring) -> Engine:
    """The home opened on a host whose OS keyring is `backend`."""
    with Engine.open(home, clock=clock) as probe:
        home_id = probe.home_id
    return Engine.open(home, clock=clock, keystore=KeyringKeyStore(home_id, backend=backend))


@pytest.fixture
def first(home: Path, clock: ManualClock) -> Path:
    """A home with one secret, its key in the (autouse, in-memory) OS keyring."""
    with Engine.open(home, create=True, clock=clock) as eng:
        eng.add_agent("cc")
        eng.set_secret("GITHUB_TOKEN", VALUE)
    return home


def test_a_moved_home_opens_its_vault_only_after_import_key(
    first: Path, tmp_path: Path, clock: ManualClock
) -> None:
    exported = tmp_path / "carry" / "vault-key.export"
    with Engine.open(first, clock=clock) as eng:
        done = eng.export_vault_key(str(exported), HANDOVER)
        key_id = eng.vault_status().key_id
    assert done.key_id == key_id
    # The passphrase key file's format, 0600, and nothing in it reveals the key.
    assert stat.S_IMODE(exported.stat().st_mode) == 0o600
    doc = json.loads(exported.read_text())
    assert doc["format"] == FORMAT and doc["key_id"] == key_id
    assert VALUE not in exported.read_text()

    second_keyring = MemoryKeyring()
    moved = _copy_home(first, tmp_path / "new-machine")
    with _on_host(moved, clock, second_keyring) as eng:
        with pytest.raises(VaultKeyNotHere) as missing:
            eng.reveal_secret("GITHUB_TOKEN")
        said = str(missing.value)
        assert "tapemind vault import-key" in said and "tapemind vault export-key" in said
        assert "import-key" in (missing.value.for_agents or "")

        with pytest.raises(VaultProblem, match="does not unlock") as wrong:
            eng.import_vault_key(str(exported), "not the handover passphrase")
        assert "passphrase" not in repr(wrong.value.__cause__)
        assert second_keyring.entries == {}

        took = eng.import_vault_key(str(exported), HANDOVER)
        assert took.stored and took.key_id == key_id and "OS keyring" in took.where
        assert eng.reveal_secret("GITHUB_TOKEN") == VALUE
        again = eng.import_vault_key(str(exported), HANDOVER)
        assert not again.stored
        audit = [(e.action, e.object_ids, dict(e.counts)) for e in eng.audit(limit=50)]
        # Nothing the database holds carries the key, the passphrase or the value.
        held = committed.raw(eng)
    assert ("vault.import_key", (key_id,), {"stored": 1}) in audit
    assert ("vault.export_key", (key_id,), {}) in audit
    key_text = next(iter(second_keyring.entries.values())).encode()
    for leak in (HANDOVER.encode(), VALUE.encode(), key_text):
        assert leak not in held


def test_a_key_of_another_home_is_refused_and_nothing_changes(
    first: Path, tmp_path: Path, clock: ManualClock
) -> None:
    other_home = tmp_path / "other"
    foreign = tmp_path / "foreign.key"
    other_store = KeyringKeyStore("other", backend=MemoryKeyring())
    with Engine.open(other_home, create=True, clock=clock, keystore=other_store) as eng:
        eng.set_secret("OTHER", "another home's value 9f8e7d")
        eng.export_vault_key(str(foreign), HANDOVER)
    second_keyring = MemoryKeyring()
    moved = _copy_home(first, tmp_path / "new-machine")
    with _on_host(moved, clock, second_keyring) as eng:
        with pytest.raises(VaultProblem, match="another vault's key") as refused:
            eng.import_vault_key(str(foreign), HANDOVER)
        assert "tapemind vault export-key" in str(refused.value)
        assert second_keyring.entries == {}
        assert "vault.import_key" not in [e.action for e in eng.audit(limit=50)]


def test_damaged_missing_and_foreign_format_files_change_nothing(
    first: Path, tmp_path: Path, clock: ManualClock
) -> None:
    exported = tmp_path / "good.key"
    with Engine.open(first, clock=clock) as eng:
        eng.export_vault_key(str(exported), HANDOVER)
        with pytest.raises(InvalidInput, match="already exists"):
            eng.export_vault_key(str(exported), HANDOVER)
        before = exported.read_bytes()
        eng.export_vault_key(str(exported), HANDOVER, force=True)
        assert exported.read_bytes() != before  # a fresh salt and nonces
        with pytest.raises(VaultProblem, match="at least 8 characters"):
            eng.export_vault_key(str(tmp_path / "short.key"), "short")
        assert not (tmp_path / "short.key").exists()
    damaged = tmp_path / "damaged.key"
    doc = json.loads(exported.read_text())
    doc["wrapped_key"]["ciphertext"] = doc["verifier"]["ciphertext"]
    damaged.write_text(json.dumps(doc))
    not_ours = tmp_path / "settings.json"
    not_ours.write_text(json.dumps({"format": "something else", "version": 1}))
    garbage = tmp_path / "garbage.key"
    garbage.write_bytes(b"\x00\xff not json")
    second_keyring = MemoryKeyring()
    moved = _copy_home(first, tmp_path / "new-machine")
    with _on_host(moved, clock, second_keyring) as eng:
        for path, said in (
            (damaged, "damaged on the way"),
            (not_ours, "not a Tapemind vault key file"),
            (garbage, "not a Tapemind vault key file"),
            (tmp_path / "absent.key", "no file at"),
        ):
            with pytest.raises(VaultProblem, match=said):
                eng.import_vault_key(str(path), HANDOVER)
        assert second_keyring.entries == {}
        with pytest.raises(VaultKeyNotHere):
            eng.reveal_secret("GITHUB_TOKEN")


def test_after_rotate_key_elsewhere_a_host_is_told_to_import_the_new_key(
    first: Path, tmp_path: Path, clock: ManualClock
) -> None:
    old_export, new_export = tmp_path / "old.key", tmp_path / "new.key"
    with Engine.open(first, clock=clock) as eng:
        eng.export_vault_key(str(old_export), HANDOVER)
    second_keyring = MemoryKeyring()
    moved = _copy_home(first, tmp_path / "new-machine")
    with _on_host(moved, clock, second_keyring) as eng:
        eng.import_vault_key(str(old_export), HANDOVER)
        assert eng.reveal_secret("GITHUB_TOKEN") == VALUE
    # The embedded home moved, so "the other host" is the moved copy rotating its key.
    with _on_host(moved, clock, second_keyring) as eng:
        rotated = eng.rotate_vault_key()
        eng.export_vault_key(str(new_export), HANDOVER)
    copy = _copy_home(moved, tmp_path / "third")
    # The third machine still holds the key rotate-key replaced.
    stale_keyring = MemoryKeyring()
    with _on_host(copy, clock, stale_keyring) as eng:
        KeyringKeyStore(eng.home_id, backend=stale_keyring).store_key(_key_in(old_export))
        blobs = committed.rows(eng, "SELECT blob, key_id FROM secrets")
        with pytest.raises(VaultKeyNotHere, match="rotate-key") as stale:
            eng.reveal_secret("GITHUB_TOKEN")
        assert rotated.new_key_id in str(stale.value) and "import-key" in str(stale.value)
        # Nothing is ever sealed under the old key.
        with pytest.raises(VaultKeyNotHere):
            eng.set_secret("GITHUB_TOKEN", "a value sealed under the old key?")
        with pytest.raises(VaultKeyNotHere):
            eng.rotate_vault_key()
        assert committed.rows(eng, "SELECT blob, key_id FROM secrets") == blobs
        with pytest.raises(VaultProblem, match="has since replaced"):
            eng.import_vault_key(str(old_export), HANDOVER)
        eng.import_vault_key(str(new_export), HANDOVER)
        assert eng.reveal_secret("GITHUB_TOKEN") == VALUE


def _key_in(path: Path) -> bytes:
    return read_key_file(path, HANDOVER)


def test_a_host_without_a_keyring_keeps_the_key_under_its_own_passphrase(
    first: Path, tmp_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    exported = tmp_path / "carry.key"
    with Engine.open(first, clock=clock) as eng:
        eng.export_vault_key(str(exported), HANDOVER)
    moved = _copy_home(first, tmp_path / "server")
    monkeypatch.setattr(keyring.core, "_keyring_backend", fail.Keyring())
    asked: list[str] = []

    def host_passphrase(purpose: str) -> str:
        asked.append(purpose)
        return HOST_PASSPHRASE

    with Engine.open(moved, clock=clock) as eng:
        eng.use_passphrase_prompt(host_passphrase)
        # The key was made in a keyring; this host has none and no key file yet.
        with pytest.raises(VaultProblem, match="import-key"):
            eng.reveal_secret("GITHUB_TOKEN")
        took = eng.import_vault_key(str(exported), HANDOVER)
        assert "passphrase-protected key file" in took.where and asked == ["create"]
        assert eng.vault_status().keystore == "passphrase"  # this host's, not the first's
        assert eng.reveal_secret("GITHUB_TOKEN") == VALUE
    key_file = moved / "vault-key.json"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # Unlocked by this host's passphrase, not the handover one.
    with pytest.raises(WrongPassphrase):
        PassphraseKeyStore(key_file, lambda _: HANDOVER, environ={}).load_key()
    with Engine.open(moved, clock=clock) as eng:
        eng.use_passphrase_prompt(lambda _: HOST_PASSPHRASE)
        assert eng.reveal_secret("GITHUB_TOKEN") == VALUE


def test_a_keyring_host_of_a_passphrase_home_keeps_the_key_in_its_keyring(
    home: Path, tmp_path: Path, clock: ManualClock, memory_keyring: MemoryKeyring
) -> None:
    exported = tmp_path / "carry.key"
    made = PassphraseKeyStore(home / "vault-key.json", lambda _: HOST_PASSPHRASE, environ={})
    with Engine.open(home, create=True, clock=clock, keystore=made) as eng:
        eng.set_secret("GITHUB_TOKEN", VALUE)
        eng.export_vault_key(str(exported), HANDOVER)
    moved = _copy_home(home, tmp_path / "laptop")
    (moved / "vault-key.json").unlink()  # the new machine has a keyring instead
    with Engine.open(moved, clock=clock) as eng:
        took = eng.import_vault_key(str(exported), HANDOVER)
        assert "OS keyring" in took.where
    assert memory_keyring.entries
    # Later processes find the key in the keyring, though the home recorded a passphrase.
    with Engine.open(moved, clock=clock) as eng:
        assert eng.reveal_secret("GITHUB_TOKEN") == VALUE


def test_a_new_key_for_an_emptied_vault_sends_the_old_holders_to_import_key(
    first: Path, tmp_path: Path, clock: ManualClock, memory_keyring: MemoryKeyring
) -> None:
    with Engine.open(first, clock=clock) as eng:
        eng.remove_secret("GITHUB_TOKEN")
    moved = _copy_home(first, tmp_path / "new-machine")
    with _on_host(moved, clock, MemoryKeyring()) as eng:
        made = eng.set_secret("NEXT", VALUE)  # no key here and nothing sealed: a new key
    # The first machine (its keyring still holding the old key) on the moved database.
    shutil.copy(moved / "tapemind.db", first / "tapemind.db")
    with Engine.open(first, clock=clock) as eng:
        with pytest.raises(VaultKeyNotHere, match="needs the new key") as stale:
            eng.reveal_secret("NEXT")
        assert made.key_id in str(stale.value)
