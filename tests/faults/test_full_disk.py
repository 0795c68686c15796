"""A full disk: every command answers exit status 9 with the README's words (no traceback),
the indexer waits it out, and once space is freed everything catches up with nothing lost."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest

from app import DiskFull, Engine
from app.cli.base import SETTLE_MAX_ROWS
from app.clock import ManualClock
from app.index import indexer_loop, recovery, vector_process
from app.index.embedders import HashingEmbedder

from .conftest import Disk, assert_clean_check, cli, data_of, ok, wait_for

pytestmark = pytest.mark.heavy  # subprocesses, a tmpfs, real chromadb

FULL = "is full:"
FREE_SOME = "Free some disk space and try again"
COMMANDS = [
    ("index", "status"),
    ("search", "--agent", "cc", "green tea"),
    ("search", "--agent", "cc", "--mode", "semantic", "green tea"),
    ("index", "run"),
    ("index", "check"),
    ("tape", "append", "--agent", "cc", "--thread", "t", "--role", "user", "--text", "lost?"),
    ("remember", "--agent", "cc", "--category", "preference", "The user moved to Hangzhou"),
    ("agent", "list"),
    ("health",),
    ("serve", "--port", "0"),
]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home made by the CLI: agent cc, an entry and a memory, all indexed."""
    home = tmp_path_factory.mktemp("made") / "home"
    ok(cli(home, "init"))
    ok(cli(home, "agent", "add", "cc"))
    ok(cli(home, "tape", "append", "--agent", "cc", "--thread", "t", "--role", "user",
           "--text", "The user drinks green tea 用户喝绿茶"))  # fmt: skip
    ok(cli(home, "remember", "--agent", "cc", "--category", "preference", "用户喜欢喝绿茶"))
    ok(cli(home, "index", "run"))
    return home


def _home_on(disk: Disk, made: Path) -> Path:
    """A copy of `made` on the disk, opened once there (the moved database is checked)."""
    home = disk.path / "home"
    shutil.copytree(made, home)
    ok(cli(home, "agent", "list"))
    return home


def test_every_command_on_a_completely_full_disk_answers_exit_9(
    small_disk: Disk, made: Path
) -> None:
    home = _home_on(small_disk, made)
    before = data_of(home)
    small_disk.fill(0)
    assert small_disk.free_bytes() == 0
    for command in COMMANDS:
        result = cli(home, *command)
        said = (command, result.returncode, result.stdout, result.stderr)
        assert result.returncode == 9, said
        assert FULL in result.stderr and FREE_SOME in result.stderr, said
        assert "Traceback" not in result.stderr, said
    # `doctor` takes no lock and only reads: it answers when SQLite can read, else 9.
    checked = cli(home, "doctor")
    assert (checked.returncode, "whole       yes" in checked.stdout) == (0, True) or (
        checked.returncode == 9 and FULL in checked.stderr
    ), checked
    as_json = cli(home, "--json", "index", "status")
    assert as_json.returncode == 9 and json.loads(as_json.stderr)["error"] == "disk_full"
    small_disk.free()
    ok(cli(home, "index", "run"))
    assert_clean_check(home)
    assert data_of(home) == before  # nothing half-written, nothing lost


def test_index_run_on_a_full_disk_exits_9_and_catches_up_once_space_is_freed(
    small_disk: Disk, made: Path
) -> None:
    home = _home_on(small_disk, made)
    # More rows than a command embeds before it returns: the backlog waits for `index run`.
    n = SETTLE_MAX_ROWS + 40
    rows = "\n".join(
        json.dumps({"thread": "t", "role": "user", "text": f"note {i} about green tea 绿茶 {i}"})
        for i in range(n)
    )
    (small_disk.path / "rows.jsonl").write_text(rows, encoding="utf-8")
    ok(cli(home, "tape", "append", "--agent", "cc", "--jsonl", str(small_disk.path / "rows.jsonl")))
    before = data_of(home)
    small_disk.fill(100_000)  # room for the database's bookkeeping, not for the vectors
    result = cli(home, "index", "run")
    assert result.returncode == 9 and "Traceback" not in result.stderr, result.stderr
    assert "the vector index could not be written. Nothing was lost" in result.stderr
    status = ok(cli(home, "index", "status"))
    assert "because the disk holding the home is full" in status
    small_disk.free()
    assert f"{n} embedded" in ok(cli(home, "index", "run"))
    assert "stalled           no" in ok(cli(home, "index", "status"))
    assert_clean_check(home)
    assert data_of(home) == before


def test_the_background_indexer_waits_out_a_full_disk(
    small_disk: Disk, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a host does: the indexer stalls (status and health say why, in English and
    Chinese), readers answer meanwhile, and it catches up by itself once there is room."""
    monkeypatch.setattr(recovery, "BACKOFF_MAX_S", 1.0)
    monkeypatch.setattr(vector_process, "RESTART_MAX_S", 1.0)
    home = small_disk.path / "home"
    emb = HashingEmbedder(dim=256)
    with Engine.open(home, create=True, clock=clock, embedder=emb) as eng:
        eng.add_agent("cc")
        eng.append(
            "cc", [{"thread": "t", "role": "user", "text": f"row {i} 绿茶"} for i in range(200)]
        )
        eng.run_indexer()
        small_disk.fill(120_000)
        with pytest.raises(DiskFull):  # the disk fills up under the writers too
            for i in range(200):
                eng.append("cc", [{"thread": "t", "role": "user", "text": f"late {i} " * 400}])
        stop = threading.Event()
        loop = threading.Thread(target=indexer_loop, args=(eng, stop), kwargs={"interval_s": 0.2})
        loop.start()
        try:
            status = wait_for(lambda: (st := eng.index_status()).stalled and st)
            assert status.stalled.because == "disk_full"
            snap = eng.health()
            assert "because the disk holding the home is full" in (snap.index_note("en") or "")
            assert "磁盘已满" in (snap.index_note("zh") or "")
            assert eng.search("cc", "row 7", scope="tape").hits  # readers answer
            before = data_of(home)
            small_disk.free()
            wait_for(lambda: (st := eng.index_status()).unembedded_total == 0 and not st.stalled)
        finally:
            stop.set()
            loop.join(30)
        assert eng.check_index().clean
        assert data_of(home) == before
