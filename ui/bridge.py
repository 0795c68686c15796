"""One bridge from the engine's event bus to Qt signals on the GUI thread.

Engine listeners run on whichever thread committed the write; the bridge
re-emits each event through a queued connection, then fans it out to signals
named after what changed, so each view refreshes only what the change touched.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

# Event names are `<noun>_did_<verb>`; the noun says which views must refresh.
_NOUN_SIGNALS = {
    "memory": ("memories_changed", "health_changed"),
    "memories": ("memories_changed", "health_changed"),
    "tape": ("tape_changed", "health_changed"),
    "agent": ("agents_changed", "memories_changed", "tape_changed", "health_changed"),
    "conflict": ("conflicts_changed", "memories_changed", "health_changed"),
    "insight": ("insights_changed", "health_changed"),
    "archive": ("memories_changed", "health_changed"),
    "lifecycle": ("memories_changed", "health_changed"),
    "health": ("health_changed",),
    "snapshot": ("health_changed",),
    "embed": ("health_changed",),
    "index": ("health_changed",),
    "secret": ("secrets_changed", "health_changed"),
    "vault": ("secrets_changed",),
    "grant": ("secrets_changed",),
    "secrets": ("secrets_changed",),
    "access": ("requests_changed", "health_changed"),
    "access_request": ("requests_changed", "secrets_changed", "health_changed"),
    "request": ("requests_changed", "health_changed"),
    "approval": ("requests_changed", "health_changed"),
}


class EngineBridge(QObject):
    """Engine events as Qt signals. Signals carry the agent name ("" for all)."""

    event_received = Signal(str, str)  # name, agent
    memories_changed = Signal(str)
    tape_changed = Signal(str)
    agents_changed = Signal(str)
    conflicts_changed = Signal(str)
    insights_changed = Signal(str)
    health_changed = Signal(str)
    secrets_changed = Signal(str)
    requests_changed = Signal(str)

    _relay = Signal(str, str)

    def __init__(self, engine: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._relay.connect(self._dispatch, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe = engine.events.subscribe(self._on_event)

    def _on_event(self, event: Any) -> None:
        # Any thread: only emit, never touch widgets here.
        self._relay.emit(event.name, event.agent or "")

    @Slot(str, str)
    def _dispatch(self, name: str, agent: str) -> None:
        self.event_received.emit(name, agent)
        noun = name.split("_did_", 1)[0]
        for signal_name in _NOUN_SIGNALS.get(noun, ()):
            getattr(self, signal_name).emit(agent)

    def close(self) -> None:
        self._unsubscribe()
