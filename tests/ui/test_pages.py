"""Every page opens on a real engine with the demo home and shows what the engine holds."""

from __future__ import annotations

import time

import pytest

from ui.dateaxis import localise_tick
from ui.window import PAGE_NAMES


def test_dashboard_counts_match_the_engine(session) -> None:
    page = session.window.pages["dashboard"]
    engine = session.engine
    active = sum(engine.count_memories(a.name, status="active") for a in engine.agents())
    entries = sum(engine.agent_stats(a.name).tape_entries for a in engine.agents())
    assert page.cards["memories"].value.text() == f"{active:,}"
    assert page.cards["tape"].value.text() == f"{entries:,}"
    health = engine.health()
    assert page.cards["conflicts"].value.text() == f"{health.open_conflicts:,}"
    assert page.cards["fading"].value.text() == f"{health.archive_candidates:,}"
    pending = engine.count_access_requests("pending")
    assert page.cards["secrets"].value.text() == f"{pending:,}"


def test_dashboard_agent_selector_filters_the_counts(session, qtbot, open_page) -> None:
    page = session.window.pages["dashboard"]
    i = page.agent_box.findData("deepchat")
    assert i > 0
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.agent_box.setCurrentIndex(i)
    active = session.engine.count_memories("deepchat", status="active")
    assert page.cards["memories"].value.text() == f"{active:,}"


def test_dashboard_card_opens_the_matching_list(session, qtbot, open_page) -> None:
    page = session.window.pages["dashboard"]
    memories = session.window.pages["memories"]
    with qtbot.waitSignal(memories.loaded, timeout=10000):
        page.cards["never_recalled"].clicked.emit()
    assert session.window.current_page() is memories
    assert memories.never_box.isChecked()
    rows = [memories.proxy.row_at(r) for r in range(memories.proxy.rowCount())]
    assert rows and all(m.recall_count == 0 for m in rows)


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_every_page_opens(session, qtbot, open_page, name: str) -> None:
    page = open_page(name)
    assert page.has_loaded
    assert session.window.current_page() is page
    assert session.window.sidebar.currentRow() == PAGE_NAMES.index(name)


def test_memories_page_lists_the_agents_memories(session, qtbot, open_page) -> None:
    page = open_page("memories")
    agent = page.agent
    assert agent == page.agent_box.currentData()
    assert page.model.rowCount() == session.engine.count_memories(agent)
    shown = {page.proxy.row_at(r).id for r in range(page.proxy.rowCount())}
    assert shown == {m.id for m in session.engine.memories(agent, limit=500)}
    # The first row is selected and its detail shown.
    assert page.detail.detail is not None
    assert page.detail.text.text() == page.detail.detail.memory.text


def test_tape_page_lists_threads_and_folds_tool_calls(session, qtbot, open_page) -> None:
    page = open_page("tape")
    stats = session.engine.agent_stats(page.agent)
    assert page.threads.count() == stats.threads
    entries = session.engine.tape(page.agent, thread=page.thread_id, limit=1000)
    assert len(page.entries) == len(entries)
    folds = []
    for i in range(page.tree.topLevelItemCount()):
        turn = page.tree.topLevelItem(i)
        folds += [turn.child(j) for j in range(turn.childCount()) if turn.child(j).childCount()]
    tool_entries = [e for e in entries if e.kind in ("tool_call", "tool_result")]
    assert sum(f.childCount() for f in folds) == len(tool_entries)
    assert tool_entries and all(not f.isExpanded() for f in folds)


def test_tape_page_switches_thread(session, qtbot, open_page) -> None:
    page = open_page("tape")
    second = page.threads.item(1)
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.threads.setCurrentItem(second)
    assert page.thread_id == second.data(256)
    assert page.entries and all(e.thread == page.thread_id for e in page.entries)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_thread_list_reads_whole_at_1024x640(session, qtbot, open_page, lang) -> None:
    """Each thread's count and last time read whole (they were cut at the time, with a
    sideways scroll bar), and the entries keep most of the width."""
    from PySide6.QtWidgets import QApplication

    from ui import i18n

    i18n.install_language(lang)
    try:
        page = open_page("tape")
        session.window.resize(1024, 640)
        qtbot.waitUntil(lambda: page.threads.viewport().width() > 0)
        QApplication.processEvents()
        metrics = page.threads.fontMetrics()
        room = page.threads.viewport().width()
        assert page.threads.count() > 1
        for i in range(page.threads.count()):
            name, counts = page.threads.item(i).text().split("\n")
            assert metrics.horizontalAdvance(counts) < room, (counts, room)
            assert metrics.horizontalAdvance(name) < room, (name, room)
        assert not page.threads.horizontalScrollBar().isVisible()
        assert page.tree.width() >= 2 * page.threads.width()
    finally:
        i18n.install_language("en")


def test_archive_page_lists_archived_memories(session, qtbot, open_page) -> None:
    page = open_page("archive")
    archived = session.engine.memories(page.agent, status="archived", limit=500)
    assert page.model.rowCount() == len(archived)
    if not archived:
        assert "Nothing archived" in page.empty_label.text()
    assert page.restore_button.isEnabled()


def test_dashboard_without_snapshots_shows_the_chosen_ranges_dates(
    tmp_path, qtbot, english
) -> None:
    from app import Engine
    from ui.session import Session

    engine = Engine.open(tmp_path / "new-home", create=True)
    engine.add_agent("a")
    s = Session(engine, page="dashboard", tray=False)
    page = s.window.pages["dashboard"]
    try:
        with qtbot.waitSignal(page.loaded, timeout=10000):
            s.window.show()
        assert page.trend_note.text() == (
            "No snapshots stored in this range yet: the trends start with today's figures."
        )
        low, high = page.trends.plots["active"].getViewBox().viewRange()[0]
        assert high - low == pytest.approx(30 * 86400, rel=0.01)  # the default range: 30 days
        assert abs(high - time.time()) < 3600
    finally:
        s.close()


def test_date_ticks_name_months_and_weekdays_in_the_apps_language() -> None:
    assert localise_tick("Nov", "zh") == "11月" and localise_tick("Mon 03", "zh") == "周一 03"
    assert localise_tick("Nov", "en") == "Nov" and localise_tick("2026", "zh") == "2026"
    assert localise_tick("Nova", "zh") == "Nova"
