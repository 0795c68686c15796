"""A home database that is empty, truncated or damaged: refused with what to do, never
reset, never written into, and the vector index never emptied because of it."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app import Engine, HomeDamaged, doctor
from app.clock import ManualClock
from app.engine import runtime_of
from app.index.embedders import HashingEmbedder

from .conftest import cli, ok

pytestmark = pytest.mark.heavy  # subprocesses, a tmpfs, real chromadb

EMB = HashingEmbedder(dim=64)
COMMANDS = [
    ("index", "status"),
    ("index", "run"),
    ("tape", "show", "--agent", "cc", "--limit", "1000"),
    ("search", "--agent", "cc", "--mode", "regex", "tea.*"),
    ("tape", "append", "--agent", "cc", "--thread", "t", "--role", "user", "--text", "more"),
    ("remember", "--agent", "cc", "--category", "preference", "The user moved to Hangzhou"),
    ("export", "--out", "-"),
    ("init",),
]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with agent cc: 400 tape entries and 30 memories, all indexed."""
    home = tmp_path_factory.mktemp("made") / "home"
    clock = ManualClock(datetime(2026, 11, 1, 9, 0, tzinfo=UTC))
    with Engine.open(home, create=True, clock=clock, embedder=EMB) as eng:
        eng.add_agent("cc")
        eng.append(
            "cc",
            [
                {"thread": f"t{i % 5}", "role": "user", "text": f"green tea note {i} 绿茶 {i}" * 4}
                for i in range(400)
            ],
        )
        for i in range(30):
            eng.remember("cc", f"Fact {i}: the project listens on port {8000 + i}", "project_fact")
        eng.run_indexer()
    return home


def _home(home: Path, made: Path) -> None:
    """A copy of `made` at `home`."""
    shutil.copytree(made, home)


def _files(home: Path) -> dict[str, str]:
    """Every file of the home (the index's too) with a digest of its bytes."""
    return {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(home.rglob("*"))
        if p.is_file()
    }


def _leaf(home: Path, name: str) -> tuple[int, int]:
    """A leaf page of table or index `name` that holds rows, and the page size."""
    conn = sqlite3.connect(home / "tapemind.db")
    try:
        pages = [
            r[0]
            for r in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' AND ncell > 2 "
                "ORDER BY pageno",
                (name,),
            )
        ]
        return pages[len(pages) // 2], conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for n in range(9):
        byte = data[at + n]
        if n == 8:
            return (value << 8) | byte, 9
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, n + 1
    raise AssertionError("unreachable")


def _refused_by_every_command(home: Path, said: str) -> None:
    files = _files(home)
    for command in COMMANDS:
        result = cli(home, *command)
        out = (command, result.returncode, result.stderr)
        assert result.returncode == 5 and said in result.stderr, out
        assert "Traceback" not in result.stderr, out
    assert _files(home) == files  # not reset, not written into, the index untouched


def test_an_empty_database_is_refused_not_made_a_new_home(
    home: Path, clock: ManualClock, made: Path
) -> None:
    _home(home, made)
    os.truncate(home / "tapemind.db", 0)
    for extra in ("tapemind.db-wal", "tapemind.db-shm", ".checked"):
        (home / extra).unlink(missing_ok=True)
    _refused_by_every_command(home, "is empty (0 bytes)")
    assert (home / "tapemind.db").stat().st_size == 0
    with pytest.raises(HomeDamaged, match="will not make it a new, empty home"):
        Engine.open(home, embedder=EMB)
    assert not doctor(home).whole


def test_a_truncated_database_is_refused(home: Path, clock: ManualClock, made: Path) -> None:
    _home(home, made)
    size = (home / "tapemind.db").stat().st_size
    os.truncate(home / "tapemind.db", size // 2)
    _refused_by_every_command(home, "truncated")
    report = doctor(home)
    assert not report.whole and "truncated" in report.problems[0]


def test_random_written_pages_are_refused_at_open_and_doctor_says_so(
    home: Path, clock: ManualClock, made: Path
) -> None:
    """Random bytes over two pages: `dd if=/dev/urandom ... seek=244 count=2 conv=notrunc`."""
    _home(home, made)
    page, size = _leaf(home, "tape_entries")  # a page of rows, where that dd lands
    with (home / "tapemind.db").open("r+b") as fh:
        fh.seek((page - 1) * size + 1024)
        fh.write(os.urandom(2 * 512))
    _refused_by_every_command(home, "is damaged")
    checked = cli(home, "doctor")
    assert checked.returncode == 5 and "whole       no" in checked.stdout, checked
    assert "restore the home from a backup" in checked.stdout
    assert not doctor(home).whole


def test_damage_met_while_the_home_is_open_stops_every_write(
    home: Path, clock: ManualClock, made: Path
) -> None:
    """Damage the quick check at open could not see yet (it happened afterwards): the first
    read that meets it refuses, and from then on nothing is written, in this process or
    the next, until `doctor` finds the database whole."""
    _home(home, made)
    eng = Engine.open(home, clock=clock, embedder=EMB)
    try:
        conn = sqlite3.connect(home / "tapemind.db")
        tape_root = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'tape_entries'"
        ).fetchone()[0]
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        conn.close()
        with (home / "tapemind.db").open("r+b") as fh:
            fh.seek((tape_root - 1) * page)  # the table's root page
            fh.write(os.urandom(page))
        runtime_of(eng).store.engine.dispose()  # a fresh connection sees the file
        damaged = _files(home)["tapemind.db"]
        with pytest.raises(HomeDamaged, match="tapemind doctor"):
            eng.tape("cc", limit=1000)
        with pytest.raises(HomeDamaged):
            eng.append("cc", [{"thread": "t", "role": "user", "text": "not written"}])
        with pytest.raises(HomeDamaged):
            eng.remember("cc", "The user moved to Hangzhou", "preference")
    finally:
        eng.close()
    assert _files(home)["tapemind.db"] == damaged  # nothing was written into it
    result = cli(home, "index", "status")
    assert result.returncode == 5 and "found damaged on" in result.stderr, result.stderr


def test_doctor_repairs_an_index_that_no_longer_matches_its_table(
    home: Path, clock: ManualClock, made: Path
) -> None:
    """Damage confined to an index, the rows intact (an index entry pointing at the wrong
    row): `doctor` names it, `doctor --repair` rebuilds the index from the rows."""
    _home(home, made)
    conn = sqlite3.connect(home / "tapemind.db")
    index = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tape_entries' "
        "AND name = 'tape_by_thread'"
    ).fetchone()[0]
    conn.close()
    page, size = _leaf(home, index)
    with (home / "tapemind.db").open("r+b") as fh:
        fh.seek((page - 1) * size)
        data = bytearray(fh.read(size))
        cell = int.from_bytes(data[8:10], "big")  # the first cell of the leaf
        length, used = _varint(bytes(data), cell)
        data[cell + used + length - 1] ^= 0x01  # the entry's row id, its last byte
        fh.seek((page - 1) * size)
        fh.write(bytes(data))
    found = cli(home, "doctor")
    assert found.returncode == 5 and f"index {index}" in found.stdout, found.stdout
    assert "doctor --repair" in found.stdout
    rows_before = (
        sqlite3.connect(home / "tapemind.db")
        .execute("SELECT count(*), sum(length(content)) FROM tape_entries")
        .fetchone()
    )
    repaired = cli(home, "doctor", "--repair")
    assert repaired.returncode == 0 and "whole       yes" in repaired.stdout, repaired.stdout
    assert doctor(home).whole
    assert (
        sqlite3.connect(home / "tapemind.db")
        .execute("SELECT count(*), sum(length(content)) FROM tape_entries")
        .fetchone()
        == rows_before
    )
    assert "Fact 29: the project" in ok(cli(home, "tape", "show", "--agent", "cc", "--limit", "5"))
