"""The vault on the engine: secrets sealed in the database, the key in a key store.

Damaged blobs, wrong keys and missing keyring entries give clear errors and change
nothing; a key rotation interrupted by a crash is finished on the next unlock.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app import Engine
from app.clock import ManualClock
from app.errors import InvalidInput, NotFound, VaultProblem
from app.vault import MemoryKeyStore, PassphraseKeyStore, key_id, new_key
from app.vault.passphrase import PASSPHRASE_ENV
from tests import committed
from tests.conftest import MemoryKeyring

VALUE = "ghp_Zt8QmX2vLr9KwYp4NcB7dF3sHj6TgA1eUo5i"
OTHER = "hunter2-staging-密码-Ω-9f8e7d"


def db_rows(engine: Engine, sql: str) -> list[tuple[object, ...]]:
    return committed.rows(engine, sql)


def test_set_list_reveal_remove(engine: Engine, memory_keyring: MemoryKeyring) -> None:
    info = engine.set_secret("GITHUB_TOKEN", VALUE, tags=["github", "ci"])
    engine.set_secret("数据库密码", OTHER)
    assert [s.name for s in engine.secrets()] == ["GITHUB_TOKEN", "数据库密码"]
    assert engine.secret("GITHUB_TOKEN").tags == ("github", "ci")
    assert info.key_id == engine.vault_status().key_id
    # The key went to the (in-memory) OS keyring, and the vault remembers that.
    assert [k for k, _ in memory_keyring.entries] == ["tapemind"]
    assert engine.vault_status().keystore == "keyring"
    assert engine.reveal_secret("GITHUB_TOKEN") == VALUE
    assert engine.reveal_secret("数据库密码") == OTHER
    # Stored sealed: the plaintext is nowhere in the database rows.
    blob = db_rows(engine, "SELECT blob FROM secrets WHERE name = 'GITHUB_TOKEN'")[0][0]
    assert isinstance(blob, bytes) and VALUE.encode() not in blob and blob[0] == 1
    # Replacing a value keeps the id and tags; two seals of one value differ (fresh nonce).
    again = engine.set_secret("GITHUB_TOKEN", VALUE)
    assert again.id == info.id and again.tags == ("github", "ci")
    blob2 = db_rows(engine, "SELECT blob FROM secrets WHERE name = 'GITHUB_TOKEN'")[0][0]
    assert blob2 != blob
    removed = engine.remove_secret("GITHUB_TOKEN")
    assert removed.name == "GITHUB_TOKEN"
    assert [s.name for s in engine.secrets()] == ["数据库密码"]
    with pytest.raises(NotFound, match="vault list"):
        engine.reveal_secret("GITHUB_TOKEN")
    actions = [e.action for e in engine.audit(limit=20)]
    assert {"secret.set", "secret.reveal", "secret.remove", "vault.create"} <= set(actions)


def test_bad_names_and_values_are_refused(engine: Engine) -> None:
    for name in ("", "has space", "[x]", "-lead"):
        with pytest.raises(InvalidInput, match="secret name"):
            engine.set_secret(name, VALUE)
    with pytest.raises(InvalidInput, match="looks like a credential") as caught:
        engine.set_secret(VALUE, VALUE)  # the value typed where the name goes
    assert VALUE not in str(caught.value)
    with pytest.raises(InvalidInput, match="shorter"):
        engine.set_secret("PIN", "123")
    with pytest.raises(InvalidInput, match="empty"):
        engine.set_secret("EMPTY", "   ")
    assert engine.secrets() == []


def test_secrets_survive_reopen(home: Path, clock: ManualClock) -> None:
    with Engine.open(home, create=True, clock=clock) as eng:
        eng.set_secret("API", VALUE)
    with Engine.open(home, clock=clock) as eng:
        assert eng.reveal_secret("API") == VALUE


def test_tampered_blob_is_a_clear_error_and_nothing_changes(engine: Engine) -> None:
    engine.set_secret("API", VALUE)
    engine.set_secret("DB", OTHER)
    blob = bytearray(db_rows(engine, "SELECT blob FROM secrets WHERE name='API'")[0][0])
    blob[-1] ^= 0x01
    committed.rows(engine, "UPDATE secrets SET blob = ? WHERE name = 'API'", (bytes(blob),))
    with pytest.raises(VaultProblem) as caught:
        engine.reveal_secret("API")
    assert "'API'" in caught.value.message and "authentication" in caught.value.message
    assert VALUE not in str(caught.value)
    # The other secret still opens, and the damaged blob was not overwritten.
    assert engine.reveal_secret("DB") == OTHER
    assert db_rows(engine, "SELECT blob FROM secrets WHERE name='API'")[0][0] == bytes(blob)
    # A rotation refuses to run over a damaged blob, and changes nothing.
    kid = engine.vault_status().key_id
    with pytest.raises(VaultProblem, match="nothing was changed"):
        engine.rotate_vault_key()
    assert engine.vault_status().key_id == kid
    assert engine.reveal_secret("DB") == OTHER


def test_missing_keyring_entry_is_clear_and_creates_no_new_key(
    home: Path, clock: ManualClock, memory_keyring: MemoryKeyring
) -> None:
    with Engine.open(home, create=True, clock=clock) as eng:
        eng.set_secret("API", VALUE)
    memory_keyring.entries.clear()
    with Engine.open(home, clock=clock) as eng:
        with pytest.raises(VaultProblem, match="no vault key"):
            eng.reveal_secret("API")
        # Setting another secret must not mint a new key over the old secrets.
        with pytest.raises(VaultProblem, match="no vault key"):
            eng.set_secret("NEW", OTHER)
        assert memory_keyring.entries == {}
        assert [s.name for s in eng.secrets()] == ["API"]


def test_wrong_key_is_refused(home: Path, clock: ManualClock) -> None:
    store = MemoryKeyStore()
    with Engine.open(home, create=True, clock=clock, keystore=store) as eng:
        eng.set_secret("API", VALUE)
        right = store.load_key()
    other = MemoryKeyStore(new_key())
    with Engine.open(home, clock=clock, keystore=other) as eng:
        with pytest.raises(VaultProblem, match="another vault's key") as caught:
            eng.reveal_secret("API")
        assert key_id(right).hex() in caught.value.message
        with pytest.raises(VaultProblem):
            eng.set_secret("API", OTHER)  # nothing overwritten under the wrong key
    with Engine.open(home, clock=clock, keystore=store) as eng:
        assert eng.reveal_secret("API") == VALUE


def test_passphrase_vault_when_no_keyring(
    home: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keyring.backends import fail

    monkeypatch.setattr("keyring.core._keyring_backend", fail.Keyring())
    with Engine.open(home, create=True, clock=clock) as eng:
        with pytest.raises(VaultProblem, match=PASSPHRASE_ENV):
            eng.set_secret("API", VALUE)  # no keyring, no passphrase: locked, never plaintext
        eng.use_passphrase_prompt(lambda purpose: "correct horse battery 马")
        eng.set_secret("API", VALUE)
        assert eng.vault_status().keystore == "passphrase"
    key_file = json.loads((home / "vault-key.json").read_text())
    assert key_file["kdf"]["name"] == "scrypt"
    assert VALUE not in (home / "vault-key.json").read_text()
    with Engine.open(home, clock=clock) as eng:
        eng.use_passphrase_prompt(lambda purpose: "wrong passphrase!")
        with pytest.raises(VaultProblem, match="does not unlock"):
            eng.reveal_secret("API")
    monkeypatch.setenv(PASSPHRASE_ENV, "correct horse battery 马")
    with Engine.open(home, clock=clock) as eng:
        assert eng.reveal_secret("API") == VALUE


def test_rotate_key_reencrypts_everything(engine: Engine) -> None:
    engine.set_secret("API", VALUE)
    engine.set_secret("DB", OTHER)
    before = engine.vault_status().key_id
    result = engine.rotate_vault_key()
    assert result.secrets == 2 and result.old_key_id == before
    status = engine.vault_status()
    assert status.key_id == result.new_key_id != before and not status.rotation_pending
    assert {s.key_id for s in engine.secrets()} == {result.new_key_id}
    assert engine.reveal_secret("API") == VALUE and engine.reveal_secret("DB") == OTHER


class CrashingStore(MemoryKeyStore):
    """A key store whose process 'dies' when it is handed the new key."""

    def __init__(self, key: bytes) -> None:
        super().__init__(key)
        self.crash = True

    def store_key(self, key: bytes) -> None:
        if self.crash:
            raise KeyboardInterrupt("simulated crash")
        super().store_key(key)


def test_rotation_crash_before_the_key_store_is_finished_on_reopen(
    home: Path, clock: ManualClock
) -> None:
    store = CrashingStore(new_key())
    with Engine.open(home, create=True, clock=clock, keystore=store) as eng:
        eng.set_secret("API", VALUE)
        eng.set_secret("DB", OTHER)
        old = eng.vault_status().key_id
        with pytest.raises(KeyboardInterrupt):
            eng.rotate_vault_key()
    # The blobs are under the new key, the store still has the old one: the journal
    # bridges them.
    assert key_id(store.load_key()).hex() == old
    with sqlite3.connect(home / "tapemind.db") as conn:  # an embedded home (no URL)
        assert list(conn.execute("SELECT count(*) FROM vault_rotation_journal")) == [(1,)]
    store.crash = False
    with Engine.open(home, clock=clock, keystore=store) as eng:
        assert eng.vault_status().rotation_pending
        assert eng.reveal_secret("API") == VALUE and eng.reveal_secret("DB") == OTHER
        assert key_id(store.load_key()).hex() == eng.vault_status().key_id != old
        assert not eng.vault_status().rotation_pending


def test_rotation_crash_after_the_key_store_is_finished_on_reopen(
    home: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.vault.service import VaultService

    store = MemoryKeyStore(new_key())
    with Engine.open(home, create=True, clock=clock, keystore=store) as eng:
        eng.set_secret("API", VALUE)

        def crash(self: VaultService) -> None:
            raise KeyboardInterrupt("simulated crash")

        monkeypatch.setattr(VaultService, "clear_journal", crash)
        with pytest.raises(KeyboardInterrupt):
            eng.rotate_vault_key()
        monkeypatch.undo()
    with Engine.open(home, clock=clock, keystore=store) as eng:
        assert eng.reveal_secret("API") == VALUE
        assert not eng.vault_status().rotation_pending


def test_passphrase_store_rotation(home: Path, clock: ManualClock) -> None:
    store = PassphraseKeyStore(
        home / "vault-key.json", lambda _: "a long passphrase", scrypt_n=2**15
    )
    with Engine.open(home, create=True, clock=clock, keystore=store) as eng:
        eng.set_secret("API", VALUE)
        eng.rotate_vault_key()
    fresh = PassphraseKeyStore(home / "vault-key.json", lambda _: "a long passphrase")
    with Engine.open(home, clock=clock, keystore=fresh) as eng:
        assert eng.reveal_secret("API") == VALUE


def test_after_a_rotation_crash_appends_are_redacted_before_any_vault_call(
    home: Path, clock: ManualClock
) -> None:
    store = CrashingStore(new_key())
    with Engine.open(home, create=True, clock=clock, keystore=store) as eng:
        eng.add_agent("a")
        eng.set_secret("API", VALUE)
        with pytest.raises(KeyboardInterrupt):
            eng.rotate_vault_key()
    store.crash = False
    with Engine.open(home, clock=clock, keystore=store) as eng:
        # Redaction happens inside the append's transaction: it reads the new key
        # through the journal without writing (finishing the rotation there would
        # wait on its own write lock).
        # The owner writes it (an agent never given API would be refused, app.vault.echoes):
        # the marker names no secret on a tape whose agent was not given it.
        entry = {"thread": "t", "kind": "message", "role": "user", "text": VALUE}
        eng.append("a", [entry], actor="owner")
        assert eng.tape("a")[0].text == "[secret]"
        assert eng.vault_status().rotation_pending
        assert eng.reveal_secret("API") == VALUE
        assert not eng.vault_status().rotation_pending


def test_a_locked_vault_refuses_writes_it_cannot_check_and_loses_nothing(
    home: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keyring.backends import fail

    monkeypatch.setattr("keyring.core._keyring_backend", fail.Keyring())
    monkeypatch.setenv(PASSPHRASE_ENV, "correct horse battery 马")
    with Engine.open(home, create=True, clock=clock) as eng:
        eng.add_agent("cc")
        eng.set_secret("API", VALUE)
    monkeypatch.delenv(PASSPHRASE_ENV)
    entry = {"thread": "t", "role": "tool", "text": f"deployed with {VALUE}"}
    with Engine.open(home, clock=clock) as eng:
        with pytest.raises(VaultProblem, match="locked") as caught:
            eng.append("cc", [entry])
        assert VALUE not in caught.value.message
        with pytest.raises(VaultProblem, match=PASSPHRASE_ENV):
            eng.remember("cc", f"The deploy key is {VALUE[:3]}… rotated monthly", "lesson")
        assert eng.tape("cc") == []
    monkeypatch.setenv(PASSPHRASE_ENV, "correct horse battery 马")
    with Engine.open(home, clock=clock) as eng:
        eng.append("cc", [entry], actor="owner")
        assert [e.text for e in eng.tape("cc")] == ["deployed with [secret]"]


def test_unlock_vault_opens_a_passphrase_vault_for_writes(
    home: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keyring.backends import fail

    monkeypatch.setattr("keyring.core._keyring_backend", fail.Keyring())
    with Engine.open(home, create=True, clock=clock) as eng:
        assert eng.unlock_vault() is False  # no secrets: nothing to unlock
        eng.add_agent("cc")
        eng.use_passphrase_prompt(lambda purpose: "correct horse battery 马")
        eng.set_secret("API", VALUE)
    with Engine.open(home, clock=clock) as eng:
        eng.use_passphrase_prompt(lambda purpose: "correct horse battery 马")
        assert eng.unlock_vault() is True
        eng.append("cc", [{"thread": "t", "role": "tool", "text": f"used {VALUE}"}], actor="owner")
        assert [e.text for e in eng.tape("cc")] == ["used [secret]"]
