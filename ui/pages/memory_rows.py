"""The memory table's data, read on worker threads: its columns, its pages, search hits.

Nothing here touches a widget. A page of rows comes with its table cells (plain
items made here, see `RowsModel.prepare`), so the GUI thread only inserts them.
"""

from __future__ import annotations

from typing import Any

from ..agent_choice import choose_agent
from ..i18n import tr, word
from ..tablemodels import Column
from ..widgets import fmt_time, one_line

SEARCH_LIMIT = 200  # the engine's page limit for one search

MEMORY_COLUMNS = (
    Column("ID", lambda m: str(m.id), lambda m: m.id, align_right=True),
    Column("Category", lambda m: word(m.category)),
    Column(
        "Text",
        lambda m: one_line(m.text) if m.text else tr("(forgotten)"),
        tooltip=lambda m: m.text[:1000],
    ),
    Column("Importance", lambda m: f"{m.importance:.2f}", lambda m: m.importance, True),
    Column("Recalls", lambda m: str(m.recall_count), lambda m: m.recall_count, True),
    Column("Uses", lambda m: str(m.use_count), lambda m: m.use_count, True),
    Column("Status", lambda m: tr(m.status)),
    Column("Updated", lambda m: fmt_time(m.updated_at), lambda m: m.updated_at.timestamp()),
)


def load_head(engine: Any, agent: str | None, category: str | None, status: str | None):
    """(agent names, the agent shown, how many memories match) — worker side."""
    names, agent = choose_agent(engine, agent)
    total = engine.count_memories(agent, category=category, status=status) if agent else 0
    return names, agent, total


def search_memories(engine: Any, agent: str, query: str, category: Any, status: Any) -> list[Any]:
    """The best hybrid-search hits as memories, best first (worker side)."""
    result = engine.search(
        agent, query, scope="memories", category=category, status=status, limit=SEARCH_LIMIT
    )
    hits = getattr(result, "hits", result)
    return [h.memory for h in hits if getattr(h, "memory", None) is not None]


def search_page(
    engine: Any, model: Any, agent: str, query: str, category: Any, status: Any
) -> tuple[list[Any], list[Any], str]:
    """The search hits, their table cells and their text's characters (worker side)."""
    rows = search_memories(engine, agent, query, category, status)
    return rows, model.prepare(rows), characters(rows)


def fetch_page(
    engine: Any,
    model: Any,
    agent: str,
    category: Any,
    status: Any,
    limit: int,
    offset: int,
    after: int | None = None,
) -> tuple[list[Any], list[Any], str]:
    """A page of memories, its table cells and the characters of its text column,
    all made here on the worker. `after`: the id of the last memory loaded, whose
    successors are the page (read from that id on, not by skipping `offset` rows)."""
    if after is not None:
        rows = engine.memories_before(agent, after, category=category, status=status, limit=limit)
    else:
        rows = engine.memories(agent, category=category, status=status, limit=limit, offset=offset)
    return rows, model.prepare(rows), characters(rows)


def characters(rows: list[Any]) -> str:
    """Each character the text column shows for `rows`, once (for the glyph warmer)."""
    text = MEMORY_COLUMNS[2].display
    return "".join(dict.fromkeys("".join(text(m) for m in rows)))
