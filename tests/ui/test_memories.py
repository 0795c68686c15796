"""The memory browser drives the real engine: filters, edit, forget, click-through to the tape."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt


def _rows(page):  # type: ignore[no-untyped-def]
    return [page.proxy.row_at(r) for r in range(page.proxy.rowCount())]


def test_category_and_status_filters(session, qtbot, open_page) -> None:
    page = open_page("memories")
    agent = page.agent
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.category_box.setCurrentIndex(page.category_box.findData("lesson"))
    rows = _rows(page)
    assert rows and {m.category for m in rows} == {"lesson"}
    assert len(rows) == session.engine.count_memories(agent, category="lesson")
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.status_box.setCurrentIndex(page.status_box.findData("archived"))
    assert len(_rows(page)) == session.engine.count_memories(
        agent, category="lesson", status="archived"
    )
    assert page.count_label.text().startswith(f"{len(_rows(page))} of")


def test_agent_filter_shows_that_agents_memories(session, qtbot, open_page) -> None:
    page = open_page("memories")
    other = next(a.name for a in session.engine.agents() if a.name != page.agent)
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.agent_box.setCurrentIndex(page.agent_box.findData(other))
    rows = _rows(page)
    assert rows and {m.agent for m in rows} == {other}


def test_never_recalled_filter(session, qtbot, open_page) -> None:
    page = open_page("memories")
    all_rows = _rows(page)
    page.never_box.setChecked(True)
    rows = _rows(page)
    assert rows and all(m.recall_count == 0 for m in rows)
    assert len(rows) == sum(1 for m in all_rows if m.recall_count == 0)


def test_search_box_filters_in_chinese_after_a_pause(session, qtbot, open_page) -> None:
    page = open_page("memories", {"agent": "deepchat"})
    needle = "王芳"
    expected = [m for m in _rows(page) if needle in m.text]
    assert expected, "the demo has Chinese memories"
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.search_box.setText(needle)  # keyClicks cannot type Chinese
    rows = _rows(page)
    # Hybrid search: the engine's hits, best first; the best ones contain the words.
    hits = session.engine.search("deepchat", needle, limit=200).hits
    assert [m.id for m in rows] == [h.memory.id for h in hits if h.memory is not None]
    assert needle in rows[0].text
    assert {m.id for m in expected} <= {m.id for m in rows}


def test_detail_shows_how_strong_the_memory_is_now(session, qtbot, open_page) -> None:
    page = open_page("memories")
    memory = page.detail.detail.memory
    strength = session.engine.memory(memory.id).memory.strength
    assert strength is not None and memory.status == "active"
    assert page.detail.fields["strength"].text() == f"{strength:.2f}"
    assert "half-life" in page.detail.fields["strength"].toolTip()  # what the number means


def test_edit_creates_a_new_version(session, qtbot, open_page) -> None:
    page = open_page("memories")
    memory = page.detail.detail.memory
    qtbot.mouseClick(page.detail.edit_button, Qt.MouseButton.LeftButton)
    dialog = page.dialog
    assert dialog.isVisible() and dialog.text() == memory.text
    new_text = memory.text + " 已在预发布环境验证。"
    dialog.editor.setPlainText(new_text)
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    stored = session.engine.memory(memory.id)
    assert stored.memory.text == new_text
    assert stored.memory.version == memory.version + 1
    assert [v.text for v in stored.versions][-2:] == [memory.text, new_text]
    # The page shows the new version.
    assert page.detail.text.text() == new_text
    assert page.detail.versions.count() == len(stored.versions)


def test_forget_asks_then_removes_the_text(session, qtbot, open_page) -> None:
    page = open_page("memories")
    memory = page.detail.detail.memory
    qtbot.mouseClick(page.detail.forget_button, Qt.MouseButton.LeftButton)
    dialog = page.dialog
    assert dialog.isVisible()
    assert "cannot be undone" in dialog.message.text()
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    stored = session.engine.memory(memory.id).memory
    assert stored.status == "forgotten" and stored.text == ""
    assert page.detail.text.text() == "(forgotten: the text was removed)"
    assert not page.detail.edit_button.isEnabled()


def test_cancelling_forget_keeps_the_memory(session, qtbot, open_page) -> None:
    page = open_page("memories")
    memory = page.detail.detail.memory
    qtbot.mouseClick(page.detail.forget_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(page.dialog.cancel, Qt.MouseButton.LeftButton)
    session.runner.wait()
    assert session.engine.memory(memory.id).memory.text == memory.text


def test_source_entry_opens_the_tape_around_it(session, qtbot, open_page) -> None:
    page = open_page("memories")
    detail = page.detail.detail
    assert detail.sources, "demo memories cite their tape entries"
    source = detail.sources[0]
    tape = session.window.pages["tape"]
    item = page.detail.sources.item(0)
    with qtbot.waitSignal(tape.loaded, timeout=10000):
        rect = page.detail.sources.visualItemRect(item)
        qtbot.mouseClick(
            page.detail.sources.viewport(), Qt.MouseButton.LeftButton, pos=rect.center()
        )
    assert session.window.current_page() is tape
    anchor = tape.anchor_item()
    assert anchor is not None and anchor.data(0, Qt.ItemDataRole.UserRole) == source.id
    assert f"#{source.id}" in tape.banner.text()
    assert source.text.split("\n")[0][:20] in tape.text.toPlainText()
    assert all(e.thread == source.thread for e in tape.entries)
    # and back to the whole thread
    with qtbot.waitSignal(tape.loaded, timeout=10000):
        qtbot.mouseClick(tape.whole_button, Qt.MouseButton.LeftButton)
    assert len(tape.entries) == len(
        session.engine.tape(source.agent, thread=source.thread, limit=1000)
    )


def test_parent_link_shows_the_parent(session, qtbot, open_page) -> None:
    page = open_page("memories")
    with_parent = next(
        m
        for m in session.engine.memories(page.agent, limit=500)
        if session.engine.memory(m.id).parents
    )
    with qtbot.waitSignal(page.loaded, timeout=10000):
        session.window.open_page("memories", {"agent": page.agent, "memory": with_parent.id})
    parent_id = page.detail.detail.parents[0].memory_id
    with qtbot.waitSignal(page.detail.memory_activated):
        item = page.detail.parents.item(0)
        qtbot.mouseClick(
            page.detail.parents.viewport(),
            Qt.MouseButton.LeftButton,
            pos=page.detail.parents.visualItemRect(item).center(),
        )
    qtbot.waitUntil(lambda: page.detail.detail.memory.id == parent_id, timeout=5000)


def test_lazy_model_pages_through_the_engine(session, qtbot, open_page) -> None:
    page = open_page("memories")
    total = session.engine.count_memories(page.agent)
    page.model.page_size = 5
    requested = []
    page.model.page_requested.connect(lambda g, offset, limit: requested.append((offset, limit)))
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.refresh()
    assert [r[0] for r in requested] == list(range(0, total, 5))
    ids = [m.id for m in page.model.rows]
    assert len(ids) == len(set(ids)) == total
    # each page read after the last memory loaded: the same rows as one long read
    assert ids == [m.id for m in session.engine.memories(page.agent, limit=1000)]


def test_tape_search_finds_entries_and_opens_one_in_its_thread(session, qtbot, open_page) -> None:
    page = open_page("tape")
    page.search_box.setText("alembic downgrade")
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.search()
    hits = session.engine.search(page.agent, "alembic downgrade", scope="tape", limit=50).hits
    assert [e.id for e in page.entries] == [h.entry.id for h in hits if h.entry is not None]
    assert "match" in page.banner.text()
    first = page.tree.topLevelItem(0).child(0)
    first = first.child(0) if first.childCount() else first  # a folded tool call
    entry_id = first.data(0, Qt.ItemDataRole.UserRole)
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.tree.itemActivated.emit(first, 0)  # the tree is redrawn around it
    anchor = page.anchor_item()
    assert anchor is not None and anchor.data(0, Qt.ItemDataRole.UserRole) == entry_id


def test_table_cells_show_text_numbers_and_tooltips(session, qtbot, open_page) -> None:
    page = open_page("memories", {"agent": "deepchat"})
    proxy = page.proxy
    chinese = next(r for r in range(proxy.rowCount()) if "王芳" in proxy.row_at(r).text)
    memory = proxy.row_at(chinese)
    id_cell, text_cell = proxy.index(chinese, 0), proxy.index(chinese, 2)
    assert id_cell.data() == str(memory.id)
    assert Qt.AlignmentFlag(id_cell.data(Qt.ItemDataRole.TextAlignmentRole)) & (
        Qt.AlignmentFlag.AlignRight
    )
    assert "王芳" in text_cell.data()
    assert text_cell.data(Qt.ItemDataRole.ToolTipRole) == memory.text[:1000]
    assert not Qt.AlignmentFlag(text_cell.data(Qt.ItemDataRole.TextAlignmentRole) or 0) & (
        Qt.AlignmentFlag.AlignRight
    )


def test_glyphs_of_shown_rows_are_drawn_ahead_then_the_warmer_rests(
    session, qtbot, open_page
) -> None:
    from ui.glyphwarm import common_characters

    page = open_page("memories", {"agent": "deepchat"})
    shown = "".join(page.proxy.index(r, 2).data() for r in range(page.proxy.rowCount()))
    assert "王" in shown and "K" in shown  # Chinese and English
    drawn = page.warmer.drawn
    assert set(shown) - {" "} <= drawn  # the loaded rows' characters, rare ones included
    assert set(common_characters()) <= drawn  # and the common hanzi before any row asks
    qtbot.waitUntil(lambda: page.warmer.pending == 0, timeout=30000)
    assert not page.warmer._timer.isActive()  # nothing left: no more idle work
    page.warmer.add("王芳" + shown)  # known characters queue nothing
    assert page.warmer.pending == 0 and not page.warmer._timer.isActive()


@pytest.mark.parametrize("size", [(1024, 640), (1280, 820)])
def test_the_text_column_gets_the_width(session, qtbot, open_page, size) -> None:
    """The text is what the owner reads: at 1024x640 it had ~20 characters while Category,
    Status and Updated kept theirs."""
    page = open_page("memories")
    session.window.resize(*size)
    qtbot.waitUntil(lambda: page.table.viewport().width() > 0)
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    viewport = page.table.viewport().width()
    text = page.table.columnWidth(2)
    assert text >= 0.5 * viewport, (text, viewport)
    assert text >= page.table.fontMetrics().horizontalAdvance("x" * 34)
    # nothing hidden to the right: the columns shown fit the table
    shown = sum(page.table.columnWidth(c) for c in range(8) if not page.table.isColumnHidden(c))
    assert shown <= viewport + 2
