"""Reading back what the arbiter left: agent cc's active memories."""

from __future__ import annotations

from app import Engine


def active(engine: Engine) -> list[str]:
    """The texts of agent cc's active memories, sorted."""
    return sorted(m.text for m in engine.memories("cc", status="active"))
