"""Memories about one person are not injected as if they were about another."""

from __future__ import annotations

from app import Engine


def remember(engine: Engine, text: str, user: str | None, importance: float = 0.9) -> int:
    made = engine.remember("A", text, "preference", user=user, importance=importance)
    assert made.memory is not None
    return made.memory.id


def test_a_memory_about_someone_else_is_not_injected(engine: Engine) -> None:
    engine.add_agent("A")
    alice = remember(engine, "用户要求 Python 代码用 4 个空格缩进", "alice")
    bob = remember(engine, "The user wants tabs for indentation", "bob")
    everyone = remember(engine, "The team's CI runs on Python 3.11", None)

    # "Python" is what the memory about no one shares with the query: a clear query
    # injects only what it is about (the core route no longer adds unrelated memories).
    for_bob = engine.context("A", user="bob", thread="other", query="缩进 indentation Python")
    assert bob in for_bob.included_ids and everyone in for_bob.included_ids
    assert alice not in for_bob.included_ids
    assert "4 个空格" not in for_bob.text
    # Its line says whom it is about; a memory about no one says nothing.
    assert f"- [m{bob}] (preference, about bob, " in for_bob.text
    assert f"- [m{everyone}] (preference, 20" in for_bob.text

    for_alice = engine.context("A", user="alice", query="缩进")
    assert alice in for_alice.included_ids and bob not in for_alice.included_ids


def test_without_a_user_every_person_s_memory_comes_labelled(engine: Engine) -> None:
    engine.add_agent("A")
    alice = remember(engine, "用户要求 Python 代码用 4 个空格缩进", "alice")
    bob = remember(engine, "The user wants tabs for indentation", "bob")
    block = engine.context("A", query="缩进 indentation")
    assert {alice, bob} <= set(block.included_ids)
    assert "(preference, about alice, " in block.text and "(preference, about bob, " in block.text
