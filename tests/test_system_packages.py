"""`make run` and `make test` start with packaging/system-packages.sh: on a Debian machine
where the user is not root it installs nothing and names what to install."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "packaging" / "system-packages.sh"


def _tool(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_without_root_the_missing_packages_are_named_and_nothing_is_installed(
    tmp_path: Path,
) -> None:
    # A Debian machine with nothing installed, a user who is not root: dpkg-query knows
    # no package, `id -u` is 1000, and apt-get records that it was called.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    called = tmp_path / "apt-get-called"
    _tool(bin_dir, "dpkg-query", "exit 1")
    _tool(bin_dir, "id", "echo 1000")
    _tool(bin_dir, "apt-get", f"touch {called}")
    _tool(bin_dir, "npm", "exit 0")
    run = subprocess.run(
        ["/bin/sh", str(SCRIPT), "test"],
        env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert "not installed" in run.stderr
    for pkg in ("fonts-wqy-microhei", "libxcb-cursor0", "xvfb", "gnome-keyring"):
        assert pkg in run.stderr
    assert "sudo apt-get install --no-install-recommends" in run.stderr
    assert not called.exists(), "nothing is installed without root"
