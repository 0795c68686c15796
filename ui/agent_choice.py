"""The agent chooser the Memories, Archive and Tape pages share.

`choose_agent` runs on the worker (it asks the engine); `show_agents` runs in the
result slot and fills the page's combo box without re-triggering its handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox

if TYPE_CHECKING:
    from app import Engine


def choose_agent(engine: Engine, agent: str | None) -> tuple[list[str], str | None]:
    """The home's agent names and the one to show: `agent` if it still exists, else
    the first (None when the home has no agent). Worker side."""
    names = [a.name for a in engine.agents()]
    if agent not in names:
        agent = names[0] if names else None
    return names, agent


def show_agents(box: QComboBox, names: list[str], agent: str | None) -> None:
    """Fill `box` with `names` and select `agent`, without emitting its signals."""
    box.blockSignals(True)
    box.clear()
    for name in names:
        box.addItem(name, name)
    box.setCurrentIndex(max(0, box.findData(agent)))
    box.blockSignals(False)
