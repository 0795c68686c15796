"""Conflict review, archive restore and health trends drive the engine's lifecycle API.

Until the engine has that API, the same pages must say so (checked here too).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def _labels(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [label.text() for label in page.findChildren(QLabel)]


def test_keep_new_resolves_the_conflict(session, qtbot, open_page) -> None:
    page = open_page("conflicts")
    if not session.ctx.has("conflicts", "resolve_conflict"):
        assert "Not available in this version" in _labels(page)
        return
    before = len(page.items)
    assert before > 0, "the demo has open conflicts"
    shown = page.current()
    assert page.new_text.text() == shown.new.text and page.old_text.text() == shown.old.text
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(page.decisions["new"], Qt.MouseButton.LeftButton)
    settled = session.engine.conflict(shown.id)
    assert (settled.status, settled.resolution) == ("resolved", "new")
    assert len(page.items) == before - 1
    assert shown.id not in [c.id for c in page.items]


def test_merge_with_edited_chinese_text(session, qtbot, open_page) -> None:
    page = open_page("conflicts")
    if not session.ctx.has("conflicts", "resolve_conflict"):
        assert "Not available in this version" in _labels(page)
        return
    shown = page.current()
    qtbot.mouseClick(page.decisions["merge"], Qt.MouseButton.LeftButton)
    dialog = page.dialog
    assert shown.old.text in dialog.text() and shown.new.text in dialog.text()
    merged = "合并后的记忆：仓库现在用 ruff format，4 个空格缩进。"
    dialog.editor.setPlainText(merged)
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    settled = session.engine.conflict(shown.id)
    assert (settled.status, settled.resolution) == ("resolved", "merge")
    assert session.engine.memory(settled.merged_id).memory.text == merged


def test_next_and_previous_walk_the_queue(session, qtbot, open_page) -> None:
    page = open_page("conflicts")
    if not session.ctx.has("conflicts", "resolve_conflict") or len(page.items) < 2:
        return
    first = page.current()
    qtbot.mouseClick(page.next_button, Qt.MouseButton.LeftButton)
    assert page.current() is page.items[1] and page.new_text.text() == page.items[1].new.text
    qtbot.mouseClick(page.prev_button, Qt.MouseButton.LeftButton)
    assert page.current() is first and not page.prev_button.isEnabled()


def test_restore_brings_an_archived_memory_back(session, qtbot, open_page) -> None:
    page = open_page("archive")
    engine = session.engine
    agent = next(
        (a.name for a in engine.agents() if engine.count_memories(a.name, status="archived")),
        None,
    )
    if agent is None or not session.ctx.has("restore"):
        assert page.restore_button.isEnabled() == session.ctx.has("restore")
        return
    with qtbot.waitSignal(page.loaded, timeout=10000):
        session.window.open_page("archive", {"agent": agent})
    memory = page.proxy.row_at(0)
    page.table.selectRow(0)
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(page.restore_button, Qt.MouseButton.LeftButton)
    assert engine.memory(memory.id).memory.status == "active"
    assert memory.id not in [page.model.row_at(i).id for i in range(page.model.rowCount())]


def test_trends_draw_the_stored_snapshots(session) -> None:
    page = session.window.pages["dashboard"]
    if not session.ctx.has("health_history"):
        assert page.trend_stack.currentWidget() is page.no_history
        return
    assert page.trend_stack.currentWidget() is page.plot
    xs, _ys = page.lines["active"].getData()
    assert xs is not None and len(xs) > 1
    assert list(xs) == sorted(xs)
