"""The approval prompt as the owner meets it: it offers only answers that can work, and
it goes away when the request was answered elsewhere (the CLI, the Vault page)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app import Engine


@pytest.fixture
def asked(vault_home: Path) -> Iterator[tuple[Engine, str, str]]:
    """A demo home with no request pending, its first agent in ask mode."""
    engine = Engine.open(vault_home)
    for pending in engine.access_requests(status="pending"):
        engine.answer_request(pending.id, allow=False)
    agent, secret = engine.agents()[0].name, engine.secrets()[0].name
    engine.configure_agent(agent, permission_mode="ask")
    yield engine, agent, secret
    engine.close()


def _started(qtbot, s):  # type: ignore[no-untyped-def]
    """Show the window and let the watcher take its first look (what already waits)."""
    with qtbot.waitSignal(s.window.approvals.waiting, timeout=10000):
        s.window.show()


def _asked(qtbot, s, ask):  # type: ignore[no-untyped-def]
    """`ask()` (an agent's request) while the app runs: (its prompt, what ask returned)."""
    with qtbot.waitSignal(s.window.approvals.prompt_opened, timeout=10000) as blocker:
        result = ask()
    return blocker.args[0], result


def test_a_request_waiting_at_start_is_announced_not_popped_and_the_prompt_is_not_modal(
    asked, qtbot, english
) -> None:
    from PySide6.QtWidgets import QApplication

    from ui.session import Session
    from ui.window import PAGES

    engine, agent, secret = asked
    engine.request_secret(agent, secret, "asked before the app started")
    s = Session(engine, page="dashboard", tray=False, prompts=True)
    opened: list[object] = []
    s.window.approvals.prompt_opened.connect(opened.append)
    try:
        _started(qtbot, s)
        assert opened == [] and s.window.approvals.prompt is None
        assert "A secret request waits for your answer" in s.window.waiting.text()
        # a new request (another session of the agent), asked while the owner is here,
        # gets a prompt at once
        prompt, _ = _asked(
            qtbot, s, lambda: engine.request_secret(agent, secret, "right now", session="s2")
        )
        assert prompt.isVisible() and not prompt.isModal()
        assert QApplication.activeModalWidget() is None  # sidebar and menus still answer
        vault = s.window.pages["vault"]
        with qtbot.waitSignal(vault.loaded, timeout=10000):
            s.window.sidebar.setCurrentRow([key for key, _, _ in PAGES].index("vault"))
        assert s.window.current_page() is vault and prompt.isVisible()
        assert "2 secret requests wait for your answer" in s.window.waiting.text()
    finally:
        s.close()


def test_this_session_is_offered_only_to_a_request_with_a_session(asked, qtbot, english) -> None:
    from ui.session import Session

    engine, agent, secret = asked
    # an HTTP agent on the sessionless protocol, then a stdio agent (one session per process)
    s = Session(engine, page="vault", tray=False, prompts=True)
    try:
        _started(qtbot, s)
        prompt, first = _asked(
            qtbot, s, lambda: engine.request_secret(agent, secret, "push the release tag")
        )
        engine.request_secret(agent, secret, "推送发布标签", session="stdio:42")
        assert prompt.request_id == first.request_id
        assert not prompt.buttons["session"].isEnabled()
        assert "allow once, for an hour, or always" in prompt.buttons["session"].toolTip()
        assert prompt.buttons["once"].isEnabled() and prompt.buttons["always"].isEnabled()
        with qtbot.waitSignal(s.window.approvals.prompt_opened, timeout=10000) as blocker:
            qtbot.mouseClick(prompt.buttons["once"], Qt.MouseButton.LeftButton)
        second = blocker.args[0]
        qtbot.waitUntil(lambda: engine.access_request(first.request_id).status == "allowed")
        # the sessionless agent asks again and gets its one read
        once = engine.request_secret(agent, secret, "push the release tag")
        assert (once.status, once.scope) == ("allowed", "once") and once.value
        assert second.buttons["session"].isEnabled()
        with qtbot.waitSignal(s.bridge.requests_changed, timeout=10000):
            qtbot.mouseClick(second.buttons["session"], Qt.MouseButton.LeftButton)
        [granted] = [r for r in engine.access_requests(status="allowed") if r.scope == "session"]
        assert granted.session == "stdio:42"
        # the same agent in that session reads it again without a prompt; another one cannot
        again = engine.request_secret(agent, secret, "推送发布标签", session="stdio:42")
        assert again.status == "allowed" and again.value
        other = engine.request_secret(agent, secret, "推送发布标签", session="stdio:43")
        assert other.status == "pending" and other.value is None
    finally:
        s.close()


def test_the_vault_page_offers_this_session_per_request(asked, qtbot, english) -> None:
    from ui.session import Session

    engine, agent, secret = asked
    engine.request_secret(agent, secret, "push the release tag")
    engine.request_secret(agent, secret, "推送发布标签", session="stdio:42")
    s = Session(engine, page="dashboard", tray=False)
    try:
        page = s.window.pages["vault"]
        with qtbot.waitSignal(page.loaded, timeout=10000):
            s.window.show()
            s.window.open_page("vault", {})
        session_button = page.answer_buttons["session"]
        assert page.requests.currentRow() == 0 and not session_button.isEnabled()
        page.requests.setCurrentRow(1)
        assert session_button.isEnabled()
        page.requests.setCurrentRow(0)
        assert not session_button.isEnabled() and page.answer_buttons["once"].isEnabled()
    finally:
        s.close()


def test_a_request_answered_elsewhere_closes_its_prompt(asked, qtbot, english) -> None:
    from ui.session import Session

    engine, agent, secret = asked
    s = Session(engine, page="dashboard", tray=False, prompts=True)
    try:
        _started(qtbot, s)
        prompt, first = _asked(
            qtbot, s, lambda: engine.request_secret(agent, secret, "deploy to staging")
        )
        assert prompt.isVisible() and prompt.request_id == first.request_id
        # the owner answers in a terminal (`tapemind approvals deny`, through this host)
        engine.answer_request(first.request_id, allow=False)
        qtbot.waitUntil(lambda: not prompt.isVisible(), timeout=10000)
        assert s.window.approvals.prompt is None
        # a new question gets its own prompt, not one stuck behind a stale one
        with qtbot.waitSignal(s.window.approvals.prompt_opened, timeout=10000) as blocker:
            later = engine.request_secret(agent, secret, "再部署一次")
        assert blocker.args[0].request_id == later.request_id
    finally:
        s.close()


def test_a_request_that_expires_closes_its_prompt(asked, qtbot, english) -> None:
    """No answer in time is a deny: the prompt does not stay up offering a grant."""
    from ui.session import Session

    engine, agent, secret = asked
    s = Session(engine, page="dashboard", tray=False, prompts=True)
    try:
        _started(qtbot, s)
        prompt, short = _asked(
            qtbot, s, lambda: engine.request_secret(agent, secret, "一次性部署", ttl_seconds=0.5)
        )
        assert prompt.request_id == short.request_id
        # any engine read past the expiry turns it into a deny (the host does so on schedule)
        qtbot.waitUntil(lambda: engine.access_requests(status="pending") == [], timeout=10000)
        qtbot.waitUntil(lambda: not prompt.isVisible(), timeout=10000)
        assert engine.access_request(short.request_id).status == "expired"
    finally:
        s.close()


def test_an_agent_without_a_session_can_be_allowed_for_an_hour(asked, qtbot, english) -> None:
    """The prompt's "for an hour" serves every agent, sessionless ones too, by keyboard;
    the Vault page then says until when the agent may read the secret."""
    from ui import i18n
    from ui.session import Session

    engine, agent, secret = asked
    s = Session(engine, page="vault", tray=False, prompts=True)
    i18n.install_language("zh")  # the `english` fixture puts English back afterwards
    try:
        _started(qtbot, s)
        prompt, first = _asked(
            qtbot, s, lambda: engine.request_secret(agent, secret, "发布 v2.1 需要推送标签")
        )
        hour = prompt.buttons["hour"]
        assert hour.isEnabled() and hour.text() == "1 小时内允许(&H)"
        assert "1 小时" in hour.toolTip()
        with qtbot.waitSignal(s.bridge.requests_changed, timeout=10000):
            qtbot.keyClick(prompt, Qt.Key.Key_H, Qt.KeyboardModifier.AltModifier)
        answered = engine.access_request(first.request_id)
        assert (answered.status, answered.scope) == ("allowed", "hour")
        # the agent reads it again and again within the hour, with no new prompt
        for _ in range(2):
            again = engine.request_secret(agent, secret, "push the tag")
            assert (again.status, again.scope) == ("allowed", "hour") and again.value
        assert engine.access_requests(status="pending") == []
        page = s.window.pages["vault"]
        with qtbot.waitSignal(page.loaded, timeout=10000):
            page.refresh()
        [row] = [r for r in page.model.rows if r.info.name == secret]
        assert any(label.startswith(f"{agent} (至 ") for label in row.grants)
        # the page reloads itself when the hour is over, to drop the grant (a coarse timer:
        # Qt may fire an hour-long one a little late, which costs nothing here)
        assert page.lapse_timer.isActive()
        assert 3_500_000 < page.lapse_timer.remainingTime() < 3_800_000
    finally:
        s.close()
