"""A machine without an OS keyring: the vault's key is wrapped by a passphrase.

Writes that carry no text keep working without it; writes of text (checked for secret
values first) ask for it at a terminal, and say what to do anywhere else; `secret get`
speaks of reading, not of storing."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
PASSPHRASE = "a long enough passphrase"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A home whose vault holds a secret under a passphrase key; no passphrase set now."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAPEMIND_")}
    env["TAPEMIND_HOME"] = str(tmp_path / "home")
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    made = {**env, "TAPEMIND_VAULT_PASSPHRASE": PASSPHRASE}
    for args, stdin in ((("init",), None), (("agent", "add", "cc"), None),
                        (("vault", "set", "TOKEN"), "tok-1234567890-abcdef")):  # fmt: skip
        done = _run(made, *args, stdin=stdin)
        assert done.returncode == 0, done.stderr
    return env


def _run(env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "tapemind"), *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        start_new_session=True,  # no controlling terminal: as in a script or CI
    )


APPEND = ("tape", "append", "--agent", "cc", "--thread", "t", "--role", "user", "--text", "hi")


def test_without_a_terminal_a_text_write_says_what_to_do(env: dict[str, str]) -> None:
    done = _run(env, *APPEND)
    assert done.returncode == 6, done.stderr
    said = done.stderr
    assert "checked for their values before it is stored" in said and "nothing was written" in said
    assert "TAPEMIND_VAULT_PASSPHRASE" in said and "at a terminal" in said
    assert "(VaultLocked)" not in said and "VaultStillLocked" not in said
    # writes without text need no vault
    assert _run(env, "agent", "add", "other").returncode == 0
    assert _run(env, "vault", "list").returncode == 0
    # with the passphrase in the environment, it is written
    ok = _run({**env, "TAPEMIND_VAULT_PASSPHRASE": PASSPHRASE}, *APPEND)
    assert ok.returncode == 0 and "Appended entry 1" in ok.stdout


def test_secret_get_speaks_of_reading(env: dict[str, str]) -> None:
    done = _run(env, "secret", "get", "TOKEN", "--agent", "cc", "--reason", "deploy the site")
    assert done.returncode == 6
    assert "Reading a secret needs the vault key" in done.stderr
    assert "was not stored" not in done.stderr and "nothing was written" not in done.stderr


def test_at_a_terminal_the_passphrase_is_asked_once(env: dict[str, str]) -> None:
    """A person typing the command gets a hidden prompt on the terminal, then the write."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: its stdin, stdout and controlling terminal are the pty
        os.execve(str(BIN / "tapemind"), [str(BIN / "tapemind"), *APPEND], env)
    seen = b""
    deadline = time.monotonic() + 90
    answered = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if not answered and b"Vault passphrase:" in seen:
            os.write(fd, PASSPHRASE.encode() + b"\n")
            answered = True
    _, status = os.waitpid(pid, 0)
    text = seen.decode(errors="replace")
    assert answered, text
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "Appended entry 1" in text and PASSPHRASE not in text  # never echoed
    assert text.count("Vault passphrase:") == 1


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("remember", "--agent", "cc", "--category", "lesson", ""), "The memory text is empty"),
        (("remember", "--agent", "cc", "--category", "lesson", "   "), "The memory text is empty"),
        (
            ("remember", "--agent", "cc", "--category", "lesson", "word " * 300),
            "a memory is a short durable conclusion (at most 1000)",
        ),
        (("memory", "edit", "1", ""), "The new text is empty"),
    ],
)
def test_bad_input_is_said_before_the_locked_vault(
    env: dict[str, str], args: tuple[str, ...], said: str
) -> None:
    """An empty or over-long text is the caller's mistake to fix (status 2 in the README's
    table), whatever the vault's state: it is not reported as a locked vault (6)."""
    done = _run(env, *args)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr
    assert "vault" not in done.stderr.lower()
