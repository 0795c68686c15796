"""Vault page and approval prompts on a fresh copy of the seeded demo home (with its secrets)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from app import Engine


@pytest.fixture
def vault_engine(vault_home: Path) -> Iterator[Engine]:
    engine = Engine.open(vault_home)
    yield engine
    engine.close()


def _session(vault_engine: Engine, qtbot, prompts: bool = False):  # type: ignore[no-untyped-def]
    from ui.session import Session

    s = Session(vault_engine, page="dashboard", tray=False, prompts=prompts)
    with qtbot.waitSignal(s.window.pages["dashboard"].loaded, timeout=10000):
        s.window.show()
    return s


def _prompted(qtbot, s, ask):  # type: ignore[no-untyped-def]
    """Start the window, then `ask()` an agent's request while it runs: its prompt (a
    request already waiting at start is announced, not popped)."""
    with qtbot.waitSignal(s.window.approvals.waiting, timeout=10000):
        s.window.show()
    with qtbot.waitSignal(s.window.approvals.prompt_opened, timeout=10000) as blocker:
        ask()
    return blocker.args[0]


def _open(qtbot, s, name: str):  # type: ignore[no-untyped-def]
    page = s.window.pages[name]
    with qtbot.waitSignal(page.loaded, timeout=10000):
        s.window.open_page(name, {})
    return page


def test_vault_lists_names_never_values(vault_engine, qtbot, english) -> None:
    s = _session(vault_engine, qtbot)
    try:
        dash = s.window.pages["dashboard"]
        pending = vault_engine.access_requests(status="pending")
        assert dash.cards["secrets"].value.text() == str(len(pending))
        page = _open(qtbot, s, "vault")
        names = [page.model.row_at(i).info.name for i in range(page.model.rowCount())]
        assert sorted(names) == sorted(x.name for x in vault_engine.secrets())
        values = [vault_engine.reveal_secret(n) for n in names]
        shown = [lbl.text() for lbl in page.findChildren(QLabel)]
        shown += [page.requests.item(i).text() for i in range(page.requests.count())]
        shown += [
            str(page.model.data(page.model.index(r, c)))
            for r in range(page.model.rowCount())
            for c in range(page.model.columnCount())
        ]
        assert not any(v in text for v in values for text in shown)
        assert pending[0].secret in page.requests.item(0).text()
    finally:
        s.close()


def test_allow_once_answers_the_request(vault_engine, qtbot, english) -> None:
    s = _session(vault_engine, qtbot)
    try:
        page = _open(qtbot, s, "vault")
        request = vault_engine.access_requests(status="pending")[0]
        with qtbot.waitSignal(page.loaded, timeout=10000):
            qtbot.mouseClick(page.answer_buttons["once"], Qt.MouseButton.LeftButton)
        answered = vault_engine.access_request(request.id)
        assert (answered.status, answered.scope) == ("allowed", "once")
        assert answered.decided_by == "owner"
        assert page.requests.item(0).text() == "No requests are waiting."
    finally:
        s.close()


def test_add_a_secret_with_chinese_tags(vault_engine, qtbot, english) -> None:
    s = _session(vault_engine, qtbot)
    try:
        page = _open(qtbot, s, "vault")
        qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
        dialog = page.dialog
        dialog.name.setText("STAGING_REDIS_URL")
        dialog.value.setText("redis://demo:值@127.0.0.1:6379/0")
        dialog.tags.setText("staging, 缓存")
        assert dialog.value.echoMode() == dialog.value.EchoMode.Password
        with qtbot.waitSignal(page.loaded, timeout=10000):
            qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
        info = vault_engine.secret("STAGING_REDIS_URL")
        assert info.tags == ("staging", "缓存")
        assert vault_engine.reveal_secret("STAGING_REDIS_URL") == "redis://demo:值@127.0.0.1:6379/0"
        names = [page.model.row_at(i).info.name for i in range(page.model.rowCount())]
        assert "STAGING_REDIS_URL" in names
    finally:
        s.close()


def test_approval_prompt_appears_and_denies_by_keyboard(vault_engine, qtbot, english) -> None:
    from ui.session import Session

    demo = vault_engine.access_requests(status="pending")[0]
    s = Session(vault_engine, page="dashboard", tray=False, prompts=True)
    try:
        prompt = _prompted(
            qtbot, s, lambda: vault_engine.request_secret(demo.agent, demo.secret, "run the check")
        )
        request = vault_engine.access_request(prompt.request_id)
        labels = " ".join(lbl.text() for lbl in prompt.findChildren(QLabel))
        assert request.agent in labels and request.secret in labels and request.reason in labels
        # Enter answers with the default button, which is Deny: never a grant by accident.
        assert prompt.buttons["deny"].isDefault()
        with qtbot.waitSignal(s.bridge.requests_changed, timeout=10000):
            qtbot.keyClick(prompt, Qt.Key.Key_Return)
        assert vault_engine.access_request(request.id).status == "denied"
    finally:
        s.close()


def test_the_reviewers_verdict_reads_in_chinese(vault_engine, qtbot, english) -> None:
    from ui import i18n
    from ui.session import Session

    for pending in vault_engine.access_requests(status="pending"):
        vault_engine.answer_request(pending.id, allow=False)
    agent = vault_engine.agents()[0].name
    secret = vault_engine.secrets()[0].name
    vault_engine.configure_agent(agent, permission_mode="review")
    vault_engine.configure_reviewer(agents=["someone-else"])
    i18n.install_language("zh")
    s = Session(vault_engine, page="dashboard", tray=False, prompts=True)
    try:
        prompt = _prompted(
            qtbot, s, lambda: vault_engine.request_secret(agent, secret, "部署需要数据库密码")
        )
        request = vault_engine.access_request(prompt.request_id)
        assert request.status == "pending" and request.reason_code == "agent_not_reviewed"
        assert "may not approve for agent" in (request.decision_reason or "")
        labels = [lbl.text() for lbl in prompt.findChildren(QLabel)]
        assert f"审查规则请你决定：审查者无权为智能体 '{agent}' 批准" in labels, labels
    finally:
        s.close()
        i18n.install_language("en")


def test_a_secret_without_its_own_mode_says_it_follows_the_agent(
    vault_engine, qtbot, english
) -> None:
    s = _session(vault_engine, qtbot)
    try:
        page = _open(qtbot, s, "vault")
        modes = {page.model.index(r, 2).data() for r in range(page.model.rowCount())}
        assert "agent's setting" in modes  # the demo's secrets follow their agent's mode
        assert "agent's" not in modes
    finally:
        s.close()


def test_the_prompt_shows_a_long_reason_whole(vault_engine, qtbot, qapp, english) -> None:
    from ui import i18n, theme
    from ui.session import Session

    demo = vault_engine.access_requests(status="pending")[0]
    assert len(demo.reason) > 60, "the demo's reason is a full sentence"
    # In Chinese the prompt came out narrower than the English reason and cut it.
    i18n.install_language("zh")
    theme.apply_fonts(qapp, "zh")
    s = Session(vault_engine, page="dashboard", tray=False, prompts=True)
    try:
        long_reason = demo.reason + ", and again after the fix"
        prompt = _prompted(
            qtbot, s, lambda: vault_engine.request_secret(demo.agent, demo.secret, long_reason)
        )
        request = vault_engine.access_request(prompt.request_id)
        qtbot.waitUntil(prompt.isVisible)
        label = next(lbl for lbl in prompt.findChildren(QLabel) if lbl.text() == request.reason)
        # Every word is drawn inside the label: the text's wrapped (or single) line box fits.
        flags = Qt.TextFlag.TextWordWrap if label.wordWrap() else Qt.TextFlag(0)
        box = label.contentsRect()
        needed = label.fontMetrics().boundingRect(box, int(flags), request.reason)
        assert needed.width() <= box.width() and needed.height() <= box.height()
    finally:
        s.close()
        theme.apply_fonts(qapp, "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_names_read_whole_and_the_note_agrees_with_reveal(
    vault_engine, qtbot, english, lang: str
) -> None:
    """At 1024x640 a long name ("INKSTONE_STAGING_DB_PASSWORD") is not cut, and the note
    beside Reveal… does not say that values are never shown."""
    from ui import i18n

    i18n.install_language(lang)
    s = _session(vault_engine, qtbot)
    try:
        s.window.resize(1024, 640)
        page = _open(qtbot, s, "vault")
        qtbot.waitUntil(lambda: page.table.isVisible())
        metrics = page.table.fontMetrics()
        longest = max((x.name for x in vault_engine.secrets()), key=len)
        assert len(longest) >= 20
        assert page.table.columnWidth(0) >= metrics.horizontalAdvance(longest)
        note = page.note.text()
        assert "never shown" not in note and "从不显示" not in note
        reveal = page.reveal_button.text().replace("&", "").rstrip("…").split("(")[0]
        assert reveal in note
    finally:
        s.close()
        i18n.install_language("en")


def test_a_computer_without_the_vault_key_says_how_to_import_it_in_chinese(
    vault_engine, qtbot, english, monkeypatch
) -> None:
    """The home moved to a computer whose keyring lacks the key: revealing a secret says,
    in the owner's language, to export the key elsewhere and import it here."""
    import keyring

    from app.engine import runtime_of
    from app.vault.service import for_runtime as vault_of
    from tests.conftest import MemoryKeyring
    from ui import i18n

    i18n.install_language("zh")
    s = _session(vault_engine, qtbot)
    try:
        page = _open(qtbot, s, "vault")
        monkeypatch.setattr(keyring.core, "_keyring_backend", MemoryKeyring())
        # Forget the unlocked key, as a process on the new computer never had it.
        vault_of(runtime_of(vault_engine), vault_engine.home_id).close()
        page._reveal(vault_engine.secrets()[0].name)
        qtbot.waitUntil(lambda: "import-key" in page.note.text(), timeout=10000)
        note = page.note.text()
        assert "这台电脑没有保险库密钥" in note and "tapemind vault export-key" in note
    finally:
        s.close()
        i18n.install_language("en")
