"""What the host runs in the background, on a schedule: distill, maintain, snapshot.

Each function takes an open Engine and works through every agent; one agent's
failure is logged and does not stop the others.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.engine import Engine
    from app.lifecycle.distill import DistillReport
    from app.lifecycle.forgetting import MaintainReport

log = logging.getLogger(__name__)


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
