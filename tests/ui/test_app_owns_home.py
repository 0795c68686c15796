"""The desktop app is its home's host: it owns the home and serves agents."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app import HomeError
from app.host import host_home
from app.host.connect import own_home


def test_the_app_owns_the_home_and_serves_mcp(home: Path) -> None:
    host = host_home(home)
    engine = host.engine
    try:
        assert (home / "tapemind.db").exists()
        # A second owner is refused with the name of the holder.
        with pytest.raises(HomeError, match="desktop"):
            own_home(home, role="host")
        # MCP answers on loopback, and refuses a request without an agent token.
        reply = httpx.post(f"{host.url}/mcp", json={}, timeout=10)
        assert reply.status_code == 401
    finally:
        host.stop()
        engine.close()
    second, lock = own_home(home, role="host")  # released on exit
    second.close()
    lock.release()


def test_the_desktop_app_serves_its_home_once_drawn(demo_home: Path) -> None:
    """The real app (a process): it owns the home at once, draws its dashboard, then
    serves MCP to agents and the owner's CLI; the lock says where."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from app.host.lock import read_holder

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    app = subprocess.Popen(
        [sys.executable, "-m", "ui.main", "--home", str(demo_home)],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 90
        url = None
        while url is None and time.monotonic() < deadline and app.poll() is None:
            holder = read_holder(demo_home) or {}
            url = holder.get("url") if holder.get("role") == "desktop" else None
            time.sleep(0.2)
        assert url, "the app never announced where it serves the home"
        assert httpx.post(f"{url}/mcp", json={}, timeout=10).status_code == 401
        with pytest.raises(HomeError, match="desktop"):
            own_home(demo_home, role="host")
    finally:
        app.send_signal(signal.SIGTERM)
        app.wait(30)
