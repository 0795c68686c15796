"""What every engine module shares: the store, the clock, the event bus, the services.

Modules take a `Runtime` rather than reaching for globals, so tests inject a
manual clock or a different store, and nothing happens at import time.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from sqlmodel import Session, select

from app.clock import Clock, to_iso
from app.db import AgentRow, Store, Tx, dbapi
from app.errors import NotFound
from app.events import Event, EventBus
from app.models import AgentSettings

T = TypeVar("T")


class Slot(Generic[T]):
    """A typed place in `Services`, declared by the package whose service fills it
    (`app.index.RETRIEVAL`, `app.vault.KEYSTORE`, …): the type checker knows what
    each slot holds, and this module needs to know none of them."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Slot({self.name!r})"


class Services:
    """What an open engine holds beside its store: the retrieval service, the vault,
    caches, and the dependencies injected at `Engine.open` (embedder, key store)."""

    def __init__(self) -> None:
        self._held: dict[Slot[Any], Any] = {}

    def get(self, slot: Slot[T]) -> T | None:
        held: T | None = self._held.get(slot)
        return held

    def put(self, slot: Slot[T], service: T) -> None:
        self._held[slot] = service

    def pop(self, slot: Slot[T]) -> T | None:
        held: T | None = self._held.pop(slot, None)
        return held

    def setdefault(self, slot: Slot[T], make: Callable[[], T]) -> T:
        """The service in `slot`, made (once) by `make` when there is none."""
        if slot not in self._held:
            self._held[slot] = make()
        held: T = self._held[slot]
        return held

    def close(self) -> None:
        """Close every held service that can be closed (at `Engine.close`)."""
        for service in list(self._held.values()):
            closer = getattr(service, "close", None)
            if callable(closer):
                closer()


@dataclass
class Runtime:
    home: Path
    store: Store
    clock: Clock
    bus: EventBus
    services: Services = field(default_factory=Services)
    # Replaces known secret values with placeholders before any text is stored
    # (set by the vault once it is unlocked; identity until then).
    redactor: Callable[[str], str] | None = None

    def redact(self, text: str) -> str:
        return self.redactor(text) if self.redactor is not None else text

    def now_iso(self) -> str:
        return to_iso(self.clock.now())

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write transaction whose recorded events are published after commit."""
        with self._published(self.store.write()) as session:
            yield session

    @contextmanager
    def _published(self, transaction: AbstractContextManager[Any]) -> Iterator[Any]:
        """`transaction`, collecting the events recorded in it (`app.events.record`)
        and publishing them once it has committed; none if it fails."""
        with transaction as tx:
            tx.info["events"] = []
            yield tx
            events: list[Event] = tx.info["events"]
        for event in events:
            self.bus.publish(event)

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self.store.read() as session:
            yield session

    # Hot paths (`context`, every agent turn): transactions without SQLAlchemy's Session
    # (`Store.driver_read`). They yield a `Tx`, which has no ORM: the helpers such a path
    # calls take a `Tx` too and reach the database through `dbapi`, and the type checker
    # refuses a Session-only call on it.

    @contextmanager
    def read_driver(self) -> Iterator[Tx]:
        """`read` for hot paths that reach the database through `dbapi` only."""
        with self.store.driver_read() as tx:
            yield tx

    @contextmanager
    def write_driver(self) -> Iterator[Tx]:
        """`write` for hot paths that reach the database through `dbapi` only; its
        recorded events are published after commit, as `write`'s."""
        with self._published(self.store.driver_write()) as tx:
            yield tx


def close_names(wanted: str, names: list[str]) -> list[str]:
    """The names of `names` a person probably meant by `wanted`: the same name in another
    case first, then the close spellings (at most three)."""
    folded = {n.casefold(): n for n in names}
    same = [folded[wanted.casefold()]] if wanted.casefold() in folded else []
    close = difflib.get_close_matches(wanted.casefold(), list(folded), n=3, cutoff=0.6)
    return list(dict.fromkeys([*same, *(folded[c] for c in close)]))[:3]


def _no_agent(session: Tx, name: str) -> NotFound:
    names = [str(r[0]) for r in dbapi(session).execute("SELECT name FROM agents ORDER BY id")]
    close = close_names(name, names)
    if close:
        # A typo must not split one agent in two: the close name comes first.
        meant = " or ".join(repr(n) for n in close)
        return NotFound(
            f"No agent named {name!r} in this home: did you mean {meant}? Names are "
            f"exact (case included); list them with `tapemind agent list`, or add a new "
            f"agent with `tapemind agent add {name}`.",
            for_agents=f"This connection acts for agent {name!r}, which this Tapemind "
            f"home does not have (it has {meant}); no argument can change that. Tell the "
            "user to fix --agent in your MCP configuration.",
        )
    return NotFound(
        f"No agent named {name!r} in this home. List agents with `tapemind agent list` "
        f"or add it with `tapemind agent add {name}`.",
        # Over MCP the name comes from the connection (`tapemind mcp --agent NAME`): no
        # argument of the agent's can fix it, only the person who set the client up.
        for_agents=f"This connection acts for agent {name!r}, which this Tapemind home "
        "does not have; no argument can change that. Tell the user to add the agent in "
        "Tapemind, or to fix the agent's name in your MCP client's configuration.",
    )


def agent_row(session: Session, name: str) -> AgentRow:
    """The agent named `name` (attached to the session), or NotFound with what to do."""
    row = session.exec(select(AgentRow).where(AgentRow.name == name)).first()
    if row is None:
        raise _no_agent(session, name)
    return row


@dataclass
class AgentRef:
    """What hot paths need of an agent, read without the ORM (building a SQLModel
    row costs ~0.2 ms). Has the same attributes as AgentRow."""

    id: int
    name: str
    created_at: str
    settings: str
    next_seq: int
    token_hash: str | None
    secret_echoes: int = 0


AgentLike = AgentRow | AgentRef


def settings_of(arow: AgentLike) -> AgentSettings:
    """The settings of an agent row (or reference)."""
    return AgentSettings.parse(arow.settings)


def agent_ref(session: Tx, name: str) -> AgentRef:
    """The agent named `name`, read without the ORM (hot paths: append, remember,
    lists), or NotFound with what to do."""
    found = (
        dbapi(session)
        .execute(
            "SELECT id, name, created_at, settings, next_seq, token_hash, secret_echoes "
            "FROM agents "
            "WHERE name = ?",
            (name,),
        )
        .fetchone()
    )
    if found is None:
        raise _no_agent(session, name)
    return AgentRef(*found)
