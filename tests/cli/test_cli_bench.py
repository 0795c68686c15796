"""`tapemind bench foundation` prints each figure beside its target (never asserts time)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from app.cli.main import cli as tapemind


def test_bench_foundation_quick_json() -> None:
    result = CliRunner().invoke(tapemind, ["bench", "foundation", "--quick", "--json"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert {"cpu", "cores", "python", "sqlite"} <= set(report["machine"])
    names = [f["name"] for f in report["figures"]]
    assert names == [
        "batched tape append",
        "single-entry append",
        "remember (intake + hash dedup)",
        "memory list first page p50",
        "memory list first page p95",
    ]
    for figure in report["figures"]:
        assert figure["value"] > 0 and figure["target"] > 0
        assert isinstance(figure["met"], bool)


def test_bench_foundation_quick_human() -> None:
    result = CliRunner().invoke(tapemind, ["bench", "foundation", "--quick"])
    assert result.exit_code == 0, result.stderr
    assert "target ≥ 20,000" in result.stdout and "cores: " in result.stdout
    assert "memory list first page p95" in result.stdout
