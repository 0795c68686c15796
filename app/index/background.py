"""The indexer in the background: a host's job, or a loop on a thread of its own.

Both run the indexer as a host does (`run_indexer_once(..., background=True)`): a failing
run is a stall, retried after a growing pause, never a traceback every two seconds.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from app.index.indexer import IndexerStats, run_indexer_once, runtime_of_engine

log = logging.getLogger(__name__)


def indexer_job(interval_s: float = 2.0, max_rows: int = 2048) -> tuple[str, float, Any]:
    """The host's job: `host.add_job(*indexer_job())` runs `run_indexer_once(engine,
    max_rows)` every `interval_s` seconds on the host's job thread (bounded, so other jobs
    get their turn while a big backlog drains)."""

    def job(engine: Any) -> IndexerStats:
        return run_indexer_once(engine, max_rows, background=True)

    return ("indexer", interval_s, job)


# Events after which there is something new to embed: wake the loop at once.
_WAKE_EVENTS = ("tape_did_append", "memory_did_add", "memory_did_edit")


def indexer_loop(
    engine: Any,
    stop: threading.Event,
    *,
    interval_s: float = 2.0,
    max_rows: int = 2048,
) -> None:
    """Run the indexer until `stop` is set: a background thread's target for a host
    without a job registry (`threading.Thread(target=indexer_loop, args=(engine, stop))`).

    Wakes at once when rows are appended or remembered, else every `interval_s`; keeps
    going without pause while a backlog remains. A failing run is logged and retried at
    the next interval; it never ends the loop."""
    rt = runtime_of_engine(engine)
    wake = threading.Event()
    unsubscribe = [rt.bus.subscribe(lambda _e: wake.set(), name) for name in _WAKE_EVENTS]
    try:
        while not stop.is_set():
            wake.clear()
            try:
                stats = run_indexer_once(rt, max_rows, background=True)
                busy = stats.remaining > 0 and stats.stalled is None
            except Exception:
                log.exception("indexer run failed")
                busy = False
            if not busy:
                wake.wait(interval_s)
    finally:
        for undo in unsubscribe:
            undo()
