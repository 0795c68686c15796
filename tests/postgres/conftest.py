"""PostgreSQL tests: one postmaster per test session (per worker; `tests/conftest.py`), a
database per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from app.db import postgres


@pytest.fixture
def pg(pg_url: str) -> Iterator[Engine]:
    """An engine on a new database holding a home's schema."""
    engine = postgres.engine_for(pg_url)
    with engine.begin() as conn:
        postgres.create(conn)
    try:
        yield engine
    finally:
        engine.dispose()
