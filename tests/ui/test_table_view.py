"""The lazily paged table view: pages arriving below the screen are not redrawn,
anything the owner can see changing is, and every row stays reachable in order."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QHeaderView

from ui.tablemodels import Column, LazyRowsModel, RowFilterProxy
from ui.tableview import AppendingTableView


@dataclass(frozen=True)
class Row:
    n: int
    text: str


COLUMNS = [
    Column("N", lambda r: str(r.n), lambda r: r.n, align_right=True),
    Column("Text", lambda r: r.text),
]


def rows(start: int, stop: int) -> list[Row]:
    # English and Chinese, and a sort key (n % 7) that mixes new rows among old ones
    return [Row(n, f"memory {n} 记忆 {n % 7}") for n in range(start, stop)]


class Paints(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, _obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def table(qtbot, total: int, height: int = 300):  # type: ignore[no-untyped-def]
    model = LazyRowsModel(COLUMNS, page_size=50)
    proxy = RowFilterProxy()
    proxy.setSourceModel(model)
    view = AppendingTableView()
    view.setModel(proxy)
    view.setSortingEnabled(True)
    view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(28)
    view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    qtbot.addWidget(view)
    view.resize(500, height)
    asked: list[tuple[int, int, int]] = []
    model.page_requested.connect(lambda *request: asked.append(request))

    def deliver() -> None:
        """Answer the pages asked for (a worker's result slot, in the app)."""
        while asked:
            generation, offset, limit = asked.pop(0)
            model.add_page(generation, rows(offset, min(offset + limit, total)))
        settle(qtbot)

    model.deliver = deliver  # type: ignore[attr-defined]
    model.reset(total)
    view.show()
    qtbot.waitExposed(view)
    paints = Paints()
    view.viewport().installEventFilter(paints)
    return model, proxy, view, paints


def settle(qtbot) -> None:  # type: ignore[no-untyped-def]
    qtbot.wait(30)  # the view's delayed layout and the repaint it may post


def test_a_page_arriving_below_the_screen_is_not_redrawn_but_is_reachable(qtbot) -> None:
    model, proxy, view, paints = table(qtbot, total=130)
    model.fetchMore()  # the first page (the view may have asked for it already)
    model.deliver()
    assert model.rowCount() == 50
    bar = view.verticalScrollBar()
    shown_before = view.rowAt(view.viewport().height() - 1)
    paints.count = 0
    model.fetchMore()  # the next page: rows 50-99, all below the last row shown
    model.deliver()
    assert model.rowCount() == 100
    assert paints.count == 0  # the screen did not change, so it was not drawn again
    assert view.rowAt(view.viewport().height() - 1) == shown_before
    # ...and the scroll bar knows about the new rows: scrolling reaches them, in order
    bar.setValue(bar.maximum())
    settle(qtbot)
    assert paints.count > 0
    model.fetchMore()  # what the view asks for at the bottom, if it has not yet
    model.deliver()
    bar.setValue(bar.maximum())
    settle(qtbot)
    assert model.rowCount() == 130
    last = view.rowAt(view.viewport().height() - 1)
    assert last == 129 and proxy.index(last, 1).data() == "memory 129 记忆 3"
    assert [proxy.index(r, 0).data() for r in range(130)] == [str(n) for n in range(130)]


def test_rows_arriving_on_a_screen_with_room_are_drawn(qtbot) -> None:
    model, _proxy, view, paints = table(qtbot, total=8, height=600)
    model.fetchMore()
    settle(qtbot)
    paints.count = 0
    model.deliver()  # 8 rows on a screen that holds ~20: they show at once
    assert model.rowCount() == 8 and paints.count > 0
    assert view.rowAt(view.viewport().height() - 1) == -1  # room left below them


def test_a_sorted_table_redraws_and_keeps_its_order_as_pages_arrive(qtbot) -> None:
    model, proxy, view, paints = table(qtbot, total=150)
    model.fetchMore()
    model.deliver()
    view.sortByColumn(0, Qt.SortOrder.DescendingOrder)  # newest first: new rows go on top
    settle(qtbot)
    paints.count = 0
    model.fetchMore()  # rows 50-99 sort in above the rows on screen
    model.deliver()
    assert paints.count > 0
    model.fetchMore()
    model.deliver()
    assert model.rowCount() == proxy.rowCount() == 150
    assert [proxy.index(r, 0).data() for r in range(150)] == [str(n) for n in range(149, -1, -1)]
    assert view.rowAt(0) == 0 and proxy.index(0, 1).data() == "memory 149 记忆 2"
    view.sortByColumn(1, Qt.SortOrder.AscendingOrder)  # by text, as the owner clicks it
    shown = [proxy.index(r, 1).data() for r in range(proxy.rowCount())]
    assert shown == sorted(r.text.casefold() for r in rows(0, 150))


def test_a_new_model_and_its_reset_are_drawn(qtbot) -> None:
    model, _proxy, view, paints = table(qtbot, total=130)
    model.fetchMore()
    model.deliver()
    other = LazyRowsModel(COLUMNS, page_size=50)
    other.set_rows(rows(500, 520))
    paints.count = 0
    view.setModel(other)
    settle(qtbot)
    assert paints.count > 0 and view.model() is other
    assert view.model().index(0, 1).data() == "memory 500 记忆 3"
    paints.count = 0
    other.set_rows(rows(600, 610))  # a reset of the new one is drawn
    settle(qtbot)
    assert paints.count > 0 and view.rowAt(0) == 0
