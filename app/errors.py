"""Errors a user or an agent will read: each says what happened and what to do next."""

from __future__ import annotations

from collections.abc import Mapping

# The `tapemind` CLI's exit statuses, each with one meaning (the README's table is this
# one, and the tests hold every status to it). Each error class below names its status.
EXIT_STATUSES: Mapping[int, str] = {
    0: "done (`secret get`: allowed)",
    1: "anything else (e.g. the vector index not ready yet)",
    2: "invalid input or usage: fix the command (e.g. an empty or over-long memory)",
    3: "not found (an agent, entry, memory or request; another agent's ids are not found)",
    4: "refused by the memory gate (chit-chat, a credential, raw tool output, a forgotten text)",
    5: "the home: missing, not a home, owned by another process, or its database empty, "
    "truncated or damaged (`tapemind doctor`)",
    6: "the vault cannot be unlocked or a secret opened",
    7: "`secret get`: denied or expired",
    8: "`secret get`: still waiting for the owner",
    9: "the disk is full: nothing was written",
    10: "the database stayed locked by another writer: nothing was written, try again",
}


class TapemindError(Exception):
    """Base of every error the engine raises on purpose.

    `code` is a stable machine-readable word (used in JSON output and MCP errors);
    the message is written for a person or an agent. Where the advice differs (a person
    runs `tapemind ...` commands, an agent calls tools), `for_agents` is what an agent
    reads over MCP instead.
    """

    code = "error"
    exit_code = 1

    def __init__(
        self, message: str, *, code: str | None = None, for_agents: str | None = None
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.for_agents = for_agents

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.code

    @property
    def agent_message(self) -> str:
        """The message as an agent reads it over MCP."""
        return self.for_agents or self.message


class InvalidInput(TapemindError):
    """The request itself is malformed: fix the arguments and try again."""

    code = "invalid_input"
    exit_code = 2


class NotFound(TapemindError):
    """An agent, entry or memory id that does not exist (for this agent)."""

    code = "not_found"
    exit_code = 3


class Refused(TapemindError):
    """The intake gate refused a memory (chit-chat, a credential, raw tool output, a text
    the owner forgot); `code` names the reason."""

    code = "refused"
    exit_code = 4


class HomeError(TapemindError):
    """The home directory is missing, not a Tapemind home, or from a newer version."""

    code = "home"
    exit_code = 5


class HomeBusy(HomeError):
    """Another process owns the home (the host lock is held)."""

    code = "home_busy"


class HomeDamaged(HomeError):
    """The home's database is empty, truncated or damaged: it is refused before anything
    is written into it, never reset. `tapemind doctor` says what is damaged."""

    code = "home_damaged"


class WriteBusy(TapemindError):
    """Another writer held the home's database past the busy timeout: the change was
    not written (nothing half-written either)."""

    code = "write_busy"
    exit_code = 10


class DiskFull(TapemindError):
    """The disk holding the home is full: the change was rolled back, nothing was lost."""

    code = "disk_full"
    exit_code = 9


class VaultProblem(TapemindError):
    """The vault cannot be unlocked, or a sealed secret cannot be opened.

    The message names secrets, key ids and files, never a value or a key.
    """

    code = "vault"
    exit_code = 6


class VaultKeyNotHere(VaultProblem):
    """This host does not hold the vault key the secrets are sealed under (never had it,
    or holds a key `vault rotate-key` replaced elsewhere): the owner hands it over with
    `vault export-key` where the key is and `vault import-key` here."""


class VaultStillLocked(VaultProblem):
    """The vault key needs a passphrase (or an unlocked keyring) this process does not
    have. Through a host, that process is the host, not the caller (app/host/server.py
    says so)."""
