"""What every command shares: the per-invocation state, the --json option, asking before
a destructive act, and failed writes reported as errors."""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from app import PASSPHRASE_ENV, Engine, InvalidInput, TapemindError, VaultStillLocked

F = TypeVar("F", bound=Callable[..., Any])


class State:
    """Per-invocation state: the chosen home, output mode, and the engine (opened lazily)."""

    def __init__(self, home: str | None, as_json: bool) -> None:
        self.home = home
        self.as_json = as_json
        self._engine: Engine | None = None
        self._opened: Any = None

    def engine(
        self, *, create: bool = False, vault: str | None = None, database_url: str | None = None
    ) -> Engine:
        """The home's engine: the running host's (same methods, run there), or our
        own under the home lock when no host runs. Our own asks for the vault
        passphrase at the terminal when it needs one. `vault` ("text": the command
        writes text, checked for secret values first; "secret": it reads a secret)
        unlocks the vault now, or says what to do when it cannot be unlocked here."""
        if self._engine is None:
            from app.host.connect import open_home

            options: dict[str, Any] = {"database_url": database_url} if database_url else {}
            self._opened = open_home(self.home, create=create, **options)
            self._engine = self._opened.engine
            if not self._opened.remote:  # a host has the vault open already
                self._engine.use_passphrase_prompt(ask_passphrase)
        if vault is not None and not self._opened.remote:
            unlock(self._engine, vault)
        return self._engine

    def close(self) -> None:
        if self._opened is not None:
            try:
                if not self._opened.remote:
                    settle_index(self._opened.engine)
            finally:
                self._opened.close()
                self._opened = None
                self._engine = None


# Without a host, nothing embeds what a command writes until `tapemind index run`: a
# memory remembered in English was not found by a Chinese search from the next command.
# So a command that owns the home embeds a small backlog before it returns (a second or
# two for the model on its first use); a large one is left to `index run` or a host.
SETTLE_MAX_ROWS = 256


def settle_index(engine: Engine) -> None:
    """Embed the home's backlog now when it is small (see SETTLE_MAX_ROWS)."""
    try:
        status = engine.index_status()
        if not 0 < status.unembedded_total <= SETTLE_MAX_ROWS or status.rebuilding:
            return
        engine.run_indexer(limit=SETTLE_MAX_ROWS)
    except (TapemindError, RuntimeError) as exc:  # the model or the vector index failed
        # What was written is kept and full-text search finds it; say why meaning cannot.
        what = exc.message if isinstance(exc, TapemindError) else str(exc)
        click.echo(f"Not embedded yet ({what}); `tapemind index run` retries.", err=True)


# What each kind of command needs the vault for, said when it cannot be unlocked here.
_NEEDS = {
    "text": "The vault holds secrets, so text is checked for their values before it is "
    "stored, and the vault is locked in this process: nothing was written.",
    "secret": "Reading a secret needs the vault key, and the vault is locked in this process: "
    "nothing was asked.",
}
_TYPED: dict[str, str] = {}  # the passphrase typed once, for the rest of this command


def has_terminal() -> bool:
    """A person is at a terminal this process can ask (stdin may be a pipe: `printf … |
    tapemind vault set NAME` still asks the passphrase on the terminal)."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR)
    except OSError:
        return sys.stdin is not None and sys.stdin.isatty()
    os.close(fd)
    return True


def ask_passphrase(purpose: str) -> str | None:
    """The vault passphrase, asked on the terminal (None without one: the error then
    says what to do). Asked once per command."""
    if purpose in _TYPED:
        return _TYPED[purpose]
    if not has_terminal():
        return None
    if purpose == "create":
        click.echo(
            "No OS keyring here: the vault key will be protected by a passphrase "
            f"(or set {PASSPHRASE_ENV}).",
            err=True,
        )
    value = getpass.getpass("Vault passphrase: ")
    if purpose == "create" and getpass.getpass("Repeat the passphrase: ") != value:
        raise InvalidInput("The two passphrases differ; nothing was written. Try again.")
    _TYPED[purpose] = value
    return value


def unlock(engine: Engine, need: str) -> None:
    """Unlock the vault for a command that `need`s it ("text" or "secret"); a clear
    error (exit 6) where it cannot be unlocked here."""
    try:
        engine.unlock_vault()
    except VaultStillLocked:
        raise VaultStillLocked(
            f"{_NEEDS[need]} Set {PASSPHRASE_ENV} to the vault passphrase, run the command "
            "at a terminal to be asked for it, or run it while `tapemind serve` or the "
            "desktop app serves this home (they hold the vault open)."
        ) from None


def json_option(fn: F) -> F:
    """`--json` on every command (it may also be given before the command)."""

    def set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value:
            ctx.ensure_object(State).as_json = True

    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        expose_value=False,
        callback=set_json,
        is_eager=True,
        help="Print machine-readable JSON.",
    )(fn)


pass_state = click.make_pass_decorator(State)


def home_path(state: State) -> Path:
    from app import resolve_home as resolve

    return resolve(state.home)


def at_terminal() -> bool:
    """A person is typing (stdin is a terminal): destructive commands ask first; scripts,
    pipes and CI are not prompted."""
    return sys.stdin.isatty()


def ask_first(question: str, *, yes: bool) -> None:
    """A destructive command asks a person at a terminal before it acts (`--yes`, or no
    terminal, does not ask); "no" ends the command with exit 1, nothing done."""
    if yes or not at_terminal():
        return
    if not click.confirm(question, default=False, err=True):
        raise click.exceptions.Exit(1)


@contextmanager
def writing_to(where: Path, choose: str) -> Iterator[None]:
    """Turn a failed write under `where` (a file in the way, no permission, a full disk)
    into an error that names the path and says what to do, not a traceback."""
    try:
        yield
    except OSError as exc:
        raise InvalidInput(
            f"Cannot write {exc.filename or where}: {exc.strerror or exc}. Choose another {choose}."
        ) from None
