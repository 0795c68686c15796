"""Every test runs against a home in tmp_path, a manual clock, and no real keyring."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# chromadb must never phone home, in tests as in the product.
os.environ["ANONYMIZED_TELEMETRY"] = "False"

from app import Engine
from app.clock import ManualClock


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
