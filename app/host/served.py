"""Where a home is served to agents: the URL its host listens on, kept across runs.

Agents are configured once with a URL. A host listens on `DEFAULT_PORT` when it can;
when another program holds that port, the port it took instead is remembered in the
home (`served.json`), tried first the next time, and named by everything that shows
an agent's configuration (`tapemind agent token`, the app's Agents page) whether a
host runs at that moment or not. So the configuration shown is the port really
served, and it stays the same from one run to the next.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from app.host.lock import read_holder
from app.host.snippets import DEFAULT_PORT

SERVED_FILE = "served.json"
# Hosts whose URL an agent may be given: an agent's own stdio server that owns the home
# serves it on a passing port, which breaks when that client exits.
_LASTING_ROLES = ("host", "desktop")


def remember(home: Path, url: str) -> None:
    """Note that `home` is served at `url` (written atomically)."""
    fd, tmp = tempfile.mkstemp(prefix=".served-", dir=home)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"url": url}, out)
        os.replace(tmp, home / SERVED_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def last_url(home: Path) -> str | None:
    """The URL `home` was last served at by a host, if any."""
    try:
        data = json.loads((home / SERVED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    url = data.get("url") if isinstance(data, dict) else None
    return url if isinstance(url, str) and url.startswith("http://127.0.0.1:") else None


def base_url(home: Path) -> str:
    """Where agents reach `home`: its running host's URL, else where it was last served,
    else the default port."""
    holder = read_holder(home) or {}
    if holder.get("role") in _LASTING_ROLES and isinstance(holder.get("url"), str):
        return str(holder["url"])
    return last_url(home) or f"http://127.0.0.1:{DEFAULT_PORT}"


def mcp_url(home: Path) -> str:
    """The MCP endpoint an agent's configuration names for `home`."""
    return f"{base_url(home)}/mcp"


def ports_to_try(home: Path) -> list[int]:
    """The ports a host of `home` tries, in order: the default, then the one it was last
    served on (when the default was taken then)."""
    ports = [DEFAULT_PORT]
    last = last_url(home)
    if last is not None:
        with contextlib.suppress(ValueError):
            port = int(last.rsplit(":", 1)[1])
            if port not in ports and 0 < port < 65536:
                ports.append(port)
    return ports
