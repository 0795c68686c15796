"""Recall lanes: at most two recalls (`context`, `search`) run in the engine at once;
the others wait for a free lane.

Why: a recall is mostly Python, so recalls on threads take turns holding the GIL. With
eight agents calling `context` at the same moment, eight engine threads and the host's
event loop all wanted it, and CPython hands it on every millisecond to whichever waiter
the OS wakes: the event loop, which parses every request and writes every answer, got
it about one turn in nine, so answers that were ready waited to be written, and new
requests waited to be read. Two lanes keep both cores busy (a recall releases the GIL
while it embeds the query, searches the vector index and reads SQLite), and leave the
event loop one waiter among three. Measured by `python bench/mcp_overhead.py` (eight
agents at once on 2 cores, bench/README.md, MCP overhead): fewer threads also thrash
less, so the host spent less CPU per call and answers came back sooner.

The wait for a lane is part of the engine's time, as the wait for the GIL was before.
A recall made inside a recall (none today) does not wait for a second lane.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

RECALL_LANES = 2


class Lanes:
    """`with lanes():` runs its block in one of `count` lanes, waiting for a free one."""

    def __init__(self, count: int = RECALL_LANES) -> None:
        self._free = threading.BoundedSemaphore(count)
        self._mine = threading.local()

    @contextmanager
    def __call__(self) -> Iterator[None]:
        if getattr(self._mine, "held", False):
            yield
            return
        with self._free:
            self._mine.held = True
            try:
                yield
            finally:
                self._mine.held = False
