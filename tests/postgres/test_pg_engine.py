"""The engine does not open a home on PostgreSQL yet, and says so before writing anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from app import Engine, HomeError


def test_opening_a_home_on_postgresql_is_refused_before_anything_is_written(
    pg_url: str, tmp_path: Path
) -> None:
    with pytest.raises(HomeError, match="cannot keep a home on PostgreSQL yet"):
        Engine.open(tmp_path / "home", create=True, database_url=pg_url)
    db = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with db.connect() as conn:
        tables = conn.execute(
            text("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        ).scalar_one()
    db.dispose()
    assert tables == 0
    assert not (tmp_path / "home").exists()
