"""What engine tests share: an agent "cc" in a fresh home."""

from __future__ import annotations

import pytest

from app import Engine


@pytest.fixture
def cc(engine: Engine) -> Engine:
    engine.add_agent("cc")
    return engine
