"""Run the `tapemind` CLI in-process (click's CliRunner) against the test home."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from app.cli.main import cli as tapemind

Run = Callable[..., Result]


@pytest.fixture
def run(home: Path) -> Run:
    """run("agent", "add", "cc", input=..., ok=True) -> Result; `ok` asserts exit 0."""

    def invoke(*args: str, input: str | bytes | None = None, ok: bool = True) -> Result:
        result = CliRunner().invoke(tapemind, ["--home", str(home), *args], input=input)
        if ok:
            assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
        return result

    return invoke


@pytest.fixture
def run_json(run: Run) -> Callable[..., Any]:
    """The parsed JSON output of a successful command run with --json."""

    def invoke(*args: str, input: str | bytes | None = None) -> Any:
        return json.loads(run(*args, "--json", input=input).stdout)

    return invoke


@pytest.fixture
def ready(run: Run) -> Run:
    """A home with agents `cc` and `dc`."""
    run("init")
    run("agent", "add", "cc")
    run("agent", "add", "dc")
    return run


@pytest.fixture
def at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run as if a person typed them (CliRunner's stdin is no terminal), so the
    destructive ones ask first (`app.cli.base.ask_first`)."""
    import app.cli.base

    monkeypatch.setattr(app.cli.base, "at_terminal", lambda: True)
