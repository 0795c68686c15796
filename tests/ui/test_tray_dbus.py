"""The real app's tray on a real (private) desktop bus: a tray host sees the icon, its
tooltip and menu count open conflicts, the counts follow a change made through the
CLI (which the app serves), and Quit in the tray's menu ends the app.

The app runs under Xvfb (X11, as on a Linux desktop) with a private D-Bus session
bus on which tests/ui/sni_watcher.py plays the desktop's StatusNotifier host.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app import Engine

pytestmark = pytest.mark.skipif(
    not (shutil.which("dbus-daemon") and shutil.which("xvfb-run")),
    reason="needs dbus-daemon and xvfb-run (apt-get install dbus xvfb)",
)
ROOT = Path(__file__).resolve().parents[2]


def _until(check: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {check}")
        time.sleep(0.2)


@pytest.fixture
def bus(tmp_path: Path) -> Iterator[str]:
    """A private session bus with a StatusNotifier host on it; yields its address."""
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--print-address=1", "--nofork"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    watcher = subprocess.Popen(
        [sys.executable, str(ROOT / "tests/ui/sni_watcher.py")],
        env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": address},
        stdout=open(tmp_path / "watcher.log", "w"),  # noqa: SIM115 (closed with the process)
    )
    _until(lambda: "ready" in (tmp_path / "watcher.log").read_text())
    try:
        yield address
    finally:
        for process in (watcher, daemon):
            process.terminate()
            process.wait(10)


def _item(address: str, service: str) -> tuple[Any, Any, Any]:
    from jeepney import DBusAddress, Properties
    from jeepney.io.blocking import open_dbus_connection

    conn = open_dbus_connection(bus=address)
    item = DBusAddress(
        "/StatusNotifierItem", bus_name=service, interface="org.kde.StatusNotifierItem"
    )
    menu = DBusAddress("/MenuBar", bus_name=service, interface="com.canonical.dbusmenu")
    return conn, Properties(item), menu


def _tooltip(conn: Any, props: Any) -> str:
    _signature, (_icon, _pixmaps, title, _text) = conn.send_and_get_reply(
        props.get("ToolTip")
    ).body[0]
    return str(title)


def _menu(conn: Any, menu: Any) -> dict[str, int]:
    from jeepney import new_method_call

    _revision, (_id, _props, children) = conn.send_and_get_reply(
        new_method_call(menu, "GetLayout", "iias", (0, -1, []))
    ).body
    labels = {}
    for _signature, (child_id, child_props, _grandchildren) in children:
        if "label" in child_props:
            labels[child_props["label"][1]] = child_id
    return labels


def test_the_tray_counts_conflicts_and_quits_the_app(
    bus: str, demo_home: Path, tmp_path: Path
) -> None:
    from jeepney import new_method_call

    with Engine.open(demo_home) as engine:
        open_conflicts = [c.id for c in engine.conflicts(None)]
    assert len(open_conflicts) == 3
    env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": bus, "QT_QPA_PLATFORM": "xcb"}
    log = open(tmp_path / "app.log", "w")  # noqa: SIM115 (closed below)
    app = subprocess.Popen(
        [
            "xvfb-run",
            "-a",
            sys.executable,
            "-m",
            "ui.main",
            "--home",
            str(demo_home),
            "--lang",
            "en",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        watcher_log = tmp_path / "watcher.log"
        line = _until(
            lambda: next(
                (x for x in watcher_log.read_text().splitlines() if x.startswith("registered")),
                None,
            )
        )
        conn, props, menu = _item(bus, line.split()[1])
        _until(lambda: "Open conflicts: 3" in _tooltip(conn, props))
        assert "Open conflicts: 3" in _menu(conn, menu)
        # Settled through the CLI, which goes through the app (its host) once it serves.
        cli = [sys.executable, "-m", "app", "--home", str(demo_home)]
        settle = [*cli, "conflicts", "resolve", str(open_conflicts[0]), "--keep", "both"]
        _until(lambda: subprocess.run(settle, cwd=ROOT, capture_output=True).returncode == 0)
        _until(lambda: "Open conflicts: 2" in _tooltip(conn, props))
        assert "Open conflicts: 2" in _menu(conn, menu)
        # Quit in the tray's menu ends the app cleanly (and releases the home).
        quit_id = _menu(conn, menu)["Quit"]
        conn.send_and_get_reply(
            new_method_call(menu, "Event", "isvu", (quit_id, "clicked", ("s", ""), 0))
        )
        assert app.wait(30) == 0
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(10)
        log.close()
    with Engine.open(demo_home) as engine:
        assert [c.id for c in engine.conflicts(None)] == open_conflicts[1:]
