"""One host per home: the process that owns the home serves MCP and runs the jobs.

`host_home` is what an owning program (the desktop app) calls; `tapemind serve`
does the same in the foreground. Everything else goes through `connect.open_home`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import Host


def host_home(
    home: str | os.PathLike[str] | None = None, *, role: str = "desktop", port: int = 0
) -> Host:
    """Create the home if needed, own it (refused with the holder's name if another
    process does), and start serving it on a background thread with the default
    background jobs. Stop with `host.stop()`, then close `host.engine`."""
    from ..engine import Engine
    from ..home import db_path, resolve
    from .background import register_default_jobs
    from .connect import own_home
    from .server import Host

    path = resolve(home)
    if not db_path(path).exists():
        Engine.open(path, create=True).close()
    engine, lock = own_home(path, role=role)
    try:
        host = Host(engine, lock, port=port)
        register_default_jobs(host)
        host.start()
    except BaseException:
        lock.release()
        engine.close()
        raise
    return host
