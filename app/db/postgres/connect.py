"""A SQLAlchemy engine on a PostgreSQL database, through psycopg 3.

A URL is written the way PostgreSQL's own tools take it (`postgresql://user@host/db`);
the driver is chosen here, so `psycopg` (the `postgresql` extra) is the only one the
product ever loads, whatever SQLAlchemy's default for the scheme is.
"""

from __future__ import annotations

from sqlalchemy import Engine as SAEngine
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from app.errors import InvalidInput

_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")


def engine_for(url: str, *, pool_size: int = 8) -> SAEngine:
    """An engine on the PostgreSQL database at `url`.

    Raises:
        InvalidInput: `url` is not a PostgreSQL URL.
    """
    if url.startswith("postgres://"):  # the short scheme some hosting services print
        url = "postgresql://" + url.removeprefix("postgres://")
    parsed = make_url(url)
    if parsed.drivername not in _SCHEMES:
        raise InvalidInput(
            f"Not a PostgreSQL database URL: {parsed.drivername}://… "
            "Write it as postgresql://USER@HOST/DATABASE."
        )
    return create_engine(
        parsed.set(drivername="postgresql+psycopg"),
        pool_size=pool_size,
        max_overflow=pool_size,
        # A host that lost its connection (a restarted server, a failover) finds out
        # before handing it to a write, not in the middle of one.
        pool_pre_ping=True,
    )
