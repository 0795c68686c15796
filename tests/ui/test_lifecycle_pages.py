"""Archive restore and health trends drive the engine's lifecycle API (the conflict
review has its own file, test_conflict_review.py).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt


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


def test_the_trend_legend_leaves_every_point_visible(session, qtbot) -> None:
    """The legend spans the top of the plot, above the highest point: in the top-right
    corner it covered the latest points, the ones the owner looks at first."""
    page = session.window.pages["dashboard"]
    if not session.ctx.has("health_history"):
        return
    session.window.resize(1280, 820)
    session.window.show()
    qtbot.waitUntil(lambda: page.legend.sceneBoundingRect().height() > 0, timeout=5000)
    legend = page.legend.sceneBoundingRect()
    box = page.plot.getPlotItem().getViewBox()
    for line in page.lines.values():
        xs, ys = line.getData()
        for x, y in zip(xs, ys, strict=True):
            point = box.mapViewToScene(QPointF(float(x), float(y)))
            assert not legend.contains(point), (line.name(), x, y)
    # Six lines, six hues that do not read as one another.
    hues = [line.opts["pen"].color() for line in page.lines.values()]
    for i, a in enumerate(hues):
        for b in hues[i + 1 :]:
            distance = sum(
                (p - q) ** 2 for p, q in zip(a.getRgb()[:3], b.getRgb()[:3], strict=True)
            )
            assert distance**0.5 > 60, (a.name(), b.name())
