"""A content-free, in-process event bus, and the audit trail fed from the same place.

Every mutation calls `record(...)` inside its transaction: that writes one audit
row (time, agent, actor, action, object ids, counts; never text) and queues one
event, published only after the transaction commits. So the audit trail and the
events can never disagree, and a rolled-back write announces nothing.

Event names follow the `*_did_*` convention: action "memory.add" is published
as "memory_did_add".
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.db import Tx, dbapi

log = logging.getLogger(__name__)

MAX_AUDIT_IDS = 100  # a batch of 50k entries is recorded as its first ids and a count


@dataclass(frozen=True)
class Event:
    name: str  # e.g. memory_did_add
    agent: str | None
    ids: tuple[Any, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict)


Listener = Callable[[Event], None]


class EventBus:
    """Synchronous publish/subscribe. Listeners run on the publishing thread
    (the UI bridge re-emits them as queued Qt signals)."""

    def __init__(self) -> None:
        self._listeners: dict[str | None, list[Listener]] = {}
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener, name: str | None = None) -> Callable[[], None]:
        """Call `listener` for events named `name` (all events when None).
        Returns a function that unsubscribes."""
        with self._lock:
            self._listeners.setdefault(name, []).append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners.get(name, []):
                    self._listeners[name].remove(listener)

        return unsubscribe

    def publish(self, event: Event) -> None:
        with self._lock:
            targets = [*self._listeners.get(event.name, ()), *self._listeners.get(None, ())]
        for listener in targets:
            try:
                listener(event)
            except Exception:  # a broken listener must not break the write that succeeded
                log.exception("event listener failed for %s", event.name)


def event_name(action: str) -> str:
    noun, _, verb = action.partition(".")
    return f"{noun}_did_{verb}" if verb else action


def record(
    session: Tx,
    at: str,
    action: str,
    *,
    agent: str | None,
    actor: str,
    ids: Sequence[Any] = (),
    counts: Mapping[str, int] | None = None,
) -> None:
    """Write the audit row for `action` and queue its event for after commit."""
    counts = dict(counts or {})
    ids = list(ids)
    if len(ids) > MAX_AUDIT_IDS:
        counts.setdefault("ids_total", len(ids))
        ids = ids[:MAX_AUDIT_IDS]
    dbapi(session).execute(
        "INSERT INTO audit (at, agent, actor, action, object_ids, counts) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (at, agent, actor, action, json.dumps(ids), json.dumps(counts, sort_keys=True)),
    )
    pending: list[Event] = session.info.setdefault("events", [])
    pending.append(Event(event_name(action), agent, tuple(ids), counts))
