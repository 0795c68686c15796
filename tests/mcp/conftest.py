"""A home with two agents, A and B, made with the engine directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import Engine


@pytest.fixture
def two_agents(home: Path) -> Path:
    with Engine.open(home, create=True) as engine:
        engine.add_agent("A")
        engine.add_agent("B")
    return home
