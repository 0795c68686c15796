"""`mirror`: a read-only file view of an agent's tape and memories, kept in sync."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from app import Engine
from app.errors import NotFound
from app.transfer.mirror import STATE_FILE, sync, thread_file


def _front(path: Path) -> dict[str, object]:
    head = path.read_text(encoding="utf-8").split("---\n")[1]
    return {k: json.loads(v) for k, v in (line.split(": ", 1) for line in head.splitlines())}


def test_mirror_files_and_sync(engine: Engine, tmp_path: Path) -> None:
    engine.add_agent("cc")
    ids = engine.append(
        "cc",
        [
            {
                "thread": "项目/讨论 1",
                "kind": "message",
                "role": "user",
                "text": "数据库用 PostgreSQL",
            },
            {"thread": "项目/讨论 1", "kind": "message", "role": "assistant", "text": "好的"},
            {"thread": "t2", "kind": "message", "role": "user", "text": "Deploy on Friday"},
        ],
    ).ids
    first = engine.remember("cc", "项目的数据库是 PostgreSQL", "project_fact", sources=[ids[0]])
    assert first.memory
    second = engine.remember(
        "cc",
        "Deploys happen on Fridays",
        "project_fact",
        sources=[ids[2]],
        parents=[first.memory.id],
    )
    assert second.memory
    out = tmp_path / "mirror"

    report = sync(engine, "cc", out)
    assert report.memories == 2 and report.threads == 2
    m1 = out / "memories" / f"m{first.memory.id}.md"
    m2 = out / "memories" / f"m{second.memory.id}.md"
    front = _front(m2)
    assert front["id"] == second.memory.id and front["category"] == "project_fact"
    assert front["status"] == "active" and front["sources"] == [ids[2]]
    assert front["parents"] == [{"id": first.memory.id, "relation": "referenced"}]
    assert m1.read_text(encoding="utf-8").endswith("项目的数据库是 PostgreSQL\n")
    tape = out / "tape" / thread_file("项目/讨论 1")
    # A Chinese thread keeps its name in its file's; the separator and space do not.
    assert tape.name.startswith("项目_讨论_1-") and tape.name.endswith(".jsonl")
    lines = [json.loads(x) for x in tape.read_text(encoding="utf-8").splitlines()]
    assert [x["id"] for x in lines] == list(ids[:2]) and lines[0]["text"] == "数据库用 PostgreSQL"
    assert "项目/讨论 1" in (out / "tape" / "threads.tsv").read_text(encoding="utf-8")
    assert not os.stat(m1).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)

    again = sync(engine, "cc", out)
    assert again.written == 0 and again.removed == 0 and not again.changed
    mtime = os.stat(m2).st_mtime_ns

    engine.edit_memory(first.memory.id, "项目的数据库是 PostgreSQL 16")
    engine.append("cc", [{"thread": "t2", "kind": "message", "role": "user", "text": "不对，周四"}])
    edited = sync(engine, "cc", out)
    assert edited.written == 2  # the edited memory and the grown thread, nothing else
    assert m1.read_text(encoding="utf-8").endswith("PostgreSQL 16\n")
    assert _front(m1)["version"] == 2
    assert os.stat(m2).st_mtime_ns == mtime

    engine.forget(first.memory.id)
    engine.erase_entry(ids[0])
    gone = sync(engine, "cc", out)
    assert not m1.exists() and gone.removed == 1
    erased = json.loads(tape.read_text(encoding="utf-8").splitlines()[0])
    assert erased["erased"] is True and erased["text"] == ""
    assert "PostgreSQL 16" not in "".join(
        p.read_text(encoding="utf-8")
        for p in out.rglob("*")
        if p.is_file() and p.name != STATE_FILE
    )


def test_mirror_unknown_agent(engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="agent list"):
        sync(engine, "nobody", tmp_path / "m")
