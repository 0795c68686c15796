"""`tapemind conflicts reopen`: the owner takes back a resolution typed by mistake."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app import Engine

from .test_lifecycle_cli import ok_json, run, with_conflict


@pytest.fixture
def engine(home: Path) -> Iterator[Engine]:
    engine = Engine.open(home, create=True)
    engine.add_agent("cc")
    try:
        yield engine
    finally:
        engine.close()


def test_reopen_undoes_keep_old_and_the_conflict_can_be_settled_again(engine: Engine) -> None:
    cid, _old_id, new_id = with_conflict(engine)
    engine.close()
    ok_json("conflicts", "resolve", str(cid), "--keep", "old")
    again = run("conflicts", "resolve", str(cid), "--keep", "new")
    assert again.exit_code == 2 and f"tapemind conflicts reopen {cid}" in again.output
    out = run("conflicts", "reopen", str(cid))
    assert out.exit_code == 0, out.output
    assert f"Conflict {cid}" in out.output and "open" in out.output
    assert f"memory {new_id} [preference, active] 用户不喜欢猫。" in out.output
    assert "conflicts resolve" in out.output
    [item] = ok_json("conflicts", "list", "--agent", "cc")
    assert item["id"] == cid and item["status"] == "open"
    done = ok_json("conflicts", "resolve", str(cid), "--keep", "new")
    assert done["resolution"] == "new"
    assert done["existing"]["memory"]["status"] == "superseded"


def test_reopen_an_open_conflict_says_how_to_settle_it(engine: Engine) -> None:
    cid, _, _ = with_conflict(engine)
    engine.close()
    out = run("conflicts", "reopen", str(cid))
    assert out.exit_code == 2 and "is open already" in out.output
    assert run("conflicts", "reopen", "999").exit_code == 3
