"""The host's token check: from memory, current after every agent change, 401 otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from app import Engine
from app.host.auth import AgentAuth, AgentTokens


class CountingTokens(AgentTokens):
    """Counts how often the table is read from the database."""

    def __init__(self, engine: Engine) -> None:
        self.reads = 0
        super().__init__(engine)

    def reload(self) -> None:
        self.reads += 1
        super().reload()


def test_tokens_are_checked_in_memory_and_follow_every_agent_change(engine: Engine) -> None:
    engine.add_agent("A")
    token_a = engine.agent_token("A").token
    tokens = CountingTokens(engine)
    assert tokens.lookup(token_a) == "A"
    for wrong in ("", "tm_wrong", token_a + "x", token_a[:-1], "x" * 500, token_a.upper()):
        assert tokens.lookup(wrong) is None

    # Changes through this engine are seen at once: a new agent, a rotation, a removal.
    engine.add_agent("写作助手")
    token_zh = engine.agent_token("写作助手").token
    assert tokens.lookup(token_zh) == "写作助手"
    rotated = engine.agent_token("A", rotate=True).token
    assert tokens.lookup(token_a) is None and tokens.lookup(rotated) == "A"
    engine.remove_agent("写作助手")
    assert tokens.lookup(token_zh) is None

    # Checking never reads the database.
    reads = tokens.reads
    for _ in range(100):
        tokens.lookup(rotated)
        tokens.lookup("tm_wrong")
    assert tokens.reads == reads


def test_a_token_issued_elsewhere_works_and_wrong_tokens_cannot_hammer_the_database(
    engine: Engine, home: Path
) -> None:
    engine.add_agent("A")
    tokens = CountingTokens(engine)
    # Another process (here: a second Engine on the same home) issues a token: the host's
    # engine publishes no event for it.
    with Engine.open(home) as other:
        other.add_agent("B")
        token_b = other.agent_token("B").token
    assert tokens.lookup(token_b) is None
    tokens.MISS_RELOAD_S = 0.0  # the next unknown token may read the table again
    assert anyio.run(tokens.agent_for, token_b) == "B"

    tokens.MISS_RELOAD_S = 3600.0  # a burst of wrong tokens within the window
    reads = tokens.reads
    for n in range(50):
        assert anyio.run(tokens.agent_for, f"tm_wrong{n}") is None
    assert tokens.reads == reads


def test_the_middleware_answers_401_without_calling_the_app(engine: Engine) -> None:
    engine.add_agent("A")
    token = engine.agent_token("A").token
    tokens = AgentTokens(engine)
    seen: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["user"].access_token.client_id)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def call(headers: list[tuple[bytes, bytes]]) -> tuple[int, dict[bytes, bytes], bytes]:
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        scope = {"type": "http", "path": "/mcp", "headers": headers}
        await AgentAuth(app, tokens)(scope, receive, send)
        return sent[0]["status"], dict(sent[0]["headers"]), sent[1]["body"]

    refused: list[list[tuple[bytes, bytes]]] = [
        [],
        [(b"authorization", b"Bearer tm_wrong")],
        [(b"authorization", b"Basic " + token.encode())],
        [(b"authorization", token.encode())],
        [(b"authorization", "Bearer 令牌".encode())],
        [(b"x-api-key", token.encode())],
    ]
    for headers in refused:
        status, got, body = anyio.run(call, headers)
        assert status == 401 and got[b"www-authenticate"].startswith(b"Bearer error=")
        assert b"invalid_token" in body
    assert seen == []
    for scheme in (b"Bearer ", b"bearer "):
        status, _got, body = anyio.run(call, [(b"authorization", scheme + token.encode())])
        assert (status, body) == (200, b"ok")
    assert seen == ["A", "A"]
