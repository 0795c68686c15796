"""The vault key protected by a passphrase, for machines without an OS keyring.

The vault key stays a random 256-bit key (so ``rotate-key`` and moving between key
stores work the same everywhere); the passphrase only wraps it. The key file (JSON,
0600, written atomically) holds:

- ``kdf``: scrypt parameters and a random 16-byte salt; the passphrase (Unicode NFC,
  UTF-8) derives a key-encryption key (KEK).
- ``verifier``: AES-GCM of a fixed marker under the KEK. It tells a wrong passphrase
  (verifier fails) from a damaged file (verifier passes, wrapped key fails).
- ``wrapped_key``: AES-GCM of the vault key under the KEK.
- ``key_id``: the vault key's fingerprint (``cipher.key_id``), so a process notices a
  key rotated by another one.

The passphrase comes from ``TAPEMIND_VAULT_PASSPHRASE`` when set, else from the
provider callable (the CLI prompts). It is never stored and never cached; the derived
KEK is kept in memory for the life of the object so a rotation does not ask twice.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from app.db import keep_private
from app.vault.atomic import write_private_file
from app.vault.cipher import KEY_BYTES, NONCE_BYTES, key_id
from app.vault.errors import (
    KeyCorrupt,
    KeyMissing,
    PassphraseRejected,
    VaultLocked,
    WrongPassphrase,
)

PASSPHRASE_ENV = "TAPEMIND_VAULT_PASSPHRASE"
KEY_FILE_NAME = "vault-key.json"
FORMAT = "tapemind-vault-key"
FORMAT_VERSION = 1
MIN_PASSPHRASE_CHARS = 8
DEFAULT_SCRYPT_N = 2**17  # 128 MiB, about half a second: OWASP's scrypt minimum
MIN_SCRYPT_N = 2**15
MAX_SCRYPT_N = 2**20
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16

_VERIFIER_MARKER = b"tapemind vault passphrase verifier v1"
_VERIFIER_AAD = b"tapemind/vault/verifier/v1"
_WRAP_AAD = b"tapemind/vault/wrapped-key/v1"

PassphrasePurpose = Literal["unlock", "create"]
PassphraseProvider = Callable[[PassphrasePurpose], str | None]


class PassphraseKeyStore:
    """Keeps the vault key in ``params_path``, wrapped under a passphrase-derived key.

    Args:
        params_path: the key file (usually ``HOME/vault-key.json``).
        passphrase_provider: called with ``"unlock"`` or ``"create"`` when the
            environment variable is not set; returns the passphrase or None (cancel).
            For ``"create"`` the CLI should ask twice.
        environ: where to read ``TAPEMIND_VAULT_PASSPHRASE`` (default ``os.environ``,
            read at call time).
        scrypt_n: scrypt cost for new key files (at least 2**15).
    """

    kind = "passphrase"

    def __init__(
        self,
        params_path: Path,
        passphrase_provider: PassphraseProvider | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        scrypt_n: int = DEFAULT_SCRYPT_N,
    ) -> None:
        _check_scrypt(scrypt_n, SCRYPT_R, SCRYPT_P, SALT_BYTES, where="scrypt_n")
        self.params_path = Path(params_path)
        self._provider = passphrase_provider
        self._environ = environ
        self._scrypt_n = scrypt_n
        self._key: bytes | None = None
        self._kek: tuple[dict[str, Any], bytes] | None = None  # (kdf params, KEK)

    def describe(self) -> str:
        """Say where the key is, for the owner."""
        return f"passphrase-protected key file {self.params_path}"

    def has_key(self) -> bool:
        """True if the key file exists (no passphrase needed to tell)."""
        return self.params_path.exists()

    def load_key(self) -> bytes:
        """Unlock and return the vault key, asking for the passphrase once per object.

        The file is read on every call, so a key rotated by another process is picked
        up (with the KEK kept from the last unlock, without asking again).

        Raises:
            KeyMissing: no key file. VaultLocked: no passphrase available.
            WrongPassphrase: the verifier rejects the passphrase.
            KeyCorrupt: the file is unreadable or the wrapped key fails authentication.
        """
        doc = self._read()
        if self._key is not None and key_id(self._key).hex() == doc.get("key_id"):
            return self._key
        if self._kek is not None and self._kek[0] == doc["kdf"]:
            kek = self._kek[1]
        else:
            passphrase, source = self._passphrase("unlock")
            kek = _derive(passphrase, doc["kdf"])
            self._check_verifier(kek, doc, source)
        try:
            key = _open(kek, doc["wrapped_key"], _WRAP_AAD)
        except (InvalidTag, ValueError):
            key = b""
        if len(key) != KEY_BYTES or key_id(key).hex() != doc.get("key_id"):
            raise KeyCorrupt(
                f"{self.params_path}: the passphrase is right but the wrapped vault key "
                "is damaged; restore this file from a backup"
            )
        self._kek = (doc["kdf"], kek)
        self._key = key
        return key

    def store_key(self, key: bytes) -> None:
        """Wrap ``key`` and write the key file atomically (0600).

        Reuses the passphrase of the last unlock. An existing file is unlocked first
        (its passphrase is checked), so a key file is never replaced by someone who
        cannot open it; with no file, asks with purpose ``"create"``.

        Raises:
            VaultLocked, WrongPassphrase: an existing file cannot be unlocked.
            PassphraseRejected: a new passphrase is too short.
            OSError: the file cannot be written (the old file is then unchanged).
        """
        if len(key) != KEY_BYTES:
            raise ValueError(f"a vault key is {KEY_BYTES} bytes")
        if self._kek is None and self.params_path.exists():
            self.load_key()
        if self._kek is None:
            passphrase, _ = self._passphrase("create")
            self._kek = self._new_kek(passphrase)
        kdf, kek = self._kek
        self._write(kdf, kek, bytes(key))

    def change_passphrase(self) -> None:
        """Unlock with the current passphrase, then rewrap the key under a new one."""
        key = self.load_key()
        passphrase, _ = self._passphrase("create")
        kdf, kek = self._new_kek(passphrase)
        self._write(kdf, kek, key)
        self._kek = (kdf, kek)

    def delete_key(self) -> None:
        """Remove the key file (a no-op when there is none) and forget the cached key."""
        self.lock()
        with contextlib.suppress(FileNotFoundError):
            self.params_path.unlink()

    def lock(self) -> None:
        """Forget the unlocked key and KEK; the next load asks for the passphrase."""
        self._key = None
        self._kek = None

    # -- internals ------------------------------------------------------------

    def _check_verifier(self, kek: bytes, doc: Mapping[str, Any], source: str) -> None:
        try:
            marker = _open(kek, doc["verifier"], _VERIFIER_AAD)
        except InvalidTag:
            marker = None
        except ValueError:  # a nonce of impossible length: the file was edited
            raise KeyCorrupt(f"{self.params_path}: the verifier is damaged") from None
        if marker != _VERIFIER_MARKER:
            raise WrongPassphrase(
                f"the passphrase {source} does not unlock {self.params_path}; "
                "nothing was changed. Try again with the passphrase set for this vault"
            )

    def _passphrase(self, purpose: PassphrasePurpose) -> tuple[str, str]:
        environ = os.environ if self._environ is None else self._environ
        value = environ.get(PASSPHRASE_ENV)
        source = f"from {PASSPHRASE_ENV}"
        if not value and self._provider is not None:
            value = self._provider(purpose)
            source = "typed"
        if not value:
            held = (
                f"a new vault key needs a passphrase here (no OS keyring), kept in "
                f"{self.params_path}"
                if purpose == "create"
                else f"the vault key in {self.params_path} is protected by a passphrase"
            )
            raise VaultLocked(
                f"{held}: set {PASSPHRASE_ENV} or run the command in a terminal to be asked for it"
            )
        if purpose == "create" and len(value) < MIN_PASSPHRASE_CHARS:
            raise PassphraseRejected(
                f"a vault passphrase needs at least {MIN_PASSPHRASE_CHARS} characters; "
                "nothing was written"
            )
        return value, source

    def _new_kek(self, passphrase: str) -> tuple[dict[str, Any], bytes]:
        kdf: dict[str, Any] = {
            "name": "scrypt",
            "n": self._scrypt_n,
            "r": SCRYPT_R,
            "p": SCRYPT_P,
            "salt": _b64(os.urandom(SALT_BYTES)),
        }
        return kdf, _derive(passphrase, kdf)

    def _write(self, kdf: dict[str, Any], kek: bytes, key: bytes) -> None:
        doc = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "kdf": kdf,
            "verifier": _seal(kek, _VERIFIER_MARKER, _VERIFIER_AAD),
            "wrapped_key": _seal(kek, key, _WRAP_AAD),
            "key_id": key_id(key).hex(),
        }
        write_private_file(self.params_path, (json.dumps(doc, indent=2) + "\n").encode())
        self._key = key

    def _read(self) -> dict[str, Any]:
        # The key is wrapped by the passphrase, but a copy readable by others lets them
        # try passphrases at leisure.
        keep_private(self.params_path)
        try:
            raw = self.params_path.read_bytes()
        except FileNotFoundError:
            raise KeyMissing(
                f"no vault key file at {self.params_path}; the vault has no key yet, or "
                "the file was moved or deleted (restore it from a backup)"
            ) from None
        try:
            doc = json.loads(raw)
            if doc.get("format") != FORMAT or doc.get("version") != FORMAT_VERSION:
                raise ValueError("format")
            kdf = doc["kdf"]
            if kdf.get("name") != "scrypt":
                raise ValueError("kdf")
            _check_scrypt(kdf["n"], kdf["r"], kdf["p"], len(_unb64(kdf["salt"])), where="file")
            for part in ("verifier", "wrapped_key"):
                _unb64(doc[part]["nonce"])
                _unb64(doc[part]["ciphertext"])
        except (ValueError, KeyError, TypeError, AttributeError):
            raise KeyCorrupt(
                f"{self.params_path} is not a readable Tapemind vault key file; restore "
                "it from a backup"
            ) from None
        return dict(doc)


def write_key_file(
    path: Path, key: bytes, passphrase: str, *, scrypt_n: int = DEFAULT_SCRYPT_N
) -> None:
    """Write ``key`` wrapped under ``passphrase`` to ``path``, in the key file's format.

    What ``vault export-key`` writes: a file like ``vault-key.json``, made under a
    passphrase of its own, replacing ``path`` atomically (0600) if it exists.

    Raises:
        PassphraseRejected: the passphrase is too short; nothing was written.
        OSError: the file cannot be written; ``path`` is then unchanged.
    """
    store = PassphraseKeyStore(path, lambda _purpose: passphrase, environ={}, scrypt_n=scrypt_n)
    checked, _ = store._passphrase("create")
    kdf, kek = store._new_kek(checked)
    store._write(kdf, kek, bytes(key))


def read_key_file(path: Path, passphrase: str) -> bytes:
    """The vault key in the key file at ``path``, unwrapped with ``passphrase``.

    Raises:
        KeyMissing: no file. WrongPassphrase: the passphrase does not unlock it.
        KeyCorrupt: not a Tapemind key file, or its wrapped key is damaged.
    """
    return PassphraseKeyStore(path, lambda _purpose: passphrase, environ={}).load_key()


def _check_scrypt(n: Any, r: Any, p: Any, salt_len: int, *, where: str) -> None:
    ok = (
        isinstance(n, int)
        and MIN_SCRYPT_N <= n <= MAX_SCRYPT_N
        and n & (n - 1) == 0
        and r == SCRYPT_R
        and p == SCRYPT_P
        and salt_len == SALT_BYTES
    )
    if not ok:
        raise ValueError(f"scrypt parameters out of range ({where})")


def _derive(passphrase: str, kdf: Mapping[str, Any]) -> bytes:
    # NFC: the same passphrase typed through different input methods (composed or
    # decomposed accents, some CJK compatibility forms) must give the same key.
    secret = unicodedata.normalize("NFC", passphrase).encode("utf-8")
    scrypt = Scrypt(salt=_unb64(kdf["salt"]), length=KEY_BYTES, n=kdf["n"], r=kdf["r"], p=kdf["p"])
    return scrypt.derive(secret)


def _seal(kek: bytes, data: bytes, aad: bytes) -> dict[str, str]:
    nonce = os.urandom(NONCE_BYTES)
    return {"nonce": _b64(nonce), "ciphertext": _b64(AESGCM(kek).encrypt(nonce, data, aad))}


def _open(kek: bytes, part: Mapping[str, str], aad: bytes) -> bytes:
    return AESGCM(kek).decrypt(_unb64(part["nonce"]), _unb64(part["ciphertext"]), aad)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, TypeError) as exc:
        raise ValueError("base64") from exc
