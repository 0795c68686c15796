"""A damaged, missing or foreign vector index: detected, reported, and rebuilt from the
database whatever state its directory is in; nothing of the database changes."""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from app import Engine, IndexStatus
from app.clock import ManualClock
from app.db import Filters
from app.engine import runtime_of
from app.index import RETRIEVAL, IndexNotReady, exact
from app.index.embedders import HashingEmbedder
from app.runtime import agent_row

from .conftest import assert_clean_check, cli, data_of, ok

pytestmark = pytest.mark.heavy  # subprocesses, a tmpfs, real chromadb

EMB = HashingEmbedder(dim=64)
TOPICS = ["green tea", "dark mode", "PostgreSQL 14", "绿茶", "深色模式", "数据库迁移", "port 8080"]


def _seed(home: Path, clock: ManualClock) -> list[tuple[str, str]]:
    """A home whose agent "a" has 60 tape messages and 12 memories, all indexed;
    returns (kind, text) of each."""
    rng = random.Random(7)
    texts = [
        f"{rng.choice(TOPICS)} note {i}: {' '.join(rng.sample(TOPICS, 3))} {i * 37}"
        for i in range(60)
    ]
    facts = [f"Fact {i}: the user keeps {TOPICS[i % len(TOPICS)]} number {i}" for i in range(12)]
    with Engine.open(home, create=True, clock=clock, embedder=EMB) as eng:
        eng.add_agent("a")
        eng.append("a", [{"thread": "t", "role": "user", "text": t} for t in texts])
        for fact in facts:
            eng.remember("a", fact, "project_fact")
        eng.run_indexer()
    return [("tape", t) for t in texts] + [("memory", f) for f in facts]


def _scribble(path: Path, start: float = 0.25, share: float = 0.5) -> None:
    """Random bytes over `share` of the file from `start` of its length on."""
    size = path.stat().st_size
    with path.open("r+b") as fh:
        fh.seek(int(size * start))
        fh.write(os.urandom(max(64, int(size * share))))


def _segments(index: Path) -> list[Path]:
    return [p for p in index.iterdir() if p.is_dir()]


Damage = Callable[[Path], None]
DAMAGES: dict[str, Damage] = {
    "truncated chroma.sqlite3": lambda i: os.truncate(i / "chroma.sqlite3", 40_000),
    "empty chroma.sqlite3": lambda i: os.truncate(i / "chroma.sqlite3", 0),
    "random-written chroma.sqlite3": lambda i: _scribble(i / "chroma.sqlite3"),
    "deleted index directory": lambda i: shutil.rmtree(i),
    "a file where the index was": lambda i: (shutil.rmtree(i), i.write_text("not an index")),
    "deleted vector segments": lambda i: [shutil.rmtree(p) for p in _segments(i)],
    "random-written vector files": lambda i: [
        _scribble(f, 0.0, 1.0) for p in _segments(i) for f in p.iterdir() if f.stat().st_size
    ],
}


def _findable(eng: Engine, rows: list[tuple[str, str]]) -> list[str]:
    """The texts whose row the index does not return among the 3 nearest to that very
    text (the index itself: tape search smooths its hits over the thread afterwards)."""
    rt = runtime_of(eng)
    service = rt.services.get(RETRIEVAL)
    assert service is not None
    lost = []
    with rt.read() as s:
        arow = agent_row(s, "a")
        ids = {("tape", e.text): e.id for e in eng.tape("a", limit=1000)} | {
            ("memory", m.text): m.id for m in eng.memories("a", limit=1000)
        }
        for kind, text in rows:
            near = service.semantic_search(s, arow, kind, text, Filters(), 3)
            if ids[(kind, text)] not in [i for i, _ in near]:
                lost.append(text)
    return lost


@pytest.fixture(autouse=True)
def _graph_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    # Collections this small are searched exactly; the damage must reach the graph too.
    monkeypatch.setattr(exact, "EXACT_UPTO", 8)


@pytest.mark.parametrize("damage", list(DAMAGES), ids=list(DAMAGES))
def test_index_rebuild_makes_the_index_again_whatever_its_directory_holds(
    home: Path, clock: ManualClock, damage: str
) -> None:
    rows = _seed(home, clock)
    before = data_of(home)
    DAMAGES[damage](home / "index")
    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        status = eng.rebuild_index()
        assert status.indexed == {"memory": 0, "tape": 0} and status.unembedded_total == 72
        eng.run_indexer()
        report = eng.check_index()
        assert report.clean, report.summary()
        assert _findable(eng, rows) == []
    assert data_of(home) == before


@pytest.mark.parametrize("damage", list(DAMAGES), ids=list(DAMAGES))
def test_the_start_check_finds_the_damage_and_the_index_heals_by_itself(
    home: Path, clock: ManualClock, damage: str
) -> None:
    """What a host does at start (a sampled check with repair) and then in the background
    (indexer runs): no command of the owner's needed."""
    rows = _seed(home, clock)
    before = data_of(home)
    DAMAGES[damage](home / "index")
    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        first = eng.check_index(sample=32, repair=True)
        eng.run_indexer(background=True)
        eng.run_indexer(background=True)
        report = eng.check_index()
        assert report.clean, (first.summary(), report.summary())
        assert _findable(eng, rows) == []
        assert eng.index_status().stalled is None
    assert data_of(home) == before


def test_a_deleted_index_is_reported_not_answered_with_silence(
    home: Path, clock: ManualClock
) -> None:
    _seed(home, clock)
    shutil.rmtree(home / "index")
    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        with pytest.raises(IndexNotReady, match="index directory is missing"):
            eng.search("a", "green tea", scope="tape", mode="semantic")
        hybrid = eng.search("a", "green tea", scope="tape")  # full-text still answers
        assert hybrid.hits
        status: IndexStatus = eng.index_status()
        assert status.stalled is not None and status.stalled.because == "missing"
        snap = eng.health()
        assert snap.index_stalled_because == "missing"
        assert (snap.index_note("en") or "").startswith("Index stalled since ")
        assert "because the index directory is missing" in (snap.index_note("en") or "")
        assert "索引目录不见了" in (snap.index_note("zh") or "")
        assert not (home / "index").exists()  # a search never makes an empty index
        eng.run_indexer()
        assert eng.index_status().stalled is None and eng.health().index_note() is None


def test_an_index_of_another_home_is_never_emptied_by_this_database(
    home: Path, tmp_path: Path, clock: ManualClock
) -> None:
    """A new home given an old index (a copied directory, a reset database): the
    reconcile would see none of the index's rows in the database and delete them all."""
    _seed(home, clock)
    other = tmp_path / "other"
    with Engine.open(other, create=True, clock=clock, embedder=EMB) as eng:
        eng.add_agent("a")
        eng.append("a", [{"thread": "t", "role": "user", "text": "a row of the new home"}])
    shutil.copytree(home / "index", other / "index")
    held = sorted(p.name for p in (other / "index").rglob("*"))
    with Engine.open(other, clock=clock, embedder=EMB) as eng:
        assert eng.run_indexer(background=True).stalled == "foreign"
        assert eng.index_status().stalled.because == "foreign"  # type: ignore[union-attr]
        assert "another home" in eng.health().index_note("en")  # type: ignore[operator]
    assert sorted(p.name for p in (other / "index").rglob("*")) == held
    with Engine.open(home, clock=clock, embedder=EMB) as eng:
        assert eng.check_index().clean  # the original still holds everything


def test_the_cli_rebuilds_a_truncated_index_the_issue_way(home: Path) -> None:
    """`index run` and `index rebuild` on a truncated chroma.sqlite3 (they crashed with
    "database disk image is malformed"), with the home's own model."""
    ok(cli(home, "init"))
    ok(cli(home, "agent", "add", "cc"))
    ok(cli(home, "remember", "--agent", "cc", "--category", "preference", "用户喜欢喝绿茶"))
    ok(cli(home, "tape", "append", "--agent", "cc", "--thread", "t", "--role", "user",
           "--text", "The deploy uses PostgreSQL 14 on port 5432"))  # fmt: skip
    ok(cli(home, "index", "run"))
    before = data_of(home)
    os.truncate(home / "index" / "chroma.sqlite3", 30_000)
    status = ok(cli(home, "index", "status"))
    assert "Index stalled since" in status and "the index files are damaged" in status
    refused = cli(home, "search", "--agent", "cc", "--mode", "semantic", "绿茶")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "index rebuild" in refused.stderr
    ok(cli(home, "index", "rebuild"))
    assert_clean_check(home)
    assert "用户喜欢喝绿茶" in ok(
        cli(home, "search", "--agent", "cc", "--mode", "semantic", "喝茶")
    )
    os.truncate(home / "index" / "chroma.sqlite3", 30_000)
    ran = ok(cli(home, "index", "run"))  # the indexer heals it on its way
    assert "2 embedded" in ran
    assert_clean_check(home)
    assert data_of(home) == before
