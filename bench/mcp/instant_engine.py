"""`tapemind serve` with an engine whose `context` answers at once, for the overhead
benchmark's `--engine instant` (never the product's).

Each agent's answer to a query is worked out once by the real engine, then given again
from memory: the same bytes on the wire, an engine time of ~0. What is left of a call's
round trip is the client's own work and the protocol's, so the figures are the floor
that no change to the host can go under, on this machine, with these clients. On 2 cores
it shows how much of the overhead the clients themselves cost when eight of them share
the machine with the host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.engine import Engine


def serve() -> None:
    """Make `Engine.context` instant in this process, then run the CLI (`serve ...`)."""
    make_context_instant()
    from app.cli.main import main

    main()


def make_context_instant() -> Callable[[], None]:
    """Patch `Engine.context` to answer each (agent, thread, user, query, budget) from
    memory after its first call; returns the undo."""
    real = Engine.context
    answers: dict[tuple[str, Any, Any, Any, Any], Any] = {}

    def context(self: Engine, agent: str, **kw: Any) -> Any:
        key = (agent, kw.get("thread"), kw.get("user"), kw.get("query"), kw.get("budget"))
        if key not in answers:
            answers[key] = real(self, agent, **kw)
        return answers[key]

    Engine.context = context  # type: ignore[method-assign]

    def undo() -> None:
        Engine.context = real  # type: ignore[method-assign]

    return undo
