"""Key stores: the vault key in an (in-memory) keyring, behind a passphrase, or in memory.

No test here touches a real keychain; ``test_keyring_real.py`` does, under its runner.
"""

from __future__ import annotations

import base64
import json
import os
import stat
import unicodedata
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail, null
from keyring.errors import KeyringLocked, PasswordDeleteError

from app.vault import (
    KeyCorrupt,
    KeyMissing,
    KeyringKeyStore,
    KeyringUnavailable,
    KeyStore,
    MemoryKeyStore,
    PassphraseKeyStore,
    PassphraseRejected,
    VaultLocked,
    WrongPassphrase,
    choose_keystore,
    keyring_problem,
    new_key,
    open_sealed,
    rotate_key,
    seal,
)
from app.vault.passphrase import PASSPHRASE_ENV

FAST_N = 2**15  # the floor; production files use 2**17


class DictKeyring(KeyringBackend):
    """An in-memory keyring backend (what the autouse fixture will install)."""

    priority = 1  # type: ignore[assignment]
    # Every KeyringBackend subclass registers itself with keyring; without this,
    # keyring.get_keyring() would chain it in front of a real Secret Service in the
    # same process (test_keyring_real). It is only ever injected explicitly.
    viable = False  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}
        self.locked = False
        self.broken = False

    def _check(self) -> None:
        if self.locked:
            raise KeyringLocked("collection is locked")
        if self.broken:
            raise RuntimeError(f"D-Bus error while handling {self.entries!r}")

    def get_password(self, service: str, username: str) -> str | None:
        self._check()
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self._check()
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self._check()
        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError("not found")


# -- memory ---------------------------------------------------------------------


def test_memory_keystore_round_trip_and_missing() -> None:
    store = MemoryKeyStore()
    assert isinstance(store, KeyStore) and not store.has_key()
    with pytest.raises(KeyMissing):
        store.load_key()
    key = new_key()
    store.store_key(key)
    assert store.load_key() == key
    store.delete_key()
    assert not store.has_key()


# -- keyring ----------------------------------------------------------------------


def test_keyring_keystore_keeps_the_key_base64_under_service_tapemind() -> None:
    backend = DictKeyring()
    store = KeyringKeyStore("home-1", backend=backend)
    assert isinstance(store, KeyStore)
    key = new_key()
    store.store_key(key)
    assert backend.entries == {("tapemind", "vault:home-1"): base64.b64encode(key).decode()}
    assert KeyringKeyStore("home-1", backend=backend).load_key() == key
    assert "vault:home-1" in store.describe()


def test_two_homes_keep_two_keys() -> None:
    backend = DictKeyring()
    first, second = KeyringKeyStore("a", backend=backend), KeyringKeyStore("b", backend=backend)
    first.store_key(key_a := new_key())
    second.store_key(key_b := new_key())
    assert (first.load_key(), second.load_key()) == (key_a, key_b)


def test_missing_keyring_entry_is_key_missing() -> None:
    store = KeyringKeyStore("home-1", backend=DictKeyring())
    assert not store.has_key()
    with pytest.raises(KeyMissing, match="another machine or user account"):
        store.load_key()
    store.delete_key()  # nothing to delete: a no-op


def test_a_foreign_value_in_the_entry_is_key_corrupt() -> None:
    backend = DictKeyring()
    backend.entries[("tapemind", "vault:h")] = "hunter2"
    with pytest.raises(KeyCorrupt) as caught:
        KeyringKeyStore("h", backend=backend).load_key()
    assert "hunter2" not in str(caught.value)


def test_locked_keyring_is_vault_locked() -> None:
    backend = DictKeyring()
    backend.locked = True
    with pytest.raises(VaultLocked, match="keyring is locked"):
        KeyringKeyStore("h", backend=backend).load_key()


def test_backend_failure_never_echoes_the_key() -> None:
    backend = DictKeyring()
    store = KeyringKeyStore("h", backend=backend)
    key = new_key()
    store.store_key(key)
    backend.broken = True  # its error message would contain the stored entries
    for action in (store.load_key, lambda: store.store_key(key), store.delete_key):
        with pytest.raises(KeyringUnavailable) as caught:
            action()
        message = str(caught.value)
        assert "RuntimeError" in message
        assert base64.b64encode(key).decode() not in message
        assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize(
    ("backend", "words"),
    [(fail.Keyring(), "no OS keyring backend"), (null.Keyring(), "null backend")],
)
def test_no_backend_is_reported_clearly(backend: KeyringBackend, words: str) -> None:
    assert words in (keyring_problem(backend) or "")
    with pytest.raises(KeyringUnavailable, match="passphrase-protected vault"):
        KeyringKeyStore("h", backend=backend).load_key()


def test_plaintext_keyring_backends_are_refused() -> None:
    plaintext = type("PlaintextKeyring", (DictKeyring,), {"__module__": "keyrings.alt.file"})
    assert "not an OS keyring" in (keyring_problem(plaintext()) or "")
    assert keyring_problem(DictKeyring()) is None


# -- passphrase -------------------------------------------------------------------


def _pp_store(
    path: Path, passphrase: str | None = "correct horse 电池", **kw: object
) -> PassphraseKeyStore:
    env = {} if passphrase is None else {PASSPHRASE_ENV: passphrase}
    return PassphraseKeyStore(path, environ=env, scrypt_n=FAST_N, **kw)  # type: ignore[arg-type]


def test_passphrase_key_round_trips_through_a_private_file(tmp_path: Path) -> None:
    path = tmp_path / "home" / "vault-key.json"
    key = new_key()
    old_umask = os.umask(0)  # even a permissive umask must not widen the file
    try:
        _pp_store(path).store_key(key)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert os.listdir(path.parent) == ["vault-key.json"]  # no temp file left behind
    text = path.read_text()
    assert base64.b64encode(key).decode() not in text and "电池" not in text
    doc = json.loads(text)
    assert doc["kdf"]["name"] == "scrypt" and doc["kdf"]["n"] >= 2**15
    assert len(base64.b64decode(doc["kdf"]["salt"])) == 16
    assert _pp_store(path).load_key() == key


def test_default_cost_is_stronger_than_the_floor(tmp_path: Path) -> None:
    store = PassphraseKeyStore(tmp_path / "k.json", environ={PASSPHRASE_ENV: "long enough"})
    store.store_key(new_key())
    assert json.loads((tmp_path / "k.json").read_text())["kdf"]["n"] == 2**17


def test_wrong_passphrase_is_detected_and_nothing_changes(tmp_path: Path) -> None:
    path = tmp_path / "vault-key.json"
    _pp_store(path).store_key(new_key())
    before = path.read_bytes()
    with pytest.raises(WrongPassphrase) as caught:
        _pp_store(path, "wrong passphrase 错误").load_key()
    message = str(caught.value)
    assert "TAPEMIND_VAULT_PASSPHRASE" in message and "错误" not in message
    assert "wrong passphrase" not in message
    assert path.read_bytes() == before


def test_no_passphrase_available_is_vault_locked(tmp_path: Path) -> None:
    path = tmp_path / "vault-key.json"
    _pp_store(path).store_key(new_key())
    with pytest.raises(VaultLocked, match="set TAPEMIND_VAULT_PASSPHRASE"):
        _pp_store(path, None).load_key()


def test_provider_is_asked_to_create_then_to_unlock(tmp_path: Path) -> None:
    path, asked = tmp_path / "vault-key.json", []

    def provider(purpose: str) -> str:
        asked.append(purpose)
        return "口令口令口令口令"

    key = new_key()
    _pp_store(path, None, passphrase_provider=provider).store_key(key)
    reader = _pp_store(path, None, passphrase_provider=provider)
    assert reader.load_key() == key and reader.load_key() == key  # asked once per object
    assert asked == ["create", "unlock"]


def test_short_new_passphrase_is_rejected_and_nothing_written(tmp_path: Path) -> None:
    path = tmp_path / "vault-key.json"
    with pytest.raises(PassphraseRejected, match="at least 8"):
        _pp_store(path, "short").store_key(new_key())
    assert not path.exists()


def test_passphrase_is_unicode_normalised(tmp_path: Path) -> None:
    path = tmp_path / "vault-key.json"
    composed = "café 密码 vault"
    key = new_key()
    _pp_store(path, unicodedata.normalize("NFC", composed)).store_key(key)
    assert _pp_store(path, unicodedata.normalize("NFD", composed)).load_key() == key


def test_missing_key_file_is_key_missing(tmp_path: Path) -> None:
    store = _pp_store(tmp_path / "vault-key.json")
    assert not store.has_key()
    with pytest.raises(KeyMissing, match="restore it from a backup"):
        store.load_key()


@pytest.mark.parametrize(
    "damage",
    [
        lambda doc: doc["wrapped_key"].update(ciphertext=base64.b64encode(b"x" * 48).decode()),
        lambda doc: doc["kdf"].update(n=1024),  # weakened cost
        lambda doc: doc.update(version=9),
        lambda doc: doc["verifier"].update(nonce="not base64!"),
        lambda doc: doc.pop("kdf"),
    ],
)
def test_damaged_key_file_is_key_corrupt(tmp_path: Path, damage: object) -> None:
    path = tmp_path / "vault-key.json"
    _pp_store(path).store_key(new_key())
    doc = json.loads(path.read_text())
    damage(doc)  # type: ignore[operator]
    path.write_text(json.dumps(doc))
    with pytest.raises(KeyCorrupt):
        _pp_store(path).load_key()


def test_garbage_key_file_is_key_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "vault-key.json"
    path.write_bytes(b"\x00not json")
    with pytest.raises(KeyCorrupt, match="not a readable Tapemind vault key file"):
        _pp_store(path).load_key()


def test_change_passphrase_keeps_the_key(tmp_path: Path) -> None:
    path = tmp_path / "vault-key.json"
    key = new_key()
    _pp_store(path).store_key(key)
    answers = iter(["new passphrase 新的"])
    env: dict[str, str] = {PASSPHRASE_ENV: "correct horse 电池"}
    store = PassphraseKeyStore(path, lambda _purpose: next(answers), environ=env, scrypt_n=FAST_N)
    store.load_key()
    env.clear()  # the new passphrase comes from the prompt
    store.change_passphrase()
    assert _pp_store(path, "new passphrase 新的").load_key() == key
    with pytest.raises(WrongPassphrase):
        _pp_store(path).load_key()


def test_rotate_key_with_a_passphrase_asks_once(tmp_path: Path) -> None:
    path, asked = tmp_path / "vault-key.json", []

    def provider(purpose: str) -> str:
        asked.append(purpose)
        return "a long passphrase"

    _pp_store(path, "a long passphrase").store_key(old := new_key())
    blobs = {"github": seal(old, "github", b"ghp_value")}
    store = _pp_store(path, None, passphrase_provider=provider)
    committed: dict[str, bytes] = {}
    rotate_key(store, blobs, lambda resealed, _journal: committed.update(resealed), lambda: None)
    assert asked == ["unlock"]
    fresh = _pp_store(path, "a long passphrase").load_key()
    assert fresh != old and open_sealed(fresh, "github", committed["github"]) == b"ghp_value"


def test_delete_key_removes_the_file(tmp_path: Path) -> None:
    store = _pp_store(tmp_path / "vault-key.json")
    store.store_key(new_key())
    store.delete_key()
    store.delete_key()
    assert not store.has_key()
    with pytest.raises(KeyMissing):
        store.load_key()


# -- choosing -----------------------------------------------------------------------


def test_choose_keyring_when_a_backend_exists(tmp_path: Path) -> None:
    chosen = choose_keystore(tmp_path, "h", backend=DictKeyring())
    assert isinstance(chosen, KeyringKeyStore) and chosen.username == "vault:h"


def test_choose_passphrase_when_no_backend(tmp_path: Path) -> None:
    chosen = choose_keystore(tmp_path, "h", backend=fail.Keyring(), environ={})
    assert isinstance(chosen, PassphraseKeyStore)
    assert chosen.params_path == tmp_path / "vault-key.json"
    with pytest.raises(VaultLocked):  # never a plaintext fallback
        chosen.store_key(new_key())


def test_an_existing_key_file_wins_over_the_keyring(tmp_path: Path) -> None:
    _pp_store(tmp_path / "vault-key.json").store_key(new_key())
    assert isinstance(choose_keystore(tmp_path, "h", backend=DictKeyring()), PassphraseKeyStore)


def test_a_keyring_home_without_its_keyring_is_not_given_a_new_passphrase(
    tmp_path: Path,
) -> None:
    with pytest.raises(KeyringUnavailable, match="this home's vault key is in the OS keyring"):
        choose_keystore(tmp_path, "h", backend=fail.Keyring(), recorded_kind="keyring")


def test_an_existing_key_file_is_not_replaced_without_its_passphrase(tmp_path: Path) -> None:
    path = tmp_path / "vault-key.json"
    _pp_store(path).store_key(key := new_key())
    before = path.read_bytes()
    with pytest.raises(WrongPassphrase):
        _pp_store(path, "someone else's passphrase").store_key(new_key())
    assert path.read_bytes() == before
    assert _pp_store(path).load_key() == key


def test_a_key_rotated_by_another_process_is_picked_up_without_asking(tmp_path: Path) -> None:
    path, asked = tmp_path / "vault-key.json", []

    def provider(purpose: str) -> str:
        asked.append(purpose)
        return "correct horse 电池"

    _pp_store(path).store_key(new_key())
    app_side = _pp_store(path, None, passphrase_provider=provider)
    app_side.load_key()
    _pp_store(path).store_key(rotated := new_key())  # the CLI's rotate-key
    assert app_side.load_key() == rotated
    assert asked == ["unlock"]


def test_a_failed_write_leaves_the_old_key_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "vault-key.json"
    _pp_store(path).store_key(key := new_key())
    before = path.read_bytes()

    def power_cut(_src: object, _dst: object) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr("app.vault.atomic.os.replace", power_cut)
    with pytest.raises(OSError, match="no space left"):
        _pp_store(path).store_key(new_key())
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["vault-key.json"]
    assert _pp_store(path).load_key() == key
