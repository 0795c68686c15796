"""The memory table's data, read on worker threads: its columns, its pages, search hits.

Nothing here touches a widget. A page of rows comes with its table cells (plain
items made here, see `RowsModel.prepare`), so the GUI thread only inserts them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..agent_choice import choose_agent
from ..i18n import tr, word
from ..tablemodels import Column
from ..widgets import fmt_date, fmt_time, one_line

if TYPE_CHECKING:
    from app import Engine, Memory

    from ..tablemodels import RowsModel

SEARCH_LIMIT = 200  # the engine's page limit for one search
WAITING_LIMIT = 200  # memories waiting to be embedded, listed at most

MEMORY_COLUMNS = (
    Column("ID", lambda m: str(m.id), lambda m: m.id, align_right=True),
    Column("Category", lambda m: word(m.category)),
    Column("Text", lambda m: shown_text(m), tooltip=lambda m: m.text[:1000]),
    Column("Importance", lambda m: f"{m.importance:.2f}", lambda m: m.importance, True),
    Column("Recalls", lambda m: str(m.recall_count), lambda m: m.recall_count, True),
    Column("Uses", lambda m: str(m.use_count), lambda m: m.use_count, True),
    Column("Status", lambda m: tr(m.status)),
    Column(
        "Updated",
        lambda m: fmt_date(m.updated_at),
        lambda m: m.updated_at.timestamp(),
        tooltip=lambda m: fmt_time(m.updated_at),
    ),
)


def shown_text(m: Memory) -> str:
    """A memory's text in one line; one not active says so first (the Status column is
    hidden by default: the text needs its room)."""
    if not m.text:
        return tr("(forgotten)")
    if m.status == "active":
        return one_line(m.text)
    return f"[{tr(m.status)}] {one_line(m.text)}"


def load_head(
    engine: Engine,
    agent: str | None,
    category: str | None,
    status: str | None,
    unembedded: bool = False,
) -> tuple[list[str], str | None, int]:
    """(agent names, the agent shown, how many memories match) — worker side. Asked for
    the memories waiting to be embedded, an agent that has none gives way to one that has."""
    names, agent = choose_agent(engine, agent)
    if agent is None:
        return names, None, 0
    if unembedded:
        if not engine.unembedded(agent, limit=1):
            agent = next((n for n in names if engine.unembedded(n, limit=1)), agent)
        return names, agent, len(engine.unembedded(agent, limit=WAITING_LIMIT))
    return names, agent, engine.count_memories(agent, category=category, status=status)


def search_memories(
    engine: Engine, agent: str, query: str, category: str | None, status: str | None
) -> list[Memory]:
    """The best hybrid-search hits as memories, best first (worker side)."""
    result = engine.search(
        agent, query, scope="memories", category=category, status=status, limit=SEARCH_LIMIT
    )
    return [h.memory for h in result.hits if h.memory is not None]


def search_page(
    engine: Engine,
    model: RowsModel,
    agent: str,
    query: str,
    category: str | None,
    status: str | None,
) -> tuple[list[Memory], list[Any], str]:
    """The search hits, their table cells and their text's characters (worker side)."""
    rows = search_memories(engine, agent, query, category, status)
    return rows, model.prepare(rows), characters(rows)


def waiting_page(
    engine: Engine, model: RowsModel, agent: str
) -> tuple[list[Memory], list[Any], str]:
    """The agent's memories waiting to be embedded (the longest waiting first), with their
    cells and characters (worker side)."""
    rows = engine.unembedded(agent, limit=WAITING_LIMIT)
    return rows, model.prepare(rows), characters(rows)


def fetch_page(
    engine: Engine,
    model: RowsModel,
    agent: str,
    category: str | None,
    status: str | None,
    limit: int,
    offset: int,
    after: int | None = None,
) -> tuple[list[Memory], list[Any], str]:
    """A page of memories, its table cells and the characters of its text column,
    all made here on the worker. `after`: the id of the last memory loaded, whose
    successors are the page (read from that id on, not by skipping `offset` rows)."""
    if after is not None:
        rows = engine.memories_before(agent, after, category=category, status=status, limit=limit)
    else:
        rows = engine.memories(agent, category=category, status=status, limit=limit, offset=offset)
    return rows, model.prepare(rows), characters(rows)


def characters(rows: list[Memory]) -> str:
    """Each character the text column shows for `rows`, once (for the glyph warmer)."""
    text = MEMORY_COLUMNS[2].display
    return "".join(dict.fromkeys("".join(text(m) for m in rows)))
