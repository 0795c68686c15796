"""Homes with two agents, A and B: made with the engine directly, or served by a real
`tapemind serve` (one per test module)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app import Engine
from tests.pg import module_database

from .mcp_helpers import start_serve, stop


@pytest.fixture
def two_agents(home: Path, database_url: str | None) -> Path:
    with Engine.open(home, create=True, database_url=database_url) as engine:
        engine.add_agent("A")
        engine.add_agent("B")
    return home


@pytest.fixture(scope="module")
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, str, dict[str, str]]]:
    """(home, base URL, agent tokens by name) of a running host with agents A and B, on
    the backend the run asks for (`--backend`)."""
    home = tmp_path_factory.mktemp("served") / "home"
    with Engine.open(home, create=True, database_url=module_database(request)) as engine:
        engine.add_agent("A")
        engine.add_agent("B")
        tokens = {name: engine.agent_token(name).token for name in ("A", "B")}
    proc, url = start_serve(home)
    try:
        yield home, url, tokens
    finally:
        stop(proc)
