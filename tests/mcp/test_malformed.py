"""Malformed tool arguments always get a clean error and never change the home.

Driven by the SDK's real client over its in-memory transport (the same server
code as stdio and HTTP), with property-based arguments from hypothesis.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from app import Engine
from app.mcp.server import build_server
from app.mcp.tools import TOOLS

from .mcp_helpers import counts

VALID: dict[str, dict[str, Any]] = {
    "append": {"entries": [{"thread": "t", "turn": "1", "role": "user", "text": "hi"}]},
    "remember": {"text": "The user prefers tabs.", "category": "preference"},
    "context": {"query": "tabs"},
    "search": {"query": "tabs"},
    "tape": {"limit": 5},
    "memory": {"id": 1},
    "used": {"turn": "1", "memory_ids": [1]},
    "request_secret": {"name": "GITHUB_TOKEN", "reason": "push the branch"},
}
# Values of the wrong type for every field of every tool (and for list items).
WRONG = st.one_of(
    st.none().map(lambda _: {"$": "object"}),
    st.lists(st.integers(), min_size=2, max_size=3).map(lambda v: {"$": v}),
    # Finite only: JSON has no inf/NaN, and the client sends them as null, which is a
    # valid value of every optional argument (not a malformed one).
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet="超长abc\x00\n", min_size=0, max_size=5).map(lambda s: {"k": s}),
)
UNKNOWN_KEYS = st.sampled_from(["agent", "agent_id", "user_id", "home", "来源", "__proto__"])
CRASH = "failed inside Tapemind"


def corrupt(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A tool name and arguments that break its schema in one or more ways."""
    name = draw(st.sampled_from(sorted(VALID)))
    args = {k: v for k, v in VALID[name].items()}
    how = draw(st.sampled_from(["wrong_type", "unknown_key", "missing", "bad_item", "not_object"]))
    if how == "wrong_type":
        args[draw(st.sampled_from(sorted(args)))] = draw(WRONG)
    elif how == "unknown_key":
        args[draw(UNKNOWN_KEYS)] = draw(st.one_of(st.text(max_size=5), st.integers()))
    elif how == "missing":
        required = TOOLS[name].Args.model_json_schema().get("required", [])
        if not required:
            args[draw(UNKNOWN_KEYS)] = 1
        else:
            args.pop(draw(st.sampled_from(required)), None)
    elif how == "bad_item" and name == "append":
        entry = dict(args["entries"][0])
        field = draw(st.sampled_from(["kind", "role", "thread", "text", "extra"]))
        bad = {
            "kind": st.one_of(st.just("nonsense"), st.integers()),
            "role": st.one_of(st.just("robot"), st.integers()),
            "thread": st.one_of(st.just(""), st.integers()),
            "text": st.one_of(st.integers(), st.lists(st.text(max_size=3), max_size=2)),
            "extra": st.text(max_size=5),
        }[field]
        entry[field] = draw(bad)
        args = {"entries": [entry]}
    else:
        args = {"$": draw(st.sampled_from(sorted(args)))}
    return name, args


@st.composite
def malformed(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    return corrupt(draw)


def test_malformed_arguments_get_clean_errors_and_change_nothing(
    home: Path, database_url: str | None
) -> None:
    engine = Engine.open(home, create=True, database_url=database_url)
    engine.add_agent("A")
    server = build_server(lambda: engine, lambda ctx: "A")
    before = counts(home)

    async def call(name: str, args: dict[str, Any]) -> Any:
        async with Client(server) as client:
            return await client.call_tool(name, args)

    @settings(
        max_examples=120,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(malformed())
    def check(case: tuple[str, dict[str, Any]]) -> None:
        name, args = case
        result = anyio.run(call, name, args)
        assert result.is_error, (name, args)
        message = result.content[0].text
        assert CRASH not in message
        assert "call it again" in message or "[" in message  # says what to do, or the code
        assert counts(home) == before

    try:
        check()
    finally:
        engine.close()


def test_an_unknown_tool_is_named_with_the_real_ones(engine: Engine) -> None:
    engine.add_agent("A")
    server = build_server(lambda: engine, lambda ctx: "A")

    async def call() -> Any:
        async with Client(server) as client:
            return await client.call_tool("forget", {"id": 1})

    result = anyio.run(call)
    assert result.is_error and "append" in result.content[0].text
