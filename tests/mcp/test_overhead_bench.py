"""What the MCP overhead benchmark relies on: the engine's time in every tool result, and
the host's MCP stack driven in-process for both protocol eras. Times are never asserted."""

from __future__ import annotations

from pathlib import Path

from app import Engine
from app.host.connect import own_home
from app.mcp.server import ENGINE_MS_META, run_tool
from bench.mcp.instant_engine import make_context_instant
from bench.mcp.overhead import Round, verdict
from bench.mcp.server_cpu import server_cpu_ms


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
        other = engine.context("A", query="哪天部署")
    finally:
        undo()
    assert first.included_ids and again == first  # the same answer, from memory
    assert other.included_ids == first.included_ids  # another query: the engine again
    # Only the two real calls reached the engine (one recall each); the repeat did not.
    assert engine.memory(first.included_ids[0]).memory.recall_count == 2
    engine.context("A", query="部署时间")  # undone: the real engine answers again
    assert engine.memory(first.included_ids[0]).memory.recall_count == 3


def _round(protocol: str, agents: str, overhead: float, host_part: float) -> Round:
    return Round(
        protocol=protocol,
        agents=agents,
        pace="together",
        rtt=[overhead + 20] * 20,
        engine=[20.0] * 20,
        overhead=[overhead] * 20,
        host_part=[host_part] * 20,
        client_cpu_ms=2.5,
        host_cpu_ms=5.0,
        loop_cpu_ms=0.4,
        load_before="1.0",
        load_after="1.0",
    )


def test_the_verdict_checks_what_tapemind_adds_and_shows_the_sdk_clients_own_rows() -> None:
    rounds = [
        _round("TS SDK", "1", 3.0, 0.6),
        _round("plain HTTP", "1", 1.0, 0.5),
        _round("plain HTTP", "8", 6.0, 3.0),
        _round("TS SDK", "8", 14.0, 7.5),
        _round("TS SDK", "1+7", 9.0, 4.0),
    ]
    lines = verdict(rounds)
    assert "1 agent, every client: p95 up to 3.0 ms: met" in lines[1]
    assert "the plain client: p95 up to 6.0 ms: met" in lines[2]
    assert "the host's part: p95 up to 7.5 ms: met" in lines[3]
    # The SDK clients' own rows are shown, never counted as met or not.
    assert "overhead p95 up to 14.0 ms" in lines[5] and "met" not in lines[5].lower()
    assert "overhead p95 up to 9.0 ms" in lines[6]
    # A slow host shows: the plain client over the target is not met.
    slow = verdict([*rounds[:2], _round("plain HTTP", "8", 12.0, 11.0), rounds[3]])
    assert "the plain client: p95 up to 12.0 ms: NOT MET" in slow[2]
