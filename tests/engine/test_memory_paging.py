"""Paging an agent's memories after the last one shown gives the same pages as offsets."""

from __future__ import annotations

import pytest

from app import Engine

FACTS = [
    ("The owner's cat is called Miso number {i}.", "preference"),
    ("项目 {i} 的数据库用的是 PostgreSQL 第 {i} 版。", "project_fact"),
    ("Deploy number {i} failed because port {i}000 was taken.", "task_outcome"),
]


@pytest.fixture
def filled(engine: Engine) -> Engine:
    engine.add_agent("a")
    made = []
    for i in range(12):
        for text, category in FACTS:
            made.append(engine.remember("a", text.format(i=i), category).memory)
    for m in made[::5]:
        engine.forget(m.id)
    return engine


def _pages_by_offset(engine: Engine, size: int, **filters: str) -> list[list[int]]:
    pages, offset = [], 0
    while page := engine.memories("a", limit=size, offset=offset, **filters):
        pages.append([m.id for m in page])
        offset += size
    return pages


def _pages_after_last(engine: Engine, size: int, **filters: str) -> list[list[int]]:
    pages = [[m.id for m in engine.memories("a", limit=size, **filters)]]
    while page := engine.memories_before("a", pages[-1][-1], limit=size, **filters):
        pages.append([m.id for m in page])
    return pages


@pytest.mark.parametrize(
    "filters",
    [{}, {"category": "project_fact"}, {"status": "forgotten"}, {"status": "active"}],
)
def test_pages_after_the_last_memory_match_pages_by_offset(filled: Engine, filters) -> None:
    by_offset = _pages_by_offset(filled, 7, **filters)
    assert by_offset, "the home has such memories"
    assert _pages_after_last(filled, 7, **filters) == by_offset
    ids = [i for page in by_offset for i in page]
    assert ids == sorted(ids, reverse=True)  # newest first, none twice
    assert len(ids) == filled.count_memories("a", **filters)


def test_a_page_after_the_last_memory_is_empty(filled: Engine) -> None:
    oldest = filled.memories("a", limit=1000)[-1]
    assert filled.memories_before("a", oldest.id, limit=50) == []
