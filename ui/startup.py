"""Start-up off the GUI thread: open the home while the window is built, serve it after.

The first paint needs Qt, the window and an open engine; it does not need the
MCP server (uvicorn, the MCP SDK) or the background jobs. So `EngineOpener`
imports the engine and opens the home (taking the home lock when the app is
the host) on a thread while the GUI thread imports Qt and builds the window,
and `HostStarter` starts serving the home on another thread once the
dashboard has been drawn. Agents can connect a moment after the window shows.
Nothing here touches widgets.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app import Engine
    from app.host.lock import HomeLock
    from app.host.server import Host

# (what, wall clock) along the start-up, printed by --quit-when-drawn for the bench.
MARKS: list[tuple[str, float]] = []


def mark(what: str) -> None:
    MARKS.append((what, time.time()))


def open_engine(home: Path | None, own: bool) -> tuple[Engine, HomeLock | None]:
    """(engine, lock): the home opened as its owner (`own`, creating it if needed), or
    plainly (screenshots: no lock, nothing served)."""
    from app import Engine

    if not own:
        return Engine.open(home), None
    from app.host import own_or_create

    return own_or_create(home, role="desktop")


class EngineOpener(threading.Thread):
    """Opens the engine on a thread; `result()` waits and returns it or raises."""

    def __init__(self, home: Path | None, own: bool) -> None:
        super().__init__(name="tapemind-open", daemon=True)
        self.home = home
        self.own = own
        self._value: tuple[Engine, HomeLock | None] | None = None
        self._error: BaseException | None = None

    def run(self) -> None:
        try:
            self._value = open_engine(self.home, self.own)
            mark("engine open")
        except BaseException as exc:  # handed to the GUI thread by result()
            self._error = exc

    def result(self) -> tuple[Engine, HomeLock | None]:
        self.join()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value


class HostStarter(threading.Thread):
    """Serves an owned home (MCP over HTTP, owner RPC, background jobs) from a thread.

    `stop()` waits for the start to finish, then stops the host and releases
    the lock; if the host never started, it releases the lock itself.
    """

    def __init__(self, engine: Engine, lock: HomeLock, port: int | None = None) -> None:
        super().__init__(name="tapemind-host", daemon=True)
        self.engine = engine
        self.lock = lock
        self.port = port
        self.host: Host | None = None
        self.error: BaseException | None = None
        self.wanted: int | None = None  # the port agents were configured with, when taken
        # Called on this thread once serving: (url, the port wanted when it was taken).
        self.on_served: Callable[[str, int | None], None] | None = None
        self._stopping = threading.Event()
        self._begun = False

    def start(self) -> None:
        """Start serving (from the GUI thread); nothing once `stop()` was called."""
        if not self._stopping.is_set() and not self._begun:
            self._begun = True
            super().start()

    def run(self) -> None:
        try:
            from app.host import make_host
            from app.host.served import ports_to_try

            if self._stopping.is_set():
                return
            # The port the agents' MCP configurations name, then the one this home was
            # served on last time; another program may hold both, then any free port
            # (remembered for next time, and named by every configuration shown).
            ports = [self.port] if self.port else ports_to_try(self.engine.home)
            host = None
            for port in ports:
                try:
                    host = make_host(self.engine, self.lock, port=port)
                    break
                except OSError:
                    continue
            if host is None:
                host = make_host(self.engine, self.lock, port=0)
            host.start()
            if host.port not in ports:
                self.wanted = ports[0]
            self.host = host
            if self.on_served is not None:
                self.on_served(host.url, self.wanted)
        except BaseException as exc:  # the app keeps working for its owner
            self.error = exc
            print(f"tapemind-desktop: the home is not served to agents: {exc}", file=sys.stderr)

    def stop(self) -> None:
        self._stopping.set()
        if self.is_alive():
            self.join()
        if self.host is not None:
            self.host.stop()  # jobs and MCP end; releases the lock
        else:
            self.lock.release()
