"""Archive restore and health trends drive the engine's lifecycle API (the conflict
review has its own file, test_conflict_review.py).
"""

from __future__ import annotations

from PySide6.QtCore import Qt


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
    # Its strength, a number the owner weighs before restoring (it read "—" for every row).
    strength = page.proxy.index(0, 3).data()
    assert strength == f"{memory.strength:.2f}" and 0 <= float(strength) <= 1
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
