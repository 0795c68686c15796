"""The vault in team mode: two hosts (home directories, each with its own OS keyring)
serve one PostgreSQL database. A secret set on the first is sealed in the database; the
second reveals it only once the owner has handed it the key with export-key and
import-key. A wrong passphrase and another home's key are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import Engine
from app.errors import VaultKeyNotHere, VaultProblem
from app.vault import KeyringKeyStore
from tests import committed
from tests.conftest import MemoryKeyring

VALUE = "pg-team-token-7Hq-部署-9f8e7d6c"
HANDOVER = "handed across hosts 交接"


def _host(home: Path, pg_url: str, keyring: MemoryKeyring) -> Engine:
    """`home` opened on the shared database, on a host whose OS keyring is `keyring`."""
    with Engine.open(home, create=True, database_url=pg_url) as probe:
        home_id = probe.home_id
    return Engine.open(home, keystore=KeyringKeyStore(home_id, backend=keyring))


def test_a_second_host_reveals_a_secret_only_after_import_key(pg_url: str, tmp_path: Path) -> None:
    first_keyring, second_keyring = MemoryKeyring(), MemoryKeyring()
    exported = tmp_path / "team.key"
    with _host(tmp_path / "laptop", pg_url, first_keyring) as first:
        first.set_secret("DEPLOY_KEY", VALUE)
        first.export_vault_key(str(exported), HANDOVER)
        key_id = first.vault_status().key_id
        # Sealed in the database, as in the embedded home.
        assert VALUE.encode() not in committed.raw(first)
    with _host(tmp_path / "server", pg_url, second_keyring) as second:
        assert [s.name for s in second.secrets()] == ["DEPLOY_KEY"]
        with pytest.raises(VaultKeyNotHere, match="import-key"):
            second.reveal_secret("DEPLOY_KEY")
        with pytest.raises(VaultProblem, match="does not unlock"):
            second.import_vault_key(str(exported), "not the handover passphrase")
        assert second_keyring.entries == {}
        second.import_vault_key(str(exported), HANDOVER)
        assert second.reveal_secret("DEPLOY_KEY") == VALUE
        assert second.vault_status().key_id == key_id
    assert list(second_keyring.entries.values()) == list(first_keyring.entries.values())


def test_another_homes_key_is_refused_on_a_team_database(pg_url: str, tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.key"
    with Engine.open(
        tmp_path / "elsewhere", create=True, keystore=KeyringKeyStore("x", backend=MemoryKeyring())
    ) as other:
        other.set_secret("OTHER", "an embedded home's value 1a2b3c")
        other.export_vault_key(str(foreign), HANDOVER)
    with _host(tmp_path / "laptop", pg_url, MemoryKeyring()) as first:
        first.set_secret("DEPLOY_KEY", VALUE)
    second_keyring = MemoryKeyring()
    with _host(tmp_path / "server", pg_url, second_keyring) as second:
        with pytest.raises(VaultProblem, match="another vault's key"):
            second.import_vault_key(str(foreign), HANDOVER)
        assert second_keyring.entries == {}
        with pytest.raises(VaultKeyNotHere):
            second.reveal_secret("DEPLOY_KEY")


def test_rotate_key_on_one_host_sends_the_other_back_to_import_key(
    pg_url: str, tmp_path: Path
) -> None:
    first_keyring, second_keyring = MemoryKeyring(), MemoryKeyring()
    old, new = tmp_path / "old.key", tmp_path / "new.key"
    with _host(tmp_path / "laptop", pg_url, first_keyring) as first:
        first.set_secret("DEPLOY_KEY", VALUE)
        first.export_vault_key(str(old), HANDOVER)
    with _host(tmp_path / "server", pg_url, second_keyring) as second:
        second.import_vault_key(str(old), HANDOVER)
        assert second.reveal_secret("DEPLOY_KEY") == VALUE
        with _host(tmp_path / "laptop", pg_url, first_keyring) as first:
            rotated = first.rotate_vault_key()
            first.export_vault_key(str(new), HANDOVER)
        # The second host was open all along, holding the replaced key.
        with pytest.raises(VaultKeyNotHere, match="rotate-key") as stale:
            second.reveal_secret("DEPLOY_KEY")
        assert rotated.new_key_id in str(stale.value)
        with pytest.raises(VaultKeyNotHere):
            second.set_secret("DEPLOY_KEY", "sealed under the old key? never")
        with pytest.raises(VaultProblem, match="has since replaced"):
            second.import_vault_key(str(old), HANDOVER)
        second.import_vault_key(str(new), HANDOVER)
        assert second.reveal_secret("DEPLOY_KEY") == VALUE
