"""The conflict review dialog, driven like the owner drives it, against a real engine.

The demo home has three open conflicts (two agents, English and Chinese).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.focus import activate
from ui.conflict_review import ConflictReviewDialog


def _review(qtbot, open_page) -> tuple[object, ConflictReviewDialog]:  # type: ignore[no-untyped-def]
    """Open the Conflicts page and the review on its first row with a double-click."""
    page = open_page("conflicts")
    assert len(page.items) >= 3, "the demo has three open conflicts"
    view = page.table
    rect = view.visualRect(page.model.index(0, 2))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    dialog = page.review
    assert isinstance(dialog, ConflictReviewDialog)
    qtbot.waitUntil(dialog.isVisible)
    activate(qtbot, dialog)
    return page, dialog


def _settled(qtbot, page, dialog, conflict_id: int) -> None:  # type: ignore[no-untyped-def]
    """Wait until the engine's answer reached the dialog and the page reloaded without it."""
    qtbot.waitUntil(
        lambda: (
            dialog.pending is None
            and not page._loading
            and conflict_id not in [c.id for c in page.items]
        ),
        timeout=10000,
    )


def _keys(qtbot, dialog, key: Qt.Key, modifier=Qt.KeyboardModifier.AltModifier) -> None:  # type: ignore[no-untyped-def]
    QTest.keyClick(dialog.focusWidget() or dialog, key, modifier)


def test_the_dialog_shows_both_sides_with_evidence_reason_and_age(
    session, qtbot, open_page
) -> None:
    page, dialog = _review(qtbot, open_page)
    shown = page.items[0]
    conflict = session.engine.conflict(shown.id)
    assert dialog.current().id == conflict.id
    assert dialog.old_panel.text.text() == conflict.existing.memory.text
    assert dialog.new_panel.text.text() == conflict.challenger.memory.text
    assert dialog.reason.text() == conflict.reason
    days = int(conflict.age_days)
    assert f"{days} d" in dialog.meta.text() and conflict.agent in dialog.meta.text()
    for panel, side in (
        (dialog.old_panel, conflict.existing),
        (dialog.new_panel, conflict.challenger),
    ):
        html = panel.evidence.text()
        assert side.sources and all(f'href="{e.id}"' for e in side.sources)
        assert all(f'href="{e.id}"' in html for e in side.sources)
    # Its number (the one "settled" names), then its place in the queue.
    assert dialog.heading.text() == f"Conflict #{conflict.id} · 1 of {len(page.items)} open"


@pytest.mark.parametrize(
    "keep,key", [("old", Qt.Key.Key_O), ("new", Qt.Key.Key_N), ("both", Qt.Key.Key_B)]
)
def test_a_decision_by_keyboard_settles_the_conflict_and_shows_the_next(
    session, qtbot, open_page, keep: str, key: Qt.Key
) -> None:
    page, dialog = _review(qtbot, open_page)
    engine = session.engine
    first, second = page.items[0], page.items[1]
    n = len(page.items)
    _keys(qtbot, dialog, key)  # Alt+O / Alt+N / Alt+B
    _settled(qtbot, page, dialog, first.id)
    settled = engine.conflict(first.id)
    assert (settled.status, settled.resolution) == ("resolved", keep)
    old = engine.memory(first.old.memory_id).memory
    new = engine.memory(first.new.memory_id).memory
    expected = {"old": ("active", "superseded"), "new": ("superseded", "active")}
    assert (old.status, new.status) == expected.get(keep, ("active", "active"))
    # the queue moved on: the next conflict is shown in the same place
    assert dialog.current().id == second.id
    assert dialog.heading.text() == f"Conflict #{second.id} · 1 of {n - 1} open"
    assert f"Conflict #{first.id} settled" in dialog.status.text()
    assert first.id not in [c.id for c in page.items]
    assert [c.id for c in engine.conflicts(None, status="open")] == [c.id for c in dialog.items]


def test_merge_with_edited_chinese_text(session, qtbot, open_page) -> None:
    page, dialog = _review(qtbot, open_page)
    shown = dialog.current()
    _keys(qtbot, dialog, Qt.Key.Key_M)  # Alt+M: the merge editor
    qtbot.waitUntil(lambda: dialog.merge_dialog is not None)  # mnemonics click after a flash
    editor = dialog.merge_dialog
    assert editor.isVisible()
    editor.activateWindow()
    qtbot.waitUntil(editor.isActiveWindow)
    assert shown.old.text in editor.text() and shown.new.text in editor.text()
    merged = "合并后的记忆：lin 的 inkstone 仓库现在用 ruff format，4 个空格缩进。"
    editor.editor.setPlainText(merged)
    QTest.keyClick(editor.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    _settled(qtbot, page, dialog, shown.id)
    settled = session.engine.conflict(shown.id)
    assert (settled.status, settled.resolution) == ("resolved", "merge")
    assert session.engine.memory(settled.merged_id).memory.text == merged
    for memory_id in (shown.old.memory_id, shown.new.memory_id):
        assert session.engine.memory(memory_id).memory.status == "superseded"


def test_next_and_previous_walk_the_queue_by_button_and_keyboard(session, qtbot, open_page) -> None:
    page, dialog = _review(qtbot, open_page)
    ids = [c.id for c in page.items]
    assert not dialog.prev_button.isEnabled()
    qtbot.mouseClick(dialog.next_button, Qt.MouseButton.LeftButton)
    assert dialog.current().id == ids[1]
    assert dialog.new_panel.text.text() == page.items[1].new.text
    _keys(qtbot, dialog, Qt.Key.Key_Right)  # Alt+Right
    assert dialog.current().id == ids[2] and not dialog.next_button.isEnabled()
    _keys(qtbot, dialog, Qt.Key.Key_Right)  # at the end: stays
    assert dialog.current().id == ids[2]
    _keys(qtbot, dialog, Qt.Key.Key_Left)  # Alt+Left
    assert dialog.current().id == ids[1]
    _keys(qtbot, dialog, Qt.Key.Key_P)  # Alt+P: the Previous button's mnemonic
    qtbot.waitUntil(lambda: dialog.current().id == ids[0])
    # nothing was settled by walking
    assert [c.id for c in session.engine.conflicts(None, status="open")] == ids


def test_settling_the_whole_queue_ends_in_an_empty_review(session, qtbot, open_page) -> None:
    page, dialog = _review(qtbot, open_page)
    for _ in range(len(page.items)):
        shown = dialog.current()
        qtbot.mouseClick(dialog.decisions["both"], Qt.MouseButton.LeftButton)
        _settled(qtbot, page, dialog, shown.id)
    assert session.engine.conflicts(None, status="open") == []
    assert dialog.current() is None and dialog.heading.text() == "No open conflicts"
    assert not any(b.isEnabled() for b in dialog.decisions.values())
    assert page.stack.currentWidget() is page.empty


def test_the_dashboard_card_opens_the_review_on_the_oldest_conflict(session, qtbot) -> None:
    window = session.window
    page = window.pages["conflicts"]
    card = window.pages["dashboard"].cards["conflicts"]
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(card, Qt.MouseButton.LeftButton)
    assert window.current_page() is page
    oldest = session.engine.conflicts(None, status="open")[0]
    assert page.review is not None and page.review.isVisible()
    assert page.review.current().id == oldest.id


def test_an_evidence_link_opens_the_tape_around_the_entry(session, qtbot, open_page) -> None:
    _page, dialog = _review(qtbot, open_page)
    entry = session.engine.conflict(dialog.current().id).challenger.sources[0]
    tape = session.window.pages["tape"]
    with qtbot.waitSignal(tape.loaded, timeout=10000):
        dialog.new_panel.evidence.linkActivated.emit(str(entry.id))
    assert session.window.current_page() is tape
    assert (tape.agent, tape.anchor) == (entry.agent, entry.id)
    assert dialog.isVisible()  # the review stays open beside the tape
