"""One host per home: the process that owns the home serves MCP and runs the jobs.

`host_home` is what an owning program calls; the desktop app calls its two steps
(`own_or_create`, then `make_host` after the first paint) and `tapemind serve` serves
`make_host`'s host in the foreground. Everything else goes through `connect.open_home`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.engine import Engine
    from app.host.lock import HomeLock
    from app.host.server import Host


def own_or_create(
    home: str | os.PathLike[str] | None = None, *, role: str = "desktop"
) -> tuple[Engine, HomeLock]:
    """(engine, lock): the home owned by this process, made first if there is none yet
    (a foreign or newer home is refused; so is one another process owns, naming it)."""
    from app.db import db_path, resolve
    from app.engine import Engine
    from app.host.connect import own_home

    path = resolve(home)
    if not db_path(path).exists():
        Engine.open(path, create=True).close()
    return own_home(path, role=role)


def make_host(engine: Engine, lock: HomeLock, *, port: int) -> Host:
    """A host for an owned home, with the default background jobs, not started yet:
    `start()` serves from a thread, `serve()` in the foreground. Raises OSError when
    the port is taken (the lock is not released: the caller decides)."""
    from app.host.background import register_default_jobs
    from app.host.server import Host

    host = Host(engine, lock, port=port)
    register_default_jobs(host)
    return host


def host_home(
    home: str | os.PathLike[str] | None = None, *, role: str = "desktop", port: int = 0
) -> Host:
    """Create the home if needed, own it (refused with the holder's name if another
    process does), and start serving it on a background thread with the default
    background jobs. Stop with `host.stop()`, then close `host.engine`."""
    engine, lock = own_or_create(home, role=role)
    try:
        host = make_host(engine, lock, port=port)
        host.start()
    except BaseException:
        lock.release()
        engine.close()
        raise
    return host


def serve_stdio(engine: Callable[[], Any], agent: str, *, session: str) -> None:
    """Serve MCP over this process's stdin/stdout for `agent` until the client closes it.
    `engine()` gives the engine each call runs on (a host's, or this process's own);
    `session` names this connection (a grant "for this session" binds to it)."""
    import anyio

    from app import __version__
    from app.mcp.server import build_server
    from app.mcp.stdio import serve

    server = build_server(engine, lambda ctx: agent, version=__version__, session=session)
    anyio.run(serve, server)
