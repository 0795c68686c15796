"""Undo in the conflict review: an owner who pressed the wrong key takes it back at
once, sees the conflict again and decides as meant (real widgets, real engine)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.focus import activate

from .test_conflict_review import _keys, _review, _settled


def test_undo_reopens_a_misclicked_conflict_and_shows_it_again(session, qtbot, open_page) -> None:
    page, dialog = _review(qtbot, open_page)
    engine = session.engine
    shown = dialog.current()
    n = len(page.items)
    assert not dialog.undo_button.isVisible()
    assert "the new one is superseded" in dialog.decisions["old"].toolTip()
    card = session.window.pages["dashboard"].cards["conflicts"]
    assert card.value.text() == str(n)
    _keys(qtbot, dialog, Qt.Key.Key_O)  # Alt+O: keep old; the owner meant new
    _settled(qtbot, page, dialog, shown.id)
    assert engine.memory(shown.new.memory_id).memory.status == "superseded"
    # the dialog says what was done, with Undo beside it
    assert f"Conflict #{shown.id} settled: kept the existing memory" in dialog.status.text()
    assert dialog.undo_button.isVisible() and dialog.undo_button.isEnabled()
    activate(qtbot, dialog)  # mnemonics reach only the active window
    _keys(qtbot, dialog, Qt.Key.Key_U)  # Alt+U: undo
    qtbot.waitUntil(
        lambda: not page._loading and shown.id in [c.id for c in page.items], timeout=10000
    )
    assert engine.conflict(shown.id).status == "open"
    assert engine.memory(shown.new.memory_id).memory.status == "active"
    assert [a.action for a in engine.audit(action="conflict.reopen")] == ["conflict.reopen"]
    # the reopened conflict is the one on screen again, the queue as long as before
    qtbot.waitUntil(lambda: dialog.current() is not None and dialog.current().id == shown.id)
    assert len(dialog.items) == n and "open again" in dialog.status.text()
    # the dashboard counts it again (it reloads when shown)
    with qtbot.waitSignal(session.window.pages["dashboard"].loaded, timeout=10000):
        session.window.open_page("dashboard", {})
    assert card.value.text() == str(n)
    # the review is modeless and its queue stays current with another page showing
    assert not dialog.undo_button.isVisible()
    activate(qtbot, dialog)  # mnemonics reach only the active window
    _keys(qtbot, dialog, Qt.Key.Key_N)  # now as meant
    _settled(qtbot, page, dialog, shown.id)
    assert engine.conflict(shown.id).resolution == "new"
    assert engine.memory(shown.old.memory_id).memory.status == "superseded"
    assert engine.memory(shown.new.memory_id).memory.status == "active"


def test_undo_after_the_last_conflict_brings_the_queue_back(session, qtbot, open_page) -> None:
    page, dialog = _review(qtbot, open_page)
    for _ in range(len(page.items)):
        shown = dialog.current()
        qtbot.mouseClick(dialog.decisions["both"], Qt.MouseButton.LeftButton)
        _settled(qtbot, page, dialog, shown.id)
    assert dialog.current() is None and page.stack.currentWidget() is page.empty
    qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.current() is not None, timeout=10000)
    assert dialog.current().id == shown.id
    assert all(b.isEnabled() for b in dialog.decisions.values())
    assert page.stack.currentWidget() is page.table


def test_a_settled_conflict_is_reopened_from_the_page_after_the_review_closed(
    session, qtbot, open_page
) -> None:
    page, dialog = _review(qtbot, open_page)
    engine = session.engine
    shown = dialog.current()
    qtbot.mouseClick(dialog.decisions["new"], Qt.MouseButton.LeftButton)
    _settled(qtbot, page, dialog, shown.id)
    dialog.close()
    assert page.show_settled.isVisible() and not page.reopen_button.isVisible()
    page.show_settled.setChecked(True)
    qtbot.waitUntil(lambda: not page._loading and bool(page.settled_items), timeout=10000)
    assert page.stack.currentWidget() is page.settled_table
    assert page.reopen_button.isVisible() and not page.review_button.isVisible()
    assert "press Reopen" in page.hint.text()
    # the decision just made is on top, in the owner's words
    top = [page.settled_model.index(0, c).data() for c in range(5)]
    assert top[2] == "Kept the new memory" and top[3] == shown.old.text
    assert page.settled_items[0].id == shown.id
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(page.reopen_button, Qt.MouseButton.LeftButton)
    assert engine.conflict(shown.id).status == "open"
    assert engine.memory(shown.old.memory_id).memory.status == "active"
    assert shown.id not in [c.id for c in page.settled_items]
    with qtbot.waitSignal(page.loaded, timeout=10000):
        page.show_settled.setChecked(False)
    assert shown.id in [c.id for c in page.items]
    assert page.stack.currentWidget() is page.table and page.review_button.isVisible()


def test_a_disputed_supersede_reads_as_the_owners_in_chinese(session, qtbot, open_page) -> None:
    from ui import i18n

    engine = session.engine
    agent = engine.agents()[0].name
    old = engine.remember(agent, "用户喜欢深色主题。", "preference").memory
    new = engine.remember(agent, "用户改用浅色主题了。", "preference")
    assert old is not None and new.decision == "supersede" and new.memory is not None
    disputed = engine.dispute_supersede(old.id)
    i18n.install_language("zh")
    try:
        page = open_page("conflicts")
        dialog = page.open_review([c.id for c in page.items].index(disputed.id))
        assert dialog.reason.text() == f"你不同意 #{new.memory.id} 取代 #{old.id}"
        assert "由你提出" in dialog.meta.text() and "仲裁器" not in dialog.meta.text()
        assert dialog.old_panel.text.text() == "用户喜欢深色主题。"
    finally:
        i18n.install_language("en")


def test_a_superseded_memory_is_brought_back_from_its_detail(session, qtbot, open_page) -> None:
    engine = session.engine
    page = open_page("memories")
    old = engine.remember(page.agent, "The team chats on Slack.", "project_fact").memory
    new = engine.remember(page.agent, "The team no longer uses Slack.", "project_fact")
    assert old is not None and new.decision == "supersede"
    with qtbot.waitSignal(page.loaded, timeout=10000):
        session.window.open_page(
            "memories", {"agent": page.agent, "memory": old.id, "status": "superseded"}
        )
    qtbot.waitUntil(lambda: page.detail.detail is not None, timeout=5000)
    assert page.detail.detail.memory.id == old.id
    button = page.detail.dispute_button
    assert button.isVisible() and button.text() == "Bring back…"
    conflicts = session.window.pages["conflicts"]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: conflicts.review is not None and conflicts.review.isVisible(), timeout=10000
    )
    shown = conflicts.review.current()
    assert (shown.old.memory_id, shown.new.memory_id) == (old.id, new.memory.id)
    assert engine.memory(old.id).memory.status == "active"
    assert "raised by you" in conflicts.review.meta.text()
