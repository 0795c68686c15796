"""One bridge from the engine's event bus to Qt signals on the GUI thread.

Engine listeners run on whichever thread committed the write; the bridge
re-emits each event through a queued connection, then fans it out to one
signal per part of the home it changed, so each view refreshes only what the
change touched. What an event changes comes from the engine's catalogue
(`app.EVENT_KINDS`, carried by each event as `Event.changes`): the bridge names
no event. Qt wants signals declared in the class body, so there is one
`<change>_changed` below for each of `app.EVENT_CHANGES`; the bridge refuses to
start if the two ever differ.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal, Slot

if TYPE_CHECKING:
    from app import Engine, Event


class EngineBridge(QObject):
    """Engine events as Qt signals. Signals carry the agent name ("" for all)."""

    event_received = Signal(str, str)  # name, agent
    agents_changed = Signal(str)
    tape_changed = Signal(str)
    memories_changed = Signal(str)
    conflicts_changed = Signal(str)
    insights_changed = Signal(str)
    health_changed = Signal(str)
    secrets_changed = Signal(str)
    requests_changed = Signal(str)

    _relay = Signal(str, str, object)

    def __init__(self, engine: Engine, parent: QObject | None = None) -> None:
        super().__init__(parent)
        from app import EVENT_CHANGES

        signals = {
            "agents": self.agents_changed,
            "tape": self.tape_changed,
            "memories": self.memories_changed,
            "conflicts": self.conflicts_changed,
            "insights": self.insights_changed,
            "health": self.health_changed,
            "secrets": self.secrets_changed,
            "requests": self.requests_changed,
        }
        if set(signals) != set(EVENT_CHANGES):
            raise RuntimeError(f"the bridge's signals {set(signals)} are not {EVENT_CHANGES}")
        # In the engine's order (lists before the health that counts them).
        self._signals = [(change, signals[change]) for change in EVENT_CHANGES]
        self._relay.connect(self._dispatch, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe = engine.events.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        # Any thread: only emit, never touch widgets here.
        self._relay.emit(event.name, event.agent or "", event.changes)

    @Slot(str, str, object)
    def _dispatch(self, name: str, agent: str, changes: frozenset[str]) -> None:
        self.event_received.emit(name, agent)
        for change, signal in self._signals:
            if change in changes:
                signal.emit(agent)

    def close(self) -> None:
        self._unsubscribe()
