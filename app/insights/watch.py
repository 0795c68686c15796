"""Keeps drafts honest as memories change: a forgotten memory's words leave every draft.

Subscribed to the engine's events at open: `memory_did_forget` runs on the thread that
committed the forget, right after it, and erases the memory's steps from every proposal
(withdrawing pending ones). Each insights run sweeps again first, so a process that ended
between the forget and this listener leaves nothing behind. Grown skills are not changed
behind the owner's back: one resting on a forgotten memory reads as stale (see `skills`).
"""

from __future__ import annotations

import logging

from app.events import Event
from app.runtime import Runtime

from .proposals import scrub

log = logging.getLogger(__name__)


def attach(rt: Runtime) -> None:
    def on_forget(event: Event) -> None:
        ids = [int(i) for i in event.ids]
        if ids:
            with rt.write_driver() as s:
                scrub(s, rt.now_iso(), ids)

    rt.bus.subscribe(on_forget, "memory_did_forget")
