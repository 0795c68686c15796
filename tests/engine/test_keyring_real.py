"""The vault key in a real Secret Service (gnome-keyring), through the ``keyring`` library.

Deselected in the normal run (``-m "not keyring_real"`` in pyproject). Run it with
``tests/run_keyring_real.sh``, which starts a private D-Bus session and a gnome-keyring
daemon unlocked with a test password. Run any other way it FAILS, saying how to run it:
it is never silently skipped.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import keyring
import pytest
import secretstorage
from keyring.backends import SecretService

from app.vault import (
    KeyMissing,
    KeyringKeyStore,
    choose_keystore,
    keyring_problem,
    new_key,
    open_sealed,
    seal,
)

pytestmark = pytest.mark.keyring_real

LOGIN = "/org/freedesktop/secrets/collection/login"


@pytest.fixture
def secret_service() -> Iterator[secretstorage.DBusConnection]:
    backend = keyring.get_keyring()
    if not isinstance(backend, SecretService.Keyring):
        pytest.fail(
            f"this test needs gnome-keyring's Secret Service, but keyring chose {backend!r}; "
            "run it with tests/run_keyring_real.sh (apt packages: gnome-keyring dbus dbus-x11)"
        )
    assert keyring_problem(backend) is None
    with closing(secretstorage.dbus_init()) as connection:
        yield connection


def test_login_collection_exists_and_is_unlocked(
    secret_service: secretstorage.DBusConnection,
) -> None:
    paths = [c.collection_path for c in secretstorage.get_all_collections(secret_service)]
    assert LOGIN in paths
    login = secretstorage.Collection(secret_service, LOGIN)
    assert not login.is_locked()
    # keyring writes to the "default" alias; gnome-keyring points it at "login".
    default = secretstorage.get_default_collection(secret_service)
    assert not default.is_locked() and default.get_label() == login.get_label() == "Login"


def test_vault_key_round_trips_through_gnome_keyring(
    secret_service: secretstorage.DBusConnection, tmp_path: Path
) -> None:
    home_id = f"test-{uuid.uuid4().hex}"
    chosen = choose_keystore(tmp_path, home_id, environ={})
    assert isinstance(chosen, KeyringKeyStore)  # a real backend wins over a passphrase
    key = new_key()
    chosen.store_key(key)
    try:
        # A fresh key store, as the next process would open it, reads the same key.
        reopened = KeyringKeyStore(home_id)
        assert reopened.has_key() and reopened.load_key() == key

        # The entry really lives in the login collection, base64, under our names.
        login = secretstorage.Collection(secret_service, LOGIN)
        items = list(login.search_items({"service": "tapemind", "username": f"vault:{home_id}"}))
        assert len(items) == 1
        assert items[0].get_secret() == base64.b64encode(key)

        blob = seal(key, "github", "令牌-ghp_value".encode())
        assert open_sealed(reopened.load_key(), "github", blob) == "令牌-ghp_value".encode()

        # Replacing the key (rotate-key) overwrites the one entry.
        chosen.store_key(second := new_key())
        assert KeyringKeyStore(home_id).load_key() == second
        assert len(list(login.search_items({"username": f"vault:{home_id}"}))) == 1
    finally:
        chosen.delete_key()
    with pytest.raises(KeyMissing):
        KeyringKeyStore(home_id).load_key()


def test_engine_vault_keeps_its_key_in_gnome_keyring(
    secret_service: secretstorage.DBusConnection, tmp_path: Path
) -> None:
    """The whole vault on the real Secret Service: set, rotate, reopen, read."""
    from app import Engine

    home = tmp_path / "home"
    with Engine.open(home, create=True) as eng:
        eng.set_secret("GITHUB_TOKEN", "令牌-ghp_engineValue0123456789")
        assert eng.vault_status().keystore == "keyring"
        home_id = eng.home_id
        eng.rotate_vault_key()
    try:
        login = secretstorage.Collection(secret_service, LOGIN)
        assert len(list(login.search_items({"username": f"vault:{home_id}"}))) == 1
        with Engine.open(home) as eng:
            assert eng.reveal_secret("GITHUB_TOKEN") == "令牌-ghp_engineValue0123456789"
    finally:
        KeyringKeyStore(home_id).delete_key()
