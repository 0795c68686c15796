"""Driver-level transactions (`Runtime.read_driver` / `write_driver`), which `context` runs
in: what they commit, roll back and publish, as the Session-based ones."""

from __future__ import annotations

import pytest

from app import Engine
from app.db.store import dbapi
from app.engine import runtime_of
from app.events import Event, record
from app.index import rows


def _meta(engine: Engine, key: str) -> str | None:
    with runtime_of(engine).read() as s:
        return rows.get_meta(s, key)


def test_driver_write_commits_and_publishes_after_commit(engine: Engine) -> None:
    rt = runtime_of(engine)
    seen: list[Event] = []
    rt.bus.subscribe(seen.append)
    with rt.write_driver() as s:
        dbapi(s).execute("INSERT INTO meta (key, value) VALUES ('t.key', '值')")
        record(s, rt.now_iso(), "memory.recall", agent=None, actor="agent", ids=[1])
        assert seen == []  # not before the commit
    assert _meta(engine, "t.key") == "值"
    assert [e.ids for e in seen] == [(1,)]


def test_driver_write_rolls_back_on_error_and_publishes_nothing(engine: Engine) -> None:
    rt = runtime_of(engine)
    seen: list[Event] = []
    rt.bus.subscribe(seen.append)
    with pytest.raises(RuntimeError), rt.write_driver() as s:
        dbapi(s).execute("INSERT INTO meta (key, value) VALUES ('t.key', 'x')")
        record(s, rt.now_iso(), "memory.recall", agent=None, actor="agent", ids=[1])
        raise RuntimeError("boom")
    assert _meta(engine, "t.key") is None
    assert seen == []
    # The connection went back to the pool usable: the next write works.
    with rt.write_driver() as s:
        dbapi(s).execute("INSERT INTO meta (key, value) VALUES ('t.key', 'y')")
    assert _meta(engine, "t.key") == "y"


def test_driver_read_sees_one_snapshot(engine: Engine) -> None:
    rt = runtime_of(engine)
    with rt.read_driver() as s:
        assert rows.get_meta(s, "t.key") is None
        with rt.write() as w:
            rows.set_meta(w, "t.key", "later")
        assert rows.get_meta(s, "t.key") is None  # the read began before that commit
    assert _meta(engine, "t.key") == "later"


def test_context_helpers_work_in_a_driver_read(engine: Engine) -> None:
    """What `context` may ask of the index rows when nothing is embedded yet."""
    engine.add_agent("a")
    engine.remember("a", "部署在每周五下午进行", "project_fact")
    with runtime_of(engine).read_driver() as s:
        agent_id = dbapi(s).execute("SELECT id FROM agents WHERE name = 'a'").fetchone()[0]
        assert rows.has_live(s, "memory", agent_id)
        assert not rows.has_live(s, "tape", agent_id)
        assert not rows.has_indexed(s, "any-model", "memory", agent_id)
