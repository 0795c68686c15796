"""Forget, erase and agent removal leave no trace of the text in the files on disk."""

from __future__ import annotations

from pathlib import Path

from app import Engine
from app.clock import ManualClock

SECRET_EN = "peanuts"
SECRET_ZH = "花生过敏"


def _on_disk(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.glob("tapemind.db*")))


def _traces(home: Path) -> list[str]:
    data = _on_disk(home)
    return [w for w in (SECRET_EN, SECRET_ZH, "花生") if w.encode() in data]


def _filled(home: Path, clock: ManualClock) -> tuple[Engine, tuple[int, ...]]:
    engine = Engine.open(home, create=True, clock=clock)
    engine.add_agent("cc")
    engine.add_agent("dc")
    ids = engine.append(
        "cc", [{"thread": "t", "role": "user", "text": f"filler {i} 其他内容"} for i in range(50)]
    ).ids
    for i in range(40):  # enough rows that the full-text index has several segments
        engine.remember("cc", f"unrelated fact {i} 无关事实 {i}", "lesson", sources=ids[:1])
    return engine, ids


def test_forget_leaves_no_trace_in_the_files(home: Path, clock: ManualClock) -> None:
    engine, ids = _filled(home, clock)
    made = engine.remember(
        "cc", f"Lin is allergic to {SECRET_EN} {SECRET_ZH}", "preference", sources=ids[:1]
    )
    unsourced = engine.remember("cc", f"Lin avoids {SECRET_EN} at lunch {SECRET_ZH}", "lesson")
    assert made.memory is not None and unsourced.memory is not None
    engine.edit_memory(made.memory.id, f"Lin is badly allergic to {SECRET_EN} ({SECRET_ZH})")
    engine.forget(made.memory.id)
    engine.forget(unsourced.memory.id)
    (call_entry,) = unsourced.source_ids
    assert engine.entry(call_entry).erased
    assert [a.object_ids for a in engine.audit(action="tape.erase")] == [(call_entry,)]
    assert _traces(home) == []  # while the home is open (the WAL was checkpointed)
    engine.close()
    assert _traces(home) == []


def test_erase_leaves_no_trace_in_the_files(home: Path, clock: ManualClock) -> None:
    engine, _ = _filled(home, clock)
    (entry,) = engine.append(
        "cc",
        [{"thread": "t", "role": "user", "text": f"I am allergic to {SECRET_EN}, {SECRET_ZH}"}],
    ).ids
    engine.erase_entry(entry)
    assert _traces(home) == []
    engine.close()
    assert _traces(home) == []


def test_removing_an_agent_leaves_no_trace_in_the_files(home: Path, clock: ManualClock) -> None:
    engine, _ = _filled(home, clock)
    ids = engine.append(
        "dc", [{"thread": "t", "role": "user", "text": f"dc: allergic to {SECRET_EN} {SECRET_ZH}"}]
    ).ids
    engine.remember("dc", f"Lin: no {SECRET_EN} ({SECRET_ZH})", "preference", sources=ids)
    engine.remove_agent("dc")
    assert _traces(home) == []
    engine.close()
    assert _traces(home) == []
