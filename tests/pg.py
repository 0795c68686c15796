"""A real PostgreSQL (16, with pgvector) for tests, from the `pgserver` package.

`pgserver` ships the server binaries in its wheel and starts a postmaster on a Unix
socket in a directory of ours: no system PostgreSQL, no network port, nothing to install
beyond the dev extra. A test that needs PostgreSQL and cannot get it fails with the
reason: skipping would let the PostgreSQL code go untested without anyone noticing.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import pytest

_names = itertools.count(1)


def _fail(why: str) -> NoReturn:
    pytest.fail(
        f"PostgreSQL for the tests did not start: {why}. The tests start it with the "
        "`pgserver` package (pip install -e '.[dev]'); it needs a writable temp dir.",
        pytrace=False,
    )


@contextmanager
def postmaster(directory: Path) -> Iterator[Any]:
    """A pgserver postmaster with its data in `directory`, stopped at the end."""
    with warnings.catch_warnings():
        # pgserver keeps its lock file in the user's runtime dir; on a machine without a
        # desktop session platformdirs warns that it falls back to /tmp, which is fine.
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        try:
            import pgserver
        except ImportError as exc:
            _fail(f"pgserver is not installed ({exc})")
    try:
        server = pgserver.get_server(directory, cleanup_mode="stop")
        # Throwaway databases need no durability: without fsync a CREATE DATABASE and
        # the checkpoint at shutdown take milliseconds instead of seconds on a busy disk.
        for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
            server.psql(f"ALTER SYSTEM SET {setting}")
        server.psql("SELECT pg_reload_conf()")
    except Exception as exc:  # whatever the server said is the message to read
        _fail(f"{type(exc).__name__}: {exc}")
    try:
        yield server
    finally:
        server.cleanup()


def fresh_database(server: Any) -> str:
    """A new, empty database on `server`; its URL."""
    name = f"tapemind_test_{next(_names)}"
    server.psql(f"CREATE DATABASE {name}")
    url: str = server.get_uri(name)
    return url


def module_database(request: pytest.FixtureRequest) -> str | None:
    """`database_url` for a module-scoped home: None for the embedded home, else a fresh
    PostgreSQL database (`--backend postgresql`)."""
    if request.config.getoption("--backend") != "postgresql":
        return None
    return fresh_database(request.getfixturevalue("pg_server"))
