"""What every command shares: the per-invocation state, the --json option, asking before
a destructive act, and failed writes reported as errors."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from app import Engine, InvalidInput

F = TypeVar("F", bound=Callable[..., Any])


class State:
    """Per-invocation state: the chosen home, output mode, and the engine (opened lazily)."""

    def __init__(self, home: str | None, as_json: bool) -> None:
        self.home = home
        self.as_json = as_json
        self._engine: Engine | None = None
        self._opened: Any = None

    def engine(self, *, create: bool = False) -> Engine:
        """The home's engine: the running host's (same methods, run there), or our
        own under the home lock when no host runs."""
        if self._engine is None:
            from app.host.connect import open_home

            self._opened = open_home(self.home, create=create)
            self._engine = self._opened.engine
        return self._engine

    def close(self) -> None:
        if self._opened is not None:
            self._opened.close()
            self._opened = None
            self._engine = None


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
