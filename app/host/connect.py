"""Open a home the right way: through its host when one runs, else under the lock.

The CLI and `tapemind mcp` call `open_home`. If a host owns the home, they get a
`RemoteEngine` that runs every call in the host (one writer for the vector
index, no second owner). If none runs, they take the home lock themselves for
as long as they need the home, waiting a few seconds when another short-lived
command holds it, and open the Engine directly.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from app.db import home as homes
from app.db import keep_private
from app.engine import Engine
from app.errors import HomeBusy, HomeError
from app.host.lock import OWNER_TOKEN_FILE, HomeLock, busy_message, describe, read_holder

if TYPE_CHECKING:
    from app.host.remote import RemoteEngine

log = logging.getLogger(__name__)

DEFAULT_WAIT_S = 5.0


@dataclass
class OpenHome:
    """An engine (local or through the host) and, when local, the lock we hold."""

    engine: Any  # Engine | RemoteEngine: the same methods
    lock: HomeLock | None

    @property
    def remote(self) -> bool:
        return self.lock is None

    def close(self) -> None:
        try:
            self.engine.close()
        finally:
            if self.lock is not None:
                self.lock.release()


def loopback_url(url: object) -> bool:
    """Whether `url` is a host's address on this machine (http://127.0.0.1:PORT)."""
    if not isinstance(url, str):
        return False
    parts = urlsplit(url)
    return parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.port is not None


def _through_host(path: Path) -> RemoteEngine | None:
    # Imported here: httpx is only needed to go through a running host.
    from app.host.remote import RemoteEngine

    holder = read_holder(path)
    if not holder or not loopback_url(holder.get("url")):
        # No host, or a lock note naming somewhere else: the owner token goes nowhere
        # but to this machine.
        return None
    token_file = path / OWNER_TOKEN_FILE
    if keep_private(token_file):
        log.warning("%s could be read by other users; it is private (0600) now", token_file)
    try:
        token = token_file.read_text(encoding="utf-8").strip()
        return RemoteEngine(str(holder["url"]), token)
    except (OSError, HomeError):
        return None  # the host is starting or stopping: look again


def open_home(
    home: str | os.PathLike[str] | None = None,
    *,
    create: bool = False,
    role: str = "cli",
    wait_s: float = DEFAULT_WAIT_S,
    **engine_options: Any,
) -> OpenHome:
    """The home's engine: the host's when one runs, else our own under the lock.

    Raises HomeBusy naming the holder when the home stays locked by a process
    that is not a host for `wait_s` seconds.
    """
    path = homes.resolve(home)
    if not homes.is_home(path):
        if not create:
            # Not a home (yet): let the Engine say what to do, without leaving a lock file.
            return OpenHome(Engine.open(path, **engine_options), None)
        homes.check_openable(path, create=True)
    elif not (read_holder(path) or {}).get("url"):
        # No host to go through: a database that is not ours, empty or damaged is refused
        # before a lock file is made beside it.
        homes.check_openable(path, create=False)
    deadline = time.monotonic() + wait_s
    while True:
        lock = HomeLock(path, role)
        if lock.try_acquire():
            try:
                return OpenHome(Engine.open(path, create=create, **engine_options), lock)
            except BaseException:
                lock.release()
                raise
        remote = _through_host(path)
        if remote is not None:
            return OpenHome(remote, None)
        if time.monotonic() >= deadline:
            holder = read_holder(path)
            raise HomeBusy(
                busy_message(path, holder, role),
                # An agent cannot stop the holder; it can wait, and say so to the user.
                for_agents=f"Tapemind is busy: {describe(holder)} holds its home for a "
                "moment. Nothing was done; call again in a minute, and if it keeps "
                "failing tell the user that Tapemind's home is held by that process.",
            )
        time.sleep(0.05)


def own_home(
    home: str | os.PathLike[str] | None = None, *, role: str = "host", **engine_options: Any
) -> tuple[Engine, HomeLock]:
    """Become the owner of the home (a host): refused at once if anyone holds it."""
    path = homes.resolve(home)
    homes.check_openable(path, create=False)
    lock = HomeLock(path, role)
    if not lock.try_acquire():
        # A short-lived CLI command may hold it for a moment: give it that moment.
        with contextlib.suppress(HomeBusy):
            lock.acquire(wait_s=2.0 if not (read_holder(path) or {}).get("url") else 0.0)
        if not lock.held:
            raise HomeBusy(busy_message(path, read_holder(path), role))
    try:
        return Engine.open(path, **engine_options), lock
    except BaseException:
        lock.release()
        raise
