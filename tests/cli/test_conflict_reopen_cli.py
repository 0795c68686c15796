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


def test_dispute_brings_a_superseded_memory_back_as_a_conflict(engine: Engine) -> None:
    old = engine.remember("cc", "用户喜欢深色主题。", "preference").memory
    new = engine.remember("cc", "用户改用浅色主题了。", "preference")
    assert old is not None and new.decision == "supersede" and new.memory is not None
    engine.close()
    refused = run("restore", str(old.id))
    assert refused.exit_code == 2 and "tapemind conflicts dispute" in refused.output
    out = run("conflicts", "dispute", str(old.id))
    assert out.exit_code == 0, out.output
    assert f"memory {old.id} [preference, active] 用户喜欢深色主题。" in out.output
    assert f"the owner disputes that {new.memory.id} replaces {old.id}" in out.output
    [item] = ok_json("conflicts", "list", "--agent", "cc")
    assert item["arbiter"] == "owner"
    done = ok_json("conflicts", "resolve", str(item["id"]), "--keep", "old")
    assert done["challenger"]["memory"]["status"] == "superseded"
