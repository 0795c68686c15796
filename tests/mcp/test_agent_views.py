"""What an agent reads of memories and tape entries: what helps it, not every column; a
huge entry cut, saying how to read the rest."""

from __future__ import annotations

import json

from app import Engine
from app.mcp.server import run_tool


def answer(engine: Engine, tool: str, args: dict) -> dict:
    result = run_tool(engine, "A", tool, args)
    assert not result.is_error, result.content[0].text
    assert result.structured_content is not None
    return result.structured_content


def test_a_search_hit_carries_the_memory_without_its_bookkeeping(engine: Engine) -> None:
    engine.add_agent("A")
    made = engine.remember("A", "部署在每周五下午进行", "project_fact", thread="ops")
    assert made.memory is not None
    found = answer(engine, "search", {"query": "部署", "mode": "fulltext"})
    (hit,) = found["hits"]
    assert hit["id"] == made.memory.id and "entry" not in hit
    memory = hit["memory"]
    assert memory["text"] == "部署在每周五下午进行" and memory["category"] == "project_fact"
    assert memory["status"] == "active" and memory["thread"] == "ops" and "created_at" in memory
    assert not {"agent", "content_hash"} & set(memory)
    assert None not in memory.values()
    # The record of a 10-character memory stays small (it was ~600 characters).
    assert len(json.dumps(memory, ensure_ascii=False)) < 300


def test_remember_answers_with_the_decision_and_a_lean_memory(engine: Engine) -> None:
    engine.add_agent("A")
    made = answer(engine, "remember", {"text": "用户的时区是 UTC+8", "category": "preference"})
    assert made["decision"] == "add" and made["reason"]
    assert made["reason_code"] == "no_neighbours"
    memory = made["memory"]
    assert memory["text"] == "用户的时区是 UTC+8" and memory["status"] == "active"
    assert not {"agent", "content_hash"} & set(memory) and None not in memory.values()
    # The full record is one call away.
    full = answer(engine, "memory", {"id": memory["id"]})["memory"]
    assert full["content_hash"] and full["agent"] == "A"


def test_a_huge_tape_entry_is_cut_and_says_how_to_read_it_whole(engine: Engine) -> None:
    engine.add_agent("A")
    log = "日志 line of a pasted build log\n" * 4000  # ~120,000 characters
    (entry_id,) = engine.append("A", [{"thread": "t", "role": "tool", "text": log}]).ids
    (entry,) = answer(engine, "tape", {"thread": "t"})["entries"]
    assert entry["id"] == entry_id and entry["text"] == log[:4000]
    assert entry["truncated"] == (
        f"4000 of {len(log)} characters shown; read it whole with "
        f"tape(around={entry_id}, limit=1, max_chars={len(log)})"
    )
    assert not {"agent", "content_hash"} & set(entry)
    (whole,) = answer(engine, "tape", {"around": entry_id, "limit": 1, "max_chars": len(log)})[
        "entries"
    ]
    assert whole["text"] == log and "truncated" not in whole
    # A tape hit in a search is cut the same way.
    found = answer(engine, "search", {"query": "pasted build", "scope": "tape", "mode": "fulltext"})
    assert found["hits"][0]["entry"]["text"] == log[:4000]
    assert "truncated" in found["hits"][0]["entry"]


def test_an_empty_thread_says_what_was_asked_and_how_to_find_entries(engine: Engine) -> None:
    engine.add_agent("A")
    engine.append("A", [{"thread": "部署", "role": "user", "text": "周五下午部署"}])
    found = answer(engine, "tape", {"thread": "部署"})
    assert [e["text"] for e in found["entries"]] == ["周五下午部署"] and "note" not in found
    empty = answer(engine, "tape", {"thread": "deploy"})
    assert empty["entries"] == []
    note = empty["note"]
    assert "No entry of thread 'deploy' matches" in note and 'scope="tape"' in note


def test_a_memorys_huge_source_is_cut_like_a_tape_entry(engine: Engine) -> None:
    # `memory(id)` to check where a memory came from must not hand the model a whole log.
    engine.add_agent("A")
    log = "构建日志 build output line\n" * 5000
    (entry_id,) = engine.append("A", [{"thread": "ci", "role": "tool", "text": log}]).ids
    made = engine.remember("A", "CI 构建在 main 上通过了", "task_outcome", sources=[entry_id])
    assert made.memory is not None
    detail = answer(engine, "memory", {"id": made.memory.id})
    assert detail["memory"]["text"] == "CI 构建在 main 上通过了"
    (source,) = detail["sources"]
    assert source["id"] == entry_id and source["text"] == log[:4000]
    assert f"tape(around={entry_id}, limit=1, max_chars={len(log)})" in source["truncated"]
    assert not {"agent", "content_hash"} & set(source)
    assert len(json.dumps(detail, ensure_ascii=False)) < 6000
