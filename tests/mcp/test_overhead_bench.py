"""What the MCP overhead benchmark relies on: the engine's time in every tool result, and
the host's MCP stack driven in-process for both protocol eras. Times are never asserted."""

from __future__ import annotations

from pathlib import Path

from app import Engine
from app.benchmarks.instant_engine import make_context_instant
from app.benchmarks.mcp_server_cpu import server_cpu_ms
from app.host.connect import own_home
from app.mcp.server import ENGINE_MS_META, run_tool


def test_a_tool_result_carries_the_engines_time_and_an_error_does_not(engine: Engine) -> None:
    engine.add_agent("A")
    ok = run_tool(engine, "A", "context", {"query": "部署 deploy"})
    assert not ok.is_error and ok.meta is not None
    assert isinstance(ok.meta[ENGINE_MS_META], float) and ok.meta[ENGINE_MS_META] >= 0
    refused = run_tool(engine, "A", "context", {"budget": "many"})
    assert refused.is_error and not refused.meta


def test_the_stack_benchmark_drives_the_host_app_in_both_protocol_eras(home: Path) -> None:
    with Engine.open(home, create=True) as engine:
        engine.add_agent("A")
        ids = engine.append("A", [{"thread": "t1", "role": "user", "text": "staging is stg-2"}])
        engine.remember("A", "The staging database is stg-2", "project_fact", sources=ids.ids)
    figures = server_cpu_ms(home, "A", ["2026-07-28", "handshake"], calls=3)
    assert set(figures) == {"2026-07-28", "handshake"}
    assert all(ms > 0 for ms in figures.values())
    # The benchmark released the home: its owner can take it again.
    engine, lock = own_home(home, role="host")
    try:
        assert lock.held and engine.agent("A").name == "A"
    finally:
        lock.release()
        engine.close()


def test_the_instant_engine_repeats_the_real_answer_without_recalling_again(
    engine: Engine,
) -> None:
    engine.add_agent("A")
    engine.remember("A", "部署在每周五下午进行", "project_fact")
    undo = make_context_instant()
    try:
        first = engine.context("A", query="部署时间")
        again = engine.context("A", query="部署时间")
        other = engine.context("A", query="deploy day")
    finally:
        undo()
    assert first.included_ids and again == first  # the same answer, from memory
    assert other.included_ids == first.included_ids  # another query: the engine again
    # Only the two real calls reached the engine (one recall each); the repeat did not.
    assert engine.memory(first.included_ids[0]).memory.recall_count == 2
    engine.context("A", query="部署时间")  # undone: the real engine answers again
    assert engine.memory(first.included_ids[0]).memory.recall_count == 3
