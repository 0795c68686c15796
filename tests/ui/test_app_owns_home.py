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
