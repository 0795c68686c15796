"""Archive restore and health trends drive the engine's lifecycle API (the conflict
review has its own file, test_conflict_review.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app import Engine


def test_restore_brings_an_archived_memory_back(session, qtbot, open_page) -> None:
    page = open_page("archive")
    engine = session.engine
    agent = next(
        (a.name for a in engine.agents() if engine.count_memories(a.name, status="archived")),
        None,
    )
    assert agent is not None, "the demo has archived memories"
    with qtbot.waitSignal(page.loaded, timeout=10000):
        session.window.open_page("archive", {"agent": agent})
    memory = page.proxy.row_at(0)
    # Its strength, a number the owner weighs before restoring (it read "—" for every row).
    strength = page.proxy.index(0, 3).data()
    assert strength == f"{memory.strength:.2f}" and 0 <= float(strength) <= 1
    page.table.selectRow(0)
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(page.restore_button, Qt.MouseButton.LeftButton)
    assert engine.memory(memory.id).memory.status == "active"
    assert memory.id not in [page.model.row_at(i).id for i in range(page.model.rowCount())]


def test_fading_lists_the_archive_candidates_and_keep_holds_one_back(
    session, qtbot, open_page
) -> None:
    """The dashboard counts archive candidates; the archive's second view lists them,
    and keeping one takes it off the list, active, before maintenance archives it."""
    page = open_page("archive")
    engine = session.engine
    fading = {a.name: engine.fading(a.name) for a in engine.agents()}
    agent = max(fading, key=lambda name: len(fading[name]))
    assert fading[agent], "the demo home has fading memories"
    with qtbot.waitSignal(page.loaded, timeout=10000):
        session.window.open_page("archive", {"agent": agent, "view": "fading"})
    assert page.tabs.currentIndex() == 1 and page.stack.currentWidget() is page.fading_table
    assert page.tabs.tabText(1) == f"Fading ({len(fading[agent])})"
    assert page.keep_button.isVisible() and not page.restore_button.isVisible()
    shown = [page.fading_proxy.row_at(i).memory_id for i in range(page.fading_proxy.rowCount())]
    assert shown == [c.memory_id for c in fading[agent]]
    assert "Archived within a week unless recalled, used or kept" in page.note.text()
    first = page.fading_proxy.row_at(0)
    assert page.fading_proxy.index(0, 3).data() == f"{first.strength:.2f}"
    # Due: a date ahead, or, for one already due, the next maintenance run (not a past date).
    due = page.fading_proxy.index(0, 5).data()
    past = first.fade_at <= datetime.now(UTC)
    assert (due == "next maintenance") if past else due.startswith(str(first.fade_at.year))
    page.fading_table.selectRow(0)
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(page.keep_button, Qt.MouseButton.LeftButton)
    assert first.memory_id not in [c.memory_id for c in engine.fading(agent)]
    assert engine.memory(first.memory_id).memory.status == "active"
    left = [page.fading_model.row_at(i).memory_id for i in range(page.fading_model.rowCount())]
    assert first.memory_id not in left and len(left) == len(fading[agent]) - 1
    # Back to the archived view: its note and the restore button again.
    page.tabs.setCurrentIndex(0)
    assert page.restore_button.isVisible() and not page.keep_button.isVisible()
    assert "restore brings them back" in page.note.text()


def test_the_fading_card_opens_the_agents_fading_memories(session, qtbot) -> None:
    window = session.window
    dashboard, archive = window.pages["dashboard"], window.pages["archive"]
    engine = session.engine
    agent = next(a.name for a in engine.agents() if engine.fading(a.name))
    with qtbot.waitSignal(dashboard.loaded, timeout=10000):
        dashboard.agent_box.setCurrentIndex(dashboard.agent_box.findData(agent))
    due = engine.health(agent).archive_candidates
    assert dashboard.cards["fading"].value.text() == f"{due:,}"
    with qtbot.waitSignal(archive.loaded, timeout=10000):
        qtbot.mouseClick(dashboard.cards["fading"], Qt.MouseButton.LeftButton)
    assert window.current_page() is archive and archive.agent == agent
    assert archive.stack.currentWidget() is archive.fading_table
    assert archive.fading_model.rowCount() > 0


def test_trends_draw_the_stored_snapshots_and_end_at_the_cards(session) -> None:
    page = session.window.pages["dashboard"]
    engine = session.engine
    xs, ys = page.trends.lines["active"].getData()
    assert xs is not None and len(xs) > 1
    assert list(xs) == sorted(xs)
    # The last point is the figure on the card, not the last stored snapshot.
    assert ys[-1] == engine.health().active == int(page.cards["memories"].value.text())


def test_each_health_figure_has_a_trend_on_its_own_scale(session, qtbot) -> None:
    """Small multiples: a count that moves between 0 and 3 fills its own plot instead of
    tangling with the others at the bottom of one axis shared with ~40 memories."""
    page = session.window.pages["dashboard"]
    session.window.resize(1024, 640)
    tops = {}
    for key, plot in page.trends.plots.items():
        _xs, ys = page.trends.lines[key].getData()
        low, high = plot.getViewBox().viewRange()[1]
        top = max(1.0, max(ys))
        assert -0.1 * top < low <= 0 and max(ys) <= high <= top * 1.2, (key, low, high)
        tops[key] = high
    assert tops["open_conflicts"] < tops["active"] / 5
    # Each plot is titled with its figure and its latest value.
    title = page.trends.plots["open_conflicts"].titleLabel.text
    assert "Open conflicts" in title and str(session.engine.health().open_conflicts) in title
    # Six hues that do not read as one another.
    hues = [line.opts["pen"].color() for line in page.trends.lines.values()]
    for i, a in enumerate(hues):
        for b in hues[i + 1 :]:
            distance = sum(
                (p - q) ** 2 for p, q in zip(a.getRgb()[:3], b.getRgb()[:3], strict=True)
            )
            assert distance**0.5 > 60, (a.name(), b.name())


def test_what_maintenance_archived_is_said_and_drawn(session, qtbot) -> None:
    """The first launch's maintenance archives the demo's faded memories: the dashboard
    says so, links to the Archive, marks it on the trends, and the cards and the last
    point of each trend agree."""
    page = session.window.pages["dashboard"]
    engine = session.engine
    archived = sum(len(engine.maintain(a.name).archived_ids) for a in engine.agents())
    assert archived > 0, "the demo has memories due for archiving"
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.refresh()
    note = page.maintenance_note
    assert note.isVisibleTo(session.window)
    assert f"Maintenance archived {archived} faded memories" in note.text()
    assert "See the Archive" in note.text()
    _xs, ys = page.trends.lines["archived"].getData()
    assert ys[-1] == engine.health().archived == int(page.cards["archived"].value.text())
    assert page.trends.marks["archived"], "the run is marked on the trend"
    with qtbot.waitSignal(session.window.pages["archive"].loaded, timeout=10000):
        note.linkActivated.emit("archive")
    archive = session.window.pages["archive"]
    assert session.window.current_page() is archive
    assert "Maintenance last archived" in archive.note.text()


def test_the_unembedded_card_opens_the_memories_waiting_to_be_embedded(session, qtbot) -> None:
    window = session.window
    dashboard, memories = window.pages["dashboard"], window.pages["memories"]
    engine = session.engine
    waiting = {a.name: engine.unembedded(a.name) for a in engine.agents()}
    assert any(waiting.values()), "the test demo leaves its rows queued"
    assert dashboard.cards["unembedded"].property("alert")  # a non-zero figure stands out
    assert not dashboard.cards["tape"].property("alert")
    with qtbot.waitSignal(memories.loaded, timeout=10000):
        qtbot.mouseClick(dashboard.cards["unembedded"], Qt.MouseButton.LeftButton)
    assert window.current_page() is memories and memories.waiting_box.isChecked()
    shown = [memories.proxy.row_at(r).id for r in range(memories.proxy.rowCount())]
    assert shown == [m.id for m in waiting[memories.agent]] and shown
    assert "waiting to be embedded" in memories.count_label.text()


@pytest.fixture
def stalled_index(demo_home: Path) -> Path:
    """The demo home with its index directory gone and the stall recorded, as the
    engine records it when a command meets the missing directory."""
    import json
    import shutil
    import sqlite3

    shutil.rmtree(demo_home / "index", ignore_errors=True)
    stall = {"since": "2026-12-01T09:30:00Z", "because": "missing", "detail": "gone"}
    with sqlite3.connect(demo_home / "tapemind.db") as db:
        db.execute(
            "INSERT INTO meta (key, value) VALUES ('index.stall', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (json.dumps(stall),),
        )
    return demo_home


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "because the index directory is missing"), ("zh", "索引目录不见了")],
)
def test_a_stalled_index_is_said_on_the_dashboard(  # type: ignore[no-untyped-def]
    stalled_index, lang: str, words: str, qtbot
) -> None:
    """The dashboard says since when and why the index stalled, in the app's language,
    and the Unembedded card is marked."""
    from ui import i18n
    from ui.session import Session

    i18n.install_language(lang)
    engine = Engine.open(stalled_index)
    s = Session(engine, page="dashboard", tray=False)
    try:
        page = s.window.pages["dashboard"]
        with qtbot.waitSignal(page.loaded, timeout=10000):
            s.window.show()
        assert page.index_note.isVisibleTo(s.window)
        assert words in page.index_note.text()
        assert "2026-12-01" in page.index_note.text()
        card = page.cards["unembedded"]
        assert card.property("alert") in (True, "true")
        assert card.note.text() == i18n.tr("index stalled: see below") != "index up to date"
    finally:
        s.close()
        i18n.install_language("en")
