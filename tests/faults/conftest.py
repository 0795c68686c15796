"""What the fault tests share: a small disk that can be filled, the home's data to compare
before and after a fault, the CLI as a subprocess, and the clean check every test ends on.

A small disk is a tmpfs mounted for the test (the tests run as root in CI and on the team's
machine); where no tmpfs can be mounted, the tests that need a real full disk say so and
stop (the database's own limit, SQLite's max_page_count, is covered by
tests/engine/test_faults.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
# `python -m app`, as a user may run it: a package's `__main__` is the one main module
# multiprocessing does not import again in each store process it starts.
TAPEMIND = [sys.executable, "-m", "app"]

# The tables that hold what agents and the owner wrote (derived tables, the audit trail
# and the index bookkeeping may change while the index heals).
DATA_TABLES = (
    "agents",
    "tape_entries",
    "memories",
    "memory_versions",
    "provenance",
    "lineage",
    "decisions",
    "conflicts",
    "secrets",
)


def data_of(home: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the data tables, read without writing anything."""
    conn = sqlite3.connect(f"file:{home / 'tapemind.db'}?mode=ro", uri=True)
    try:
        return {
            t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in DATA_TABLES
        }
    finally:
        conn.close()


class Disk:
    """A tmpfs of `size_mb` at `path`, filled and freed on demand."""

    def __init__(self, path: Path, size_mb: int) -> None:
        self.path = path
        self.size_mb = size_mb
        self._fill = path / ".fill"

    def free_bytes(self) -> int:
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def fill(self, leave: int = 0) -> None:
        """Fill the disk but for about `leave` bytes (0: completely)."""
        self._fill.mkdir(exist_ok=True)
        n = 0
        while self.free_bytes() > leave + 4096:
            chunk = min(self.free_bytes() - leave, 8 << 20)
            try:
                (self._fill / f"big{n}").write_bytes(b"\0" * chunk)
            except OSError:
                break
            n += 1
        if leave == 0:  # the last blocks, one at a time
            while True:
                try:
                    (self._fill / f"small{n}").write_bytes(b"\0" * 4096)
                except OSError:
                    break
                n += 1

    def free(self) -> None:
        """Give the space back."""
        for f in self._fill.glob("*"):
            f.unlink()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Disk]:
    path = tmp_path / "disk"
    path.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(path)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"a full disk needs a tmpfs, and mount refused: {mounted.stderr!r}")
    try:
        yield Disk(path, 32)
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def cli(home: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`tapemind --home HOME ARGS` in its own process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANONYMIZED_TELEMETRY": "False"}
    return subprocess.run(
        [*TAPEMIND, "--home", str(home), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    return result.stdout


def assert_clean_check(home: Path) -> dict[str, Any]:
    """`index check` through the CLI: every row has its vector and finds itself by it."""
    result = cli(home, "index", "check", "--json")
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["clean"], (report, result.stderr)
    return report


def serve(home: Path, query_patience_s: float | None = None) -> subprocess.Popen[str]:
    """`tapemind serve` on a free port; returns once it serves. `query_patience_s`: how
    long its searches wait for the vector store before answering from full-text (the
    product's 10 s, where a test would only wait it out)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANONYMIZED_TELEMETRY": "False"}
    program = TAPEMIND
    if query_patience_s is not None:
        program = [sys.executable, "-c", "import app.index.store as s; "
                   f"s.QUERY_PATIENCE_S = {query_patience_s!r}; "
                   "from app.cli.main import main; main()"]  # fmt: skip
    proc = subprocess.Popen(
        [*program, "--home", str(home), "serve", "--port", "0", "--json"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, proc.stderr.read() if proc.stderr else ""
    return proc


def descendants(pid: int) -> list[int]:
    """Every process under `pid`, children first."""
    out: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        kids = []
        # A child belongs to the thread that started it: read every thread's list.
        for task in Path(f"/proc/{parent}/task").glob("*"):
            with contextlib.suppress(OSError):
                kids += [int(k) for k in (task / "children").read_text().split()]
        out.extend(kids)
        todo.extend(kids)
    return out


def store_pids(root: int) -> list[int]:
    """The vector store processes under `root`: forked by multiprocessing's fork server."""
    pids = []
    for pid in descendants(root):
        with contextlib.suppress(OSError):
            line = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"forkserver" in line:
                pids.extend(int(k) for k in descendants(pid))
    return pids


def wait_for(predicate: Any, timeout: float = 120.0, every: float = 0.1) -> Any:
    """Poll `predicate` until it returns something true; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, "the condition never came true"
        time.sleep(every)


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)


def unique() -> str:
    return uuid.uuid4().hex[:8]
