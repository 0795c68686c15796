"""Importing the engine shortens OpenBLAS's idle spin unless the user chose a value."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

ROOT = Path(__file__).resolve().parents[2]
PROBE = "import app, os; print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))"


def _probe(env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_default_spin_timeout_is_set_before_numpy_loads() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    assert _probe(env) == "18"


def test_a_value_the_user_set_is_kept() -> None:
    env = {**os.environ, "OPENBLAS_THREAD_TIMEOUT": "25"}
    assert _probe(env) == "25"
