"""Where the vault key lives: the OS keyring, a passphrase-protected file, or memory.

Every key store holds one random 256-bit vault key and answers the same protocol.
``choose_keystore`` picks the OS keyring when a real backend exists and a passphrase
otherwise. There is no plaintext key store, and plaintext keyring backends (from
``keyrings.alt``) are refused.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import keyring
import keyring.errors
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail, null

from app.runtime import Slot
from app.vault.cipher import KEY_BYTES
from app.vault.errors import KeyCorrupt, KeyMissing, KeyringUnavailable, VaultError, VaultLocked
from app.vault.passphrase import KEY_FILE_NAME, PassphraseKeyStore, PassphraseProvider

__all__ = [
    "KEYRING_SERVICE",
    "KeyStore",
    "KeyringKeyStore",
    "MemoryKeyStore",
    "PassphraseKeyStore",
    "choose_keystore",
    "keyring_problem",
]

KEYRING_SERVICE = "tapemind"
KeyStoreKind = Literal["keyring", "passphrase", "memory"]


@runtime_checkable
class KeyStore(Protocol):
    """Holds the vault key. Implementations raise only ``VaultError`` subclasses."""

    kind: str

    def load_key(self) -> bytes:
        """Return the 32-byte vault key.

        Raises: KeyMissing, VaultLocked (WrongPassphrase), KeyringUnavailable, KeyCorrupt.
        """
        ...

    def store_key(self, key: bytes) -> None:
        """Keep ``key`` as the vault key, replacing any previous one."""
        ...

    def delete_key(self) -> None:
        """Forget the vault key; a no-op when there is none."""
        ...

    def has_key(self) -> bool:
        """True if a key is stored (without unlocking it)."""
        ...

    def describe(self) -> str:
        """Where the key is, in words for the owner (never the key)."""
        ...


# A key store injected at `Engine.open(keystore=...)` (tests), instead of the OS keyring.
KEYSTORE: Slot[KeyStore] = Slot("keystore")


class MemoryKeyStore:
    """A key store in memory, for tests."""

    kind = "memory"

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key

    def load_key(self) -> bytes:
        """Return the key or raise ``KeyMissing``."""
        if self._key is None:
            raise KeyMissing("no vault key in the in-memory key store")
        return self._key

    def store_key(self, key: bytes) -> None:
        """Keep ``key``."""
        _check_key_length(key)
        self._key = bytes(key)

    def delete_key(self) -> None:
        """Forget the key."""
        self._key = None

    def has_key(self) -> bool:
        """True if a key is held."""
        return self._key is not None

    def describe(self) -> str:
        """Say that the key is in memory."""
        return "in-memory key store (tests only)"


def keyring_problem(backend: KeyringBackend) -> str | None:
    """Return why ``backend`` cannot hold the vault key, or None if it can."""
    name = f"{type(backend).__module__}.{type(backend).__qualname__}"
    if isinstance(backend, fail.Keyring):
        return "no OS keyring backend is available (no Secret Service on D-Bus, no Keychain)"
    if isinstance(backend, null.Keyring):
        return "the keyring backend is the null backend, which stores nothing"
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return "the keyring chainer found no usable backend"
    if type(backend).__module__.startswith("keyrings.alt"):
        return f"{name} keeps keys in a file, not an OS keyring; Tapemind does not use it"
    return None


class KeyringKeyStore:
    """The vault key in the OS keyring (service "tapemind", user ``vault:HOME_ID``), base64.

    Args:
        home_id: the home's stable id, so two homes on one machine keep two keys.
        backend: a keyring backend; default ``keyring.get_keyring()`` at call time.
    """

    kind = "keyring"

    def __init__(self, home_id: str, *, backend: KeyringBackend | None = None) -> None:
        self.home_id = home_id
        self.username = f"vault:{home_id}"
        self._backend_override = backend

    def describe(self) -> str:
        """Say which keyring entry holds the key."""
        backend = self._backend_override or keyring.get_keyring()
        return (
            f"OS keyring ({type(backend).__qualname__} from {type(backend).__module__}), "
            f"service {KEYRING_SERVICE!r}, user {self.username!r}"
        )

    def has_key(self) -> bool:
        """True if the keyring has an entry for this home."""
        try:
            self.load_key()
        except KeyMissing:
            return False
        return True

    def load_key(self) -> bytes:
        """Read and decode the key.

        Raises: KeyringUnavailable, VaultLocked, KeyMissing, KeyCorrupt.
        """
        backend = self._backend()
        value = self._call(backend, "read", backend.get_password, KEYRING_SERVICE, self.username)
        if value is None:
            raise KeyMissing(
                f"the OS keyring has no vault key for this home (service {KEYRING_SERVICE!r}, "
                f"user {self.username!r}); it was deleted, or this home was created on "
                "another machine or user account"
            )
        try:
            key = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != KEY_BYTES:
            raise KeyCorrupt(
                f"the OS keyring entry {KEYRING_SERVICE!r}/{self.username!r} is not a "
                "Tapemind vault key; it was changed by another program"
            )
        return key

    def store_key(self, key: bytes) -> None:
        """Write the key (base64) to the keyring, replacing any previous one."""
        _check_key_length(key)
        backend = self._backend()
        encoded = base64.b64encode(key).decode("ascii")
        self._call(backend, "write", backend.set_password, KEYRING_SERVICE, self.username, encoded)

    def delete_key(self) -> None:
        """Delete the keyring entry; a no-op when there is none."""
        backend = self._backend()
        with contextlib.suppress(_EntryAbsent):
            self._call(backend, "delete", backend.delete_password, KEYRING_SERVICE, self.username)

    def _backend(self) -> KeyringBackend:
        backend = self._backend_override or keyring.get_keyring()
        problem = keyring_problem(backend)
        if problem is not None:
            raise KeyringUnavailable(
                f"{problem}; start a desktop session (or gnome-keyring under D-Bus), or use "
                "a passphrase-protected vault instead"
            )
        return backend

    def _call(
        self, backend: KeyringBackend, verb: str, fn: Callable[..., str | None], *args: str
    ) -> str | None:
        # Backend exceptions are reduced to their type name: a backend might echo
        # its arguments, and one of them is the encoded key.
        try:
            return fn(*args)
        except keyring.errors.KeyringLocked:
            raise VaultLocked(
                f"the OS keyring is locked; unlock it (log in to the desktop, or unlock "
                f"the 'login' collection) and try again ({self.describe()})"
            ) from None
        except keyring.errors.PasswordDeleteError:
            raise _EntryAbsent() from None
        except Exception as exc:
            raise KeyringUnavailable(
                f"the OS keyring failed to {verb} the vault key ({type(exc).__name__}); "
                f"nothing was changed in the vault ({type(backend).__qualname__})"
            ) from None


class _EntryAbsent(Exception):
    pass


def _check_key_length(key: bytes) -> None:
    if len(key) != KEY_BYTES:
        raise ValueError(f"a vault key is {KEY_BYTES} bytes")


def choose_keystore(
    home_path: Path,
    home_id: str,
    *,
    passphrase_provider: PassphraseProvider | None = None,
    backend: KeyringBackend | None = None,
    recorded_kind: KeyStoreKind | None = None,
    environ: Mapping[str, str] | None = None,
) -> KeyringKeyStore | PassphraseKeyStore:
    """Pick the key store for a home: the OS keyring when usable, else a passphrase.

    Args:
        home_path: the Tapemind home; the passphrase key file is ``HOME/vault-key.json``.
        home_id: the home's stable id (the keyring user name is ``vault:HOME_ID``).
        passphrase_provider: asks the owner for a passphrase (the CLI prompts).
        backend: a keyring backend; default ``keyring.get_keyring()``.
        recorded_kind: the kind that created this home's key, if the vault recorded
            it. A key made in the keyring must not be silently replaced by a new
            passphrase key when the keyring is missing for one session.
        environ: where to read ``TAPEMIND_VAULT_PASSPHRASE``.

    Raises:
        KeyringUnavailable: ``recorded_kind`` is "keyring" and no keyring is usable.
    """
    params_path = Path(home_path) / KEY_FILE_NAME

    def passphrase_store() -> PassphraseKeyStore:
        return PassphraseKeyStore(params_path, passphrase_provider, environ=environ)

    # An existing key file wins: the owner chose a passphrase for this home.
    if params_path.exists():
        return passphrase_store()
    chosen = backend or keyring.get_keyring()
    problem = keyring_problem(chosen)
    if recorded_kind == "passphrase":
        # On a database several hosts serve, the recorded kind is the first host's: a
        # host that imported the key into its own keyring keeps it there.
        in_keyring = KeyringKeyStore(home_id, backend=backend)
        if problem is None and _holds_key(in_keyring):
            return in_keyring
        return passphrase_store()
    if problem is None:
        return KeyringKeyStore(home_id, backend=backend)
    if recorded_kind == "keyring":
        raise KeyringUnavailable(
            f"this home's vault key is in the OS keyring, but {problem}; run Tapemind "
            "where that keyring is available, or keep the key on this host in a "
            "passphrase file: run `tapemind vault export-key --to FILE` where the key is, "
            "then `tapemind vault import-key FILE` here"
        )
    return passphrase_store()


def _holds_key(store: KeyringKeyStore) -> bool:
    try:
        return store.has_key()
    except VaultError:  # a locked or failing keyring: the recorded kind decides
        return False
