"""Events: published after commit, with ids and counts only; a rolled-back write says nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app import Engine
from app.engine import runtime_of
from app.events import Event, record

TEXT = "用户要求代码缩进用 tab / Lin wants tabs"


@pytest.fixture
def seen(engine: Engine) -> list[Event]:
    events: list[Event] = []
    engine.events.subscribe(events.append)
    return events


def _committed_rows(home: Path, sql: str) -> int:
    """Read through a separate connection: only committed rows are visible."""
    with sqlite3.connect(home / "tapemind.db") as db:
        return int(db.execute(sql).fetchone()[0])


def test_each_mutation_publishes_one_content_free_event(engine: Engine, seen: list[Event]) -> None:
    engine.add_agent("cc")
    ids = engine.append("cc", [{"thread": "t", "turn": "u1", "role": "user", "text": TEXT}] * 3).ids
    made = engine.remember("cc", TEXT, "preference", sources=ids[:2])
    assert made.memory is not None
    mid = made.memory.id
    engine.remember("cc", TEXT, "preference")
    engine.edit_memory(mid, TEXT + "!!! always")
    engine.report_used("cc", "u2", [mid])
    engine.erase_entry(ids[2])
    engine.forget(mid)
    engine.configure_agent("cc", half_life_days=10)
    engine.remove_agent("cc")
    assert [(e.name, e.agent, e.ids, dict(e.counts)) for e in seen] == [
        ("agent_did_add", "cc", (1,), {}),
        ("tape_did_append", "cc", ids, {"entries": 3}),
        ("memory_did_add", "cc", (mid,), {"sources": 2, "parents": 0}),
        ("memory_did_duplicate", "cc", (mid,), {}),
        ("memory_did_edit", "cc", (mid,), {"version": 2}),
        ("memory_did_use", "cc", (mid,), {"memories": 1}),
        ("tape_did_erase", "cc", (ids[2],), {}),
        ("memory_did_forget", "cc", (mid,), {"tape_erased": 0}),
        ("agent_did_configure", "cc", (1,), {"settings": 1}),
        ("agent_did_remove", "cc", (1,), {"tape_entries": 3, "memories": 1}),
    ]
    for event in seen:
        assert all(isinstance(i, int) for i in event.ids)
        assert all(isinstance(v, int) for v in event.counts.values())
        assert "tab" not in repr(event) and "用户" not in repr(event)
    audit = engine.audit(limit=100)
    assert [a.action.replace(".", "_did_") for a in reversed(audit)] == [e.name for e in seen]


def test_events_come_after_commit(engine: Engine, home: Path) -> None:
    engine.add_agent("cc")
    visible: list[int] = []

    def on_append(event: Event) -> None:
        visible.append(_committed_rows(home, "SELECT count(*) FROM tape_entries"))

    engine.events.subscribe(on_append, "tape_did_append")
    engine.append("cc", [{"thread": "t", "role": "user", "text": "a"}] * 5)
    assert visible == [5]


def test_big_batches_name_the_first_ids_and_the_total(engine: Engine, seen: list[Event]) -> None:
    engine.add_agent("cc")
    engine.append("cc", [{"thread": "t", "role": "user", "text": "x"}] * 250)
    event = seen[-1]
    assert len(event.ids) == 100
    assert event.counts == {"entries": 250, "ids_total": 250}


def test_a_rolled_back_write_publishes_nothing(
    engine: Engine, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.add_agent("cc")
    seen: list[Event] = []
    engine.events.subscribe(seen.append)
    audit_rows = _committed_rows(home, "SELECT count(*) FROM audit")

    with pytest.raises(RuntimeError), runtime_of(engine).write() as s:
        record(s, runtime_of(engine).now_iso(), "tape.append", agent="cc", actor="agent", ids=[1])
        raise RuntimeError("the disk is full")

    # A source-less remember appends the call to the tape, then stores the memory;
    # if storing fails, the appended entry and its event go too.
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("index broke")

    monkeypatch.setattr("app.memory.records.index_memory_text", broken)
    with pytest.raises(RuntimeError, match="index broke"):
        engine.remember("cc", TEXT, "lesson")
    assert seen == []
    assert _committed_rows(home, "SELECT count(*) FROM audit") == audit_rows
    assert engine.tape("cc") == []
    assert engine.memories("cc") == []


def test_a_broken_listener_does_not_undo_the_write(engine: Engine) -> None:
    engine.add_agent("cc")

    def explode(_event: Event) -> None:
        raise ValueError("listener bug")

    engine.events.subscribe(explode)
    later: list[str] = []
    unsubscribe = engine.events.subscribe(lambda e: later.append(e.name))
    (entry,) = engine.append("cc", [{"thread": "t", "role": "user", "text": "kept"}]).ids
    assert engine.entry(entry).text == "kept"
    assert later == ["tape_did_append"]
    unsubscribe()
    engine.append("cc", [{"thread": "t", "role": "user", "text": "again"}])
    assert later == ["tape_did_append"]
