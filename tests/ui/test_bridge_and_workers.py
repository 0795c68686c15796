"""Engine events reach the GUI thread as signals; worker results come back on it too."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from PySide6.QtCore import QThread

from app import Engine
from ui.bridge import EngineBridge
from ui.tablemodels import Column, LazyRowsModel
from ui.workers import Runner


def test_a_write_on_another_thread_arrives_as_a_signal_on_the_gui_thread(
    engine: Engine, qtbot, qapp
) -> None:
    # The agent exists before the bridge listens: its own event would also
    # reach memories_changed, and then two signals race for the one wait.
    engine.add_agent("a")
    bridge = EngineBridge(engine)
    seen: list[tuple[str, bool]] = []
    bridge.memories_changed.connect(
        lambda agent: seen.append((agent, QThread.currentThread() is qapp.thread()))
    )
    writer = threading.Thread(
        target=lambda: engine.remember("a", "The owner prefers tabs.", "preference")
    )
    with qtbot.waitSignal(bridge.memories_changed, timeout=5000):
        writer.start()
    writer.join()
    assert seen == [("a", True)]
    bridge.close()


def test_every_catalogued_event_reaches_the_signals_of_what_it_changes(
    engine: Engine, qtbot, qapp
) -> None:
    """The bridge is made from the engine's catalogue: each kind of event, published,
    emits the signal of each part of the home it changes, and no other."""
    from app import EVENT_CHANGES, EVENT_KINDS, Event

    bridge = EngineBridge(engine)
    heard: list[str] = []
    for change in EVENT_CHANGES:
        getattr(bridge, f"{change}_changed").connect(lambda _a, c=change: heard.append(c))
    try:
        for kind in EVENT_KINDS:
            heard.clear()
            with qtbot.waitSignal(bridge.event_received, timeout=5000):
                engine.events.publish(Event(kind.name, "a"))
            assert set(heard) == set(kind.changes) and len(heard) == len(kind.changes), kind
    finally:
        bridge.close()


def test_runner_delivers_results_and_errors_on_the_gui_thread(engine: Engine, qtbot, qapp) -> None:
    runner = Runner()
    engine.add_agent("a")
    got: list[object] = []
    with qtbot.waitSignal(runner.busy_changed, check_params_cb=lambda n: n == 0, timeout=5000):
        runner.read(engine.agents, on_result=lambda r: got.append((r, QThread.currentThread())))
    assert [a.name for a in got[0][0]] == ["a"] and got[0][1] is qapp.thread()
    with qtbot.waitSignal(runner.failed, timeout=5000) as blocker:
        runner.write(engine.add_agent, "a")
    assert "already exists" in blocker.args[0]
    runner.wait()


def test_lazy_model_drops_pages_of_an_older_query(qapp) -> None:
    model = LazyRowsModel([Column("N", str)], page_size=2)
    asked: list[tuple[int, int, int]] = []
    model.page_requested.connect(lambda *a: asked.append(a))
    model.reset(5)
    model.fetchMore()
    old = model.generation
    model.reset(3)  # filters changed while the first page was loading
    assert model.add_page(old, [1, 2]) is False
    assert model.rowCount() == 0
    model.fetchMore()
    assert model.add_page(model.generation, [7, 8]) is True
    assert model.rows == [7, 8] and model.canFetchMore()
    assert asked == [(old, 0, 2), (model.generation, 0, 2)]


def test_a_long_lazy_list_keeps_its_rows_out_of_the_cycle_collector(qapp) -> None:
    import gc

    from ui.tablemodels import FREEZE_AFTER_ROWS

    @dataclass(frozen=True)
    class Row:
        n: int

    model = LazyRowsModel([Column("N", lambda r: str(r.n)), Column("Twice", str)], page_size=500)
    model.reset(FREEZE_AFTER_ROWS + 500)
    pages = [[Row(i) for i in range(start, start + 500)] for start in range(0, 2500, 500)]
    model.add_page(model.generation, pages[0])
    tracked = {id(o) for o in gc.get_objects()}
    assert id(model.rows[0]) in tracked  # a short list: collected as usual
    for page in pages[1:]:
        model.add_page(model.generation, page)
    assert model.rowCount() == 2500 and model.index(2499, 0).data() == "2499"
    tracked = {id(o) for o in gc.get_objects()}
    assert id(model.rows[0]) not in tracked and id(model.rows[-1]) not in tracked
    assert gc.get_freeze_count() > 0
