"""The runtime's redactor: known secret values out of every tape and memory write.

It is called inside other transactions (a tape append), many times a second, so
it is cheap and careful: it checks the vault's change counter at most every
`GENERATION_CHECK_S`, rebuilds its `Redactor` only when secrets changed (here or
in another process), never prompts for a passphrase, never writes, and never
waits for the vault lock (a thread holding it may be waiting for the write lock
the caller holds). When the vault holds secrets but cannot be unlocked quietly
in this process (a passphrase vault, no passphrase given), a write is refused
with an error that says how to unlock: storing it unredacted could put a secret
value on the tape, and dropping it silently would lose it. It retries the
unlock after `QUIET_RETRY_S`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol

from app.errors import InvalidInput, VaultProblem
from app.vault.passphrase import PASSPHRASE_ENV
from app.vault.redact import Redaction, Redactor


class Values(Protocol):
    """What the redactor needs of the vault (`app.vault.service.VaultService`)."""

    @property
    def lock(self) -> threading.RLock: ...

    def quietly(self) -> AbstractContextManager[None]: ...

    def all_values(self) -> dict[str, str]: ...

    def generation_and_count(self) -> tuple[int, int]: ...


log = logging.getLogger(__name__)

# How often another process's `vault set` is noticed by this one's redactor.
GENERATION_CHECK_S = 0.5
# After a failed quiet unlock (keyring locked, passphrase not given), wait this
# long before trying again rather than asking the keyring on every append.
QUIET_RETRY_S = 30.0


class LiveRedactor:
    """Keeps a `Redactor` over the vault's current values."""

    def __init__(self, vault: Values) -> None:
        self._vault = vault
        self._redactor: Redactor | None = None
        self._generation = -1
        self._checked_at = -1e9
        self._failed_at = -1e9
        self._warned = False
        self._locked_with_secrets = False

    def redact(self, text: str) -> str:
        """Replace known values with ``[secret:NAME]``."""
        return self.scan(text).text

    def scan(self, text: str, name_shown: Callable[[str], bool] | None = None) -> Redaction:
        """Redact known values (see `Redactor.scan`), saying which were found."""
        if time.monotonic() - self._checked_at >= GENERATION_CHECK_S:
            self.refresh(force=False)
        redactor = self._redactor
        if redactor is None and self._locked_with_secrets:
            raise VaultProblem(
                "The vault holds secrets but is locked in this process, so this text cannot "
                "be checked for secret values and was not stored. Unlock it: set "
                f"{PASSPHRASE_ENV}, or run the command through the host (tapemind serve or "
                "the desktop app), which has the vault open.",
                for_agents="The owner's vault is locked in the process serving you, so your "
                "text could not be checked for secret values and was not stored. Ask the "
                "user to unlock the vault, then call again with the same arguments.",
            )
        return (
            redactor.scan(text, name_shown)
            if redactor is not None
            else Redaction(text, frozenset())
        )

    def current(self) -> Redactor | None:
        """The redactor over the current values (None: the vault holds none)."""
        self.refresh(force=True)
        return self._redactor

    def refresh(self, *, force: bool) -> None:
        """Rebuild if the secrets changed. `force`: wait for the vault lock and try
        to unlock even right after a failure (a value is about to be handed out)."""
        if not self._vault.lock.acquire(blocking=force):
            return
        try:
            self._refresh(force=force)
        finally:
            self._vault.lock.release()

    def forget(self) -> None:
        self._redactor = None
        self._generation = -1

    def _refresh(self, *, force: bool) -> None:
        generation, count = self._vault.generation_and_count()
        self._checked_at = time.monotonic()
        if count == 0:
            self._redactor, self._generation = None, generation
            self._locked_with_secrets = False
            return
        if generation == self._generation and self._redactor is not None:
            return
        if not force and time.monotonic() - self._failed_at < QUIET_RETRY_S:
            return
        try:
            with self._vault.quietly():
                known = self._vault.all_values()
        except (VaultProblem, InvalidInput):
            self._failed_at = time.monotonic()
            self._locked_with_secrets = True
            if not self._warned:
                self._warned = True
                log.warning(
                    "the vault is locked, so secret values cannot be redacted from new "
                    "tape entries and memories in this process; unlock it (keyring or %s)",
                    PASSPHRASE_ENV,
                )
            return
        self._redactor = Redactor(known)
        self._generation = generation
        self._locked_with_secrets = False
