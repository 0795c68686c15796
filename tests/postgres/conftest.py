"""PostgreSQL tests: one postmaster per test session (per worker), a database per test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine

from app.db import postgres
from tests.pg import fresh_database, postmaster


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with postmaster(tmp_path_factory.mktemp("pg") / "data") as server:
        yield server


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """The URL of a new, empty database."""
    return fresh_database(pg_server)


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
