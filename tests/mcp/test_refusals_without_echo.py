"""A refused prompt, resource or method never carries back what was sent: a name, URI or
method may be a credential pasted in the wrong place, or megabytes. Real SDK clients over
stdio and streamable HTTP (the handshake era and 2026-07-28) against a real host."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.lowlevel.server import HandlerEntry
from mcp.shared.exceptions import MCPError

from app import Engine
from app.limits import MAX_ERROR_CHARS
from app.mcp.server import build_server

from .mcp_helpers import http_client, stdio_client

pytestmark = pytest.mark.heavy  # real processes: not in make test-fast

SECRET = "ghp_FAKEVALUE123"
HUGE = 2_000_000


def unknown_method(client: Client, method: str) -> Awaitable[Any]:
    request = types.Request[dict[str, Any], str](method=method, params={})
    return client.session.send_request(request, types.EmptyResult)


# (what is sent, the call); each must be refused
CASES: list[tuple[str, Callable[[Client], Awaitable[Any]]]] = [
    ("prompt named like a token", lambda c: c.get_prompt(SECRET)),
    ("prompt 2M long", lambda c: c.get_prompt(SECRET + "x" * HUGE)),
    ("skill URI", lambda c: c.read_resource(f"tapemind://skills/{SECRET}")),
    ("malformed URI", lambda c: c.read_resource(f"tapemind://{SECRET}/../../x")),
    ("URI 2M long", lambda c: c.read_resource(f"tapemind://memories/{SECRET}" + "9" * HUGE)),
    ("other scheme", lambda c: c.read_resource(f"https://{SECRET}@example.com/")),
    ("unknown method", lambda c: unknown_method(c, f"{SECRET}/list")),
    ("method 2M long", lambda c: unknown_method(c, SECRET + "y" * HUGE)),
]


async def refusals(client: Client) -> dict[str, types.ErrorData]:
    out = {}
    for what, call in CASES:
        with pytest.raises(MCPError) as refused:
            await call(client)
        out[what] = refused.value.error
    return out


def check(errors: dict[str, types.ErrorData]) -> None:
    assert set(errors) == {what for what, _ in CASES}
    for what, error in errors.items():
        said = error.model_dump_json()
        assert SECRET not in said, what
        assert len(said) < MAX_ERROR_CHARS + 200, what
        assert error.data in (None, ""), what
    assert "no prompt of yours" in errors["prompt 2M long"].message
    assert "tapemind-memory" in errors["prompt named like a token"].message  # says the real ones
    assert "resources/list" in errors["URI 2M long"].message
    assert errors["unknown method"].code == types.METHOD_NOT_FOUND
    assert "prompts/get" in errors["method 2M long"].message


def test_refusals_over_http_carry_nothing_sent(served: tuple) -> None:
    _, url, tokens = served

    async def session() -> None:
        for mode in ("legacy", "auto"):
            async with http_client(url, tokens["A"], mode=mode) as client:
                check(await refusals(client))
                assert (await client.list_prompts()).prompts  # still serving

    anyio.run(session)


def test_refusals_over_stdio_carry_nothing_sent(two_agents: Path) -> None:
    async def session() -> None:
        async with stdio_client(two_agents, "B") as client:
            check(await refusals(client))
            assert (await client.list_prompts()).prompts

    anyio.run(session)


def test_a_refusal_quoting_what_was_sent_is_cut_out(engine: Engine) -> None:
    """Whatever a handler's message says, the answer never repeats the request's strings."""
    engine.add_agent("A")
    server = build_server(lambda: engine, lambda ctx: "A")

    async def echoing(ctx: Any, params: Any) -> Any:
        raise MCPError(types.INVALID_PARAMS, f"bad {params.name} " * 5000, data=params.name)

    server._request_handlers["prompts/get"] = HandlerEntry(types.GetPromptRequestParams, echoing)

    async def call() -> types.ErrorData:
        async with Client(server) as client:
            with pytest.raises(MCPError) as refused:
                await client.get_prompt(SECRET)
            return refused.value.error

    error = anyio.run(call)
    assert SECRET not in error.model_dump_json() and error.data is None
    assert len(error.message) <= MAX_ERROR_CHARS
