"""The host in-process (as the desktop app runs it): background jobs, and the CLI through it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from app.host.connect import open_home, own_home
from app.host.server import Host


def test_host_jobs_run_repeatedly_and_a_failing_job_keeps_its_schedule(two_agents: Path) -> None:
    engine, lock = own_home(two_agents)
    host = Host(engine, lock, port=0)
    seen: list[int] = []
    ran_twice = threading.Event()
    failed_twice = threading.Event()
    failures = 0

    def count_agents(eng: Any) -> None:
        seen.append(len(eng.agents()))
        if len(seen) >= 2:
            ran_twice.set()

    def broken(_eng: Any) -> None:
        nonlocal failures
        failures += 1
        if failures >= 2:
            failed_twice.set()
        raise RuntimeError("boom")

    host.add_job("count", 0.05, count_agents)
    host.add_job("broken", 0.05, broken)
    host.add_job("once", None, lambda eng: eng.agents())
    host.start()
    try:
        assert ran_twice.wait(20) and failed_twice.wait(20)
        opened = open_home(two_agents)  # another program on the same home: through the host
        try:
            assert opened.remote
            status = {j["name"]: j for j in opened.engine.host_jobs()}
        finally:
            opened.close()
        assert seen[:2] == [2, 2]
        assert status["once"]["runs"] == 1 and status["once"]["interval_s"] is None
        assert status["count"]["failures"] == 0 and status["count"]["runs"] >= 2
        assert (
            status["broken"]["failures"] >= 2 and status["broken"]["last_error"] == "RuntimeError"
        )
    finally:
        host.stop()
        engine.close()
    assert not lock.held
