"""The README as a new user follows it: its examples, pasted in order into a shell, work."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text("utf-8")
BIN = Path(sys.executable).parent  # .venv/bin, where make puts `tapemind`


def _block_after(heading: str) -> str:
    """The first ```sh block under `heading`."""
    section = README[README.index(heading) :]
    found = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert found, heading
    return found.group(1)


def _shell_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAPEMIND_")}
    # The README puts .venv/bin on PATH; here the test's own interpreter's bin is that.
    env["PATH"] = f"{BIN}:{env.get('PATH', '')}"
    env["HOME"] = str(home)  # `~/tapemind-try` lands in the test's directory
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"  # no OS keyring
    return env


def test_try_it_pasted_in_order_works(tmp_path: Path) -> None:
    script = _block_after("## Try it")
    assert script.startswith('export PATH="$PWD/.venv/bin:$PATH"')
    assert (ROOT / ".venv" / "bin" / "tapemind").exists() or (BIN / "tapemind").exists()
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=ROOT,
        env=_shell_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, (done.stdout, done.stderr)
    out = done.stdout
    assert "Appended entry 1 to the tape of claude-code (thread auth, turn t1)." in out
    assert "add: memory 1 [preference] 用户要求 Python 代码用 4 个空格缩进" in out
    assert "[m1]" in out and "memory.add" in out  # context, then the audit
    assert (tmp_path / "tapemind-try" / "tapemind.db").exists()


def _tapemind(env: dict[str, str], *args: str, stdin: bool = True) -> subprocess.Popen:
    return subprocess.Popen(
        [str(BIN / "tapemind"), *args],
        env=env,
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _run(env: dict[str, str], *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    p = _tapemind(env, *args, stdin=stdin is not None)
    out, err = p.communicate(stdin, timeout=120)
    return p.returncode, out, err


def test_a_second_terminal_answers_a_waiting_secret_get_with_no_host(tmp_path: Path) -> None:
    """`secret get --wait` in one terminal, `approvals approve` in another, no host running:
    the waiting command leaves the home free, so the second one gets in."""
    env = {**_shell_env(tmp_path), "TAPEMIND_HOME": str(tmp_path / "home")}
    env["TAPEMIND_VAULT_PASSPHRASE"] = "a long enough passphrase"  # no keyring here
    for args, stdin in (
        (("init",), None),
        (("agent", "add", "claude-code"), None),
        (("vault", "set", "GITHUB_TOKEN", "--tag", "github"), "ghp_demo1234567890abcdef"),
    ):
        code, out, err = _run(env, *args, stdin=stdin)
        assert code == 0, (args, out, err)
    asking = ("secret", "get", "GITHUB_TOKEN", "--agent", "claude-code")
    waiting = _tapemind(
        env, *asking, "--reason", "push the release tag", "--wait", "60", stdin=False
    )
    try:
        deadline = time.monotonic() + 60
        pending: list[dict[str, object]] = []
        while not pending:
            code, out, err = _run(env, "approvals", "list", "--json")
            assert code == 0, (out, err)  # never "the home is in use" (exit 5)
            pending = [r for r in json.loads(out) if r["status"] == "pending"]
            assert time.monotonic() < deadline, "the request never appeared"
            time.sleep(1.0)  # a person reads the list now and then
        code, out, err = _run(env, "approvals", "approve", str(pending[0]["id"]), "--scope", "once")
        assert code == 0, (out, err)
        value, said = waiting.communicate(timeout=60)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    assert waiting.returncode == 0, said
    assert value.strip() == "ghp_demo1234567890abcdef"
