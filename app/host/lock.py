"""The home lock: one process owns a home at a time.

`<home>/.lock` is held with an exclusive `flock` by the owner: a host
(`tapemind serve`, the desktop app, a stdio MCP server started where no host
ran) for its whole life, or a CLI command for the length of one command. The
holder writes who it is into the file (pid, command, since, role and, for a
host, the URL where it serves), so everyone else can go through the host or say
exactly which process holds the home. The kernel drops the lock when the holder
dies, so a crash never leaves a home locked.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.db import disk
from app.errors import HomeBusy

LOCK_NAME = ".lock"
# The host's owner token, beside the lock (0600): the CLI reads it to go through the host.
OWNER_TOKEN_FILE = "host-owner.token"

try:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

except ImportError:  # Windows: lock one byte far past the holder's note
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, 1 << 30, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
            return True
        except OSError:
            return False
        finally:
            os.lseek(fd, 0, os.SEEK_SET)


def lock_path(home: Path) -> Path:
    return home / LOCK_NAME


def read_holder(home: Path) -> dict[str, Any] | None:
    """What the holder wrote about itself (None when unreadable or half-written)."""
    try:
        data = json.loads(lock_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def describe(holder: dict[str, Any] | None) -> str:
    if not holder:
        return "another process"
    return (
        f"{holder.get('role', 'a process')} pid {holder.get('pid', '?')} "
        f"({holder.get('command', '?')}), since {holder.get('since', '?')}"
    )


class HomeLock:
    """The exclusive lock on one home. Not re-entrant; release with `release()`."""

    def __init__(self, home: Path, role: str) -> None:
        self.home = home
        self.role = role
        self._fd: int | None = None
        self.info: dict[str, Any] = {}

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lock if free; on success write who we are into the file."""
        if self._fd is not None:
            return True
        try:
            fd = os.open(lock_path(self.home), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            if disk.is_no_space(exc):
                raise disk.full(
                    self.home, doing=f"nothing was done (no room for its {LOCK_NAME} file)"
                ) from None
            raise
        if not _try_lock(fd):
            os.close(fd)
            return False
        self._fd = fd
        self.info = {
            "pid": os.getpid(),
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])[:300],
            "since": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "role": self.role,
        }
        try:
            self._write()
        except BaseException:
            self.release()
            raise
        return True

    def acquire(self, wait_s: float = 5.0) -> None:
        """Take the lock, waiting up to `wait_s` for a short-lived holder.
        Raises HomeBusy naming the holder."""
        deadline = time.monotonic() + wait_s
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                raise HomeBusy(busy_message(self.home, read_holder(self.home), self.role))
            time.sleep(0.05)

    def update(self, **extra: Any) -> None:
        """Add to what the holder says about itself (e.g. the host's URL)."""
        self.info.update(extra)
        self._write()

    def _write(self) -> None:
        assert self._fd is not None
        data = json.dumps(self.info, ensure_ascii=False).encode("utf-8")
        os.ftruncate(self._fd, 0)
        try:
            os.pwrite(self._fd, data, 0)
        except OSError as exc:
            if not disk.is_no_space(exc):
                raise
            # Without its note the home's owner cannot be found or named by the others.
            raise disk.full(
                self.home,
                doing=f"nothing was done (not even its {LOCK_NAME} note could be written)",
            ) from None

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


def busy_message(home: Path, holder: dict[str, Any] | None, wanted: str | None = None) -> str:
    """Why `wanted` (the refused program's role) cannot own `home`, and what to do."""
    if holder and holder.get("role") in ("host", "desktop") and holder.get("url"):
        return (
            f"The home {home} is already owned by {describe(holder)}, serving at "
            f"{holder['url']}/mcp. Agents and the CLI share it through that host; stop it "
            "first if this program must own the home."
        )
    if holder and holder.get("role") == "mcp":
        # An agent client's `tapemind mcp` found no host and owns the home while that
        # client runs: telling someone who ran `tapemind serve` to run it helps no one.
        return (
            f"The home {home} is in use by {describe(holder)}: an agent's stdio MCP server "
            "that found no host running and serves the home while its client runs. Quit "
            f"that client (or end pid {holder.get('pid', '?')}), start `tapemind serve` or "
            "the desktop app, then start the client again: its server will go through the "
            "host."
        )
    advice = (
        "stop that one first."
        if wanted in ("host", "desktop")
        else "stop that one, or run `tapemind serve` so the app, agents and the CLI share "
        "it through one host."
    )
    return (
        f"The home {home} is in use by {describe(holder)}. Only one program may own a home; "
        + advice
    )
