"""The vault through a running host: the host unlocks it with its own environment, so a
command that has the passphrase is told the host lacks it, and what to do."""

from __future__ import annotations

import subprocess
from pathlib import Path

from app import Engine

from .mcp_helpers import env, start_serve, stop, tapemind_argv


def test_a_host_without_the_passphrase_says_so_to_the_command_that_has_it(home: Path) -> None:
    with Engine.open(home, create=True) as engine:
        engine.add_agent("A")
    host_env = {k: v for k, v in env().items() if k != "TAPEMIND_VAULT_PASSPHRASE"}
    host, _ = start_serve(home, host_env)
    try:
        done = subprocess.run(
            tapemind_argv(home, "vault", "set", "GITHUB_TOKEN"),
            input="ghp-not-a-real-token-value\n",
            capture_output=True,
            text=True,
            env=env(),  # this command has the passphrase; the host does not
            timeout=60,
        )
        assert done.returncode == 6
        assert "A new vault key needs a passphrase" in done.stderr  # not "protected by"
        assert f"This home's host (pid {host.pid}) unlocks the vault" in done.stderr
        assert "restart `tapemind serve` with TAPEMIND_VAULT_PASSPHRASE set" in done.stderr
    finally:
        stop(host)
