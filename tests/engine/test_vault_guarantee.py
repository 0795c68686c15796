"""The guarantee: a secret value never reaches the tape, a memory, a log, an audit row,
an event, an exception message or the export.

One whole workflow (set, request, approve, the agent writes the value into its tape
and tries to remember it), then every file in the home (the database with its WAL
and shm files, the key file, the vector index if any) and every captured log record,
event and exception message is scanned for the plaintext and its encodings.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
from pathlib import Path
from urllib.parse import quote

import pytest

from app import Engine
from app.clock import ManualClock
from app.errors import TapemindError
from app.events import Event
from app.models import AgentSettings


def forms(value: str) -> list[bytes]:
    raw = value.encode()
    out = [raw, value.encode("utf-16-le")]
    for b64 in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        out += [b64, b64.rstrip(b"=")]
    out.append(quote(value, safe="").encode())
    return out


def leaks(blob: bytes, value: str) -> list[bytes]:
    return [f for f in forms(value) if f in blob]


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += logging.Formatter().formatException(record.exc_info)
        self.lines.append(text)


@pytest.fixture
def captured_logs() -> Capture:
    handler = Capture()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield handler
    root.removeHandler(handler)
    root.setLevel(old_level)


def scan_home(home: Path, value: str) -> dict[str, list[bytes]]:
    found = {}
    for path in sorted(home.rglob("*")):
        if path.is_file():
            hits = leaks(path.read_bytes(), value)
            if hits:
                found[str(path.relative_to(home))] = hits
    return found


def test_a_value_never_leaves_the_vault(
    home: Path, clock: ManualClock, tmp_path: Path, captured_logs: Capture
) -> None:
    value = "tm-" + secrets.token_urlsafe(24)
    engine = Engine.open(home, create=True, clock=clock)
    events: list[Event] = []
    engine.events.subscribe(events.append)
    errors: list[str] = []
    try:
        engine.add_agent("claude-code", AgentSettings(permission_mode="ask"))
        engine.set_secret("DEPLOY_TOKEN", value, tags=["deploy"])
        # The agent asks, even pasting the value into its reason; the owner approves.
        first = engine.request_secret(
            "claude-code", "DEPLOY_TOKEN", f"deploy staging (I once saw {value})", session="s1"
        )
        assert first.status == "pending"
        engine.answer_request(first.request_id or 0, True, "session", reason=f"ok {value}")
        got = engine.request_secret("claude-code", "DEPLOY_TOKEN", "deploy", session="s1")
        assert got.value == value
        # The agent writes the value into its tape, in every shape it might.
        b64 = base64.b64encode(value.encode()).decode()
        ids = engine.append(
            "claude-code",
            [
                {
                    "thread": "t",
                    "turn": "1",
                    "kind": "message",
                    "role": "assistant",
                    "text": f"Using token {value} to deploy.",
                },
                {
                    "thread": "t",
                    "turn": "1",
                    "kind": "tool_call",
                    "role": "assistant",
                    "text": json.dumps({"tool": "sh", "env": {"TOKEN": value}}),
                },
                {
                    "thread": "t",
                    "turn": "1",
                    "kind": "tool_result",
                    "role": "tool",
                    "text": f"Authorization: Basic {b64}",
                    "meta": {"token": value},
                },
                {
                    "thread": "t",
                    "turn": "1",
                    "kind": "message",
                    "role": "user",
                    "text": f"部署令牌是{value}，记住它。",
                },
            ],
        ).ids
        assert engine.tape("claude-code", thread="t")[0].text == (
            "Using token [secret:DEPLOY_TOKEN] to deploy."
        )
        # ... and tries to remember it.
        # The memory keeps the placeholder: naming a secret is a fine memory.
        result = engine.remember(
            "claude-code", f"The staging deploy token is {value}", "project_fact", sources=[ids[0]]
        )
        assert result.memory is not None
        assert result.memory.text == "The staging deploy token is [secret:DEPLOY_TOKEN]"
        edited = engine.edit_memory(result.memory.id, f"Deploy staging with {value} via CI")
        assert edited.text == "Deploy staging with [secret:DEPLOY_TOKEN] via CI"
        # Mistakes along the way carry no value in their messages.
        for call in (
            lambda: engine.set_secret("bad name", value),
            lambda: engine.set_secret("X", value[:2]),
            lambda: engine.request_secret("nobody", "DEPLOY_TOKEN", value),
            lambda: engine.answer_request(first.request_id or 0, True, "always"),
        ):
            with pytest.raises(TapemindError) as caught:
                call()
            errors.append(str(caught.value))
        # Another process (a fresh engine) that never touched the vault redacts too.
        with Engine.open(home, clock=clock) as other:
            other.append(
                "claude-code",
                [{"thread": "t2", "kind": "message", "role": "assistant", "text": value}],
            )
            assert other.tape("claude-code", thread="t2")[0].text == "[secret:DEPLOY_TOKEN]"
        engine.export(tmp_path / "export.jsonl")
        # Scan while the engine is open: the WAL still holds the latest pages.
        assert (home / "tapemind.db-wal").exists()
        open_scan = scan_home(home, value)
    finally:
        engine.close()
    assert open_scan == {}
    assert scan_home(home, value) == {}
    exported = (tmp_path / "export.jsonl").read_bytes()
    assert leaks(exported, value) == []
    tables = {json.loads(line)["table"] for line in exported.splitlines()[1:]}
    assert {"tape_entries", "memories", "audit"} <= tables
    assert not tables & {"secrets", "access_requests", "grants", "vault_meta"}
    assert all(value not in e for e in errors)
    assert all(value not in repr(e) for e in events)
    assert all(value not in line for line in captured_logs.lines)
    assert len(events) > 5


def test_a_locked_vault_refuses_writes_and_says_so_without_the_value(
    home: Path, clock: ManualClock, captured_logs: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = "tm-" + secrets.token_urlsafe(24)
    with Engine.open(home, create=True, clock=clock) as eng:
        eng.add_agent("a")
        eng.set_secret("S", value)
    from keyring.backends import fail

    monkeypatch.setattr("keyring.core._keyring_backend", fail.Keyring())
    with Engine.open(home, clock=clock) as eng:
        # Locked, a write that cannot be checked for secret values is refused whole.
        with pytest.raises(TapemindError, match="locked") as refused:
            eng.append("a", [{"thread": "t", "kind": "message", "role": "user", "text": value}])
        assert value not in str(refused.value)
        assert eng.tape("a") == []
        # Locked, the owner's own commands say what to do.
        with pytest.raises(TapemindError, match="keyring") as caught:
            eng.reveal_secret("S")
        assert value not in str(caught.value)
    assert any("cannot be redacted" in line for line in captured_logs.lines)
    assert all(value not in line for line in captured_logs.lines)
