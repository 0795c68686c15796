"""Seeding agent cc's memories and reading back what the arbiter left of them."""

from __future__ import annotations

from app import Engine
from app.models import Memory


def active(engine: Engine) -> list[str]:
    """The texts of agent cc's active memories, sorted."""
    return sorted(m.text for m in engine.memories("cc", status="active"))


def remembered(engine: Engine, category: str, *texts: str) -> list[Memory]:
    """Agent cc remembers `texts` in order, each stored as written (not a duplicate)."""
    made = [engine.remember("cc", text, category).memory for text in texts]
    assert all(m is not None for m in made), made
    return [m for m in made if m is not None]
