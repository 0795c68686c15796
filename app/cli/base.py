"""What every command shares: the per-invocation state and the --json option."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..engine import Engine

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
            from ..host.connect import open_home

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
    from ..home import resolve

    return resolve(state.home)


def at_terminal() -> bool:
    """A person is typing (stdin is a terminal): destructive commands ask first; scripts,
    pipes and CI are not prompted."""
    return sys.stdin.isatty()
