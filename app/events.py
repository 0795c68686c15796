"""A content-free, in-process event bus, the audit trail fed from the same place, and
the catalogue of every event the engine publishes.

Every mutation calls `record(...)` inside its transaction: that writes one audit
row (time, agent, actor, action, object ids, counts; never text) and queues one
event, published only after the transaction commits. So the audit trail and the
events can never disagree, and a rolled-back write announces nothing.

Event names follow the `*_did_*` convention: action "memory.add" is published
as "memory_did_add". `CATALOGUE` lists every kind with what it changes, in the
words a client redraws by (`CHANGES`): the desktop app's bridge is made from it,
and `record` refuses an action the catalogue does not hold.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args

from app.db import Tx, dbapi

log = logging.getLogger(__name__)

MAX_AUDIT_IDS = 100  # a batch of 50k entries is recorded as its first ids and a count

# What an event changed, as a client sees it: each names a part of the home a screen shows.
Change = Literal[
    "agents", "tape", "memories", "conflicts", "insights", "health", "secrets", "requests"
]
CHANGES: tuple[Change, ...] = get_args(Change)


@dataclass(frozen=True)
class EventKind:
    """One kind of event: its name, the audit action it comes from, what it changes."""

    name: str  # memory_did_add
    action: str  # memory.add
    changes: frozenset[Change]
    about: str  # what happened, in a few words


def _kind(action: str, changes: str, about: str) -> EventKind:
    said = tuple(changes.split())
    unknown = set(said) - set(CHANGES)
    assert not unknown, f"{action}: unknown changes {unknown}"
    return EventKind(event_name(action), action, frozenset(cast("tuple[Change, ...]", said)), about)


def event_name(action: str) -> str:
    noun, _, verb = action.partition(".")
    return f"{noun}_did_{verb}" if verb else action


_EVERYTHING = " ".join(CHANGES)

CATALOGUE: tuple[EventKind, ...] = (
    _kind("agent.add", "agents health", "an agent was added"),
    _kind("agent.configure", "agents", "an agent's settings changed"),
    _kind("agent.remove", _EVERYTHING, "an agent was removed with its tape and memories"),
    _kind("agent.token", "agents", "an agent's MCP token was issued or rotated"),
    _kind("agent.unblock", "agents health", "the owner let an agent write again"),
    _kind("tape.append", "tape health", "entries were appended to a tape"),
    _kind("tape.erase", "tape memories", "a tape entry was erased (a hash tombstone stays)"),
    _kind("memory.add", "memories health", "a memory was stored"),
    _kind("memory.update", "memories health", "a memory took a refinement as a new version"),
    _kind("memory.supersede", "memories health", "a memory was superseded by a newer one"),
    _kind("memory.duplicate", "memories", "a duplicate was offered: nothing stored, reinforced"),
    _kind("memory.edit", "memories health", "the owner edited a memory (a new version)"),
    _kind("memory.forget", "memories tape health", "a memory was forgotten"),
    _kind("memory.recall", "memories health", "memories were injected by a recall"),
    _kind("memory.use", "memories health", "an agent reported memories it used"),
    _kind("memory.archive", "memories health", "maintenance archived faded memories"),
    _kind("memory.restore", "memories health", "archived memories were restored"),
    _kind("memory.keep", "memories health", "fading memories were kept (reinforced)"),
    _kind("conflict.open", "conflicts memories health", "a conflict opened for the owner"),
    _kind("conflict.resolve", "conflicts memories health", "the owner settled a conflict"),
    _kind("conflict.reopen", "conflicts memories health", "a settled conflict was reopened"),
    _kind("insight.propose", "insights health", "skills were proposed from the memories"),
    _kind("insight.accept", "insights health", "the owner accepted a proposed skill"),
    _kind("insight.reject", "insights health", "the owner rejected a proposed skill"),
    _kind("insight.withdraw", "insights health", "proposals whose memories changed were withdrawn"),
    _kind("secret.set", "secrets", "a secret was stored or replaced"),
    _kind("secret.configure", "secrets", "a secret's permission mode changed"),
    _kind("secret.remove", "secrets requests health", "a secret was removed"),
    _kind("secret.read", "secrets", "an agent read a secret through a grant"),
    _kind("secret.reveal", "secrets", "the owner revealed a secret's value"),
    _kind("vault.create", "secrets", "the vault key was created"),
    _kind("vault.rotate", "secrets", "every secret was sealed again under a new key"),
    _kind("vault.export_key", "secrets", "the vault key was exported for another host"),
    _kind("vault.import_key", "secrets", "this host took the vault key from an exported file"),
    _kind("secret.echo", "agents health", "an agent's write held a vault value it was not given"),
    _kind("reviewer.configure", "secrets", "the reviewer's rules changed"),
    _kind("access_request.create", "requests health", "an agent asked for a secret"),
    _kind("access_request.escalate", "requests", "the reviewer left a request to the owner"),
    _kind("access_request.decide", "requests secrets health", "a request was allowed or denied"),
    _kind("access_request.expire", "requests health", "requests expired without an answer"),
    _kind("grant.create", "secrets", "a grant was made"),
    _kind("grant.revoke", "secrets", "a grant was revoked"),
    _kind("home.import", _EVERYTHING, "an export was imported into the home"),
)
EVENTS: Mapping[str, EventKind] = {k.name: k for k in CATALOGUE}
_ACTIONS = frozenset(k.action for k in CATALOGUE)


@dataclass(frozen=True)
class Event:
    name: str  # e.g. memory_did_add
    agent: str | None
    ids: tuple[Any, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def changes(self) -> frozenset[Change]:
        """What this event changed (see `CHANGES`); nothing for a name not catalogued."""
        kind = EVENTS.get(self.name)
        return kind.changes if kind is not None else frozenset()


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
    """Write the audit row for `action` and queue its event for after commit.
    Raises ValueError for an action `CATALOGUE` does not hold (a new kind of event
    is catalogued first, with what it changes)."""
    if action not in _ACTIONS:
        raise ValueError(f"event action {action!r} is not in app.events.CATALOGUE")
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
