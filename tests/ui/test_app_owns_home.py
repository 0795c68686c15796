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


def test_a_taken_port_is_said_and_the_port_served_is_the_one_every_configuration_names(
    home: Path,
) -> None:
    """Another program holds 7821: the app serves elsewhere, says so, remembers the port
    for its next start, and `agent token` names that port even while no host runs."""
    import socket

    from click.testing import CliRunner

    from app.cli.main import cli
    from app.host import own_or_create
    from app.host.served import mcp_url
    from app.host.snippets import DEFAULT_PORT
    from ui.startup import HostStarter

    squatter = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        squatter.bind(("127.0.0.1", DEFAULT_PORT))
        squatter.listen(1)
    except OSError:
        pass  # already taken by another program: the same situation
    try:
        said: list[tuple[str, int | None]] = []
        urls = []
        for _run in range(2):
            engine, lock = own_or_create(home)
            if not engine.agents():
                engine.add_agent("cc")
            starter = HostStarter(engine, lock)
            starter.on_served = lambda url, wanted: said.append((url, wanted))
            starter.start()
            starter.join(30)
            assert starter.host is not None and starter.host.port != DEFAULT_PORT
            urls.append(starter.host.url)
            assert mcp_url(home) == f"{starter.host.url}/mcp"  # what the Agents page shows
            starter.stop()
            engine.close()
        # the first start moved and said so; the second took the same port again, quietly
        assert said == [(urls[0], DEFAULT_PORT), (urls[0], None)] and urls[0] == urls[1]
        printed = CliRunner().invoke(cli, ["--home", str(home), "agent", "token", "cc"])
        assert printed.exit_code == 0, printed.output
        assert f"{urls[0]}/mcp" in printed.output
        assert f"127.0.0.1:{DEFAULT_PORT}" not in printed.output
    finally:
        squatter.close()
