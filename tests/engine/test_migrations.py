"""Numbered migrations: older homes upgrade, newer ones are refused untouched,
and the SQLModel tables never drift from the DDL the migrations create."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import Connection, text
from sqlmodel import SQLModel

from app import Engine, HomeError
from app.clock import ManualClock
from app.db import migrations
from app.db import schema as _schema  # noqa: F401  (registers the tables)
from app.db.store import Store
from app.engine import runtime_of


def _applied(home: Path) -> list[int]:
    with sqlite3.connect(home / "tapemind.db") as db:
        return [r[0] for r in db.execute("SELECT id FROM migrations ORDER BY id")]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_home_of_an_older_version_upgrades(
    home: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The old version: only migration 1, and rows written the way it wrote them.
    only_first = {1: migrations.MIGRATIONS[1]}
    monkeypatch.setattr("app.db.store.MIGRATIONS", only_first)
    home.mkdir(parents=True)
    store = Store.open_sqlite(home / "tapemind.db")
    store.upgrade("2026-01-01T00:00:00.000000Z")
    store.close()
    monkeypatch.undo()
    with sqlite3.connect(home / "tapemind.db") as db:
        db.execute(
            "INSERT INTO agents (id, name, created_at, settings, next_seq) "
            "VALUES (1, 'cc', '2026-01-01T00:00:00.000000Z', '{}', 2)"
        )
        db.execute(
            "INSERT INTO tape_entries (id, agent_id, seq, thread, kind, role, content, "
            "content_hash, created_at) VALUES (1, 1, 1, 't', 'message', 'user', '旧版本的记录', "
            "'h', '2026-01-01T00:00:00.000000Z')"
        )
        db.execute(
            "INSERT INTO memories (id, agent_id, category, text, content_hash, importance, "
            "confidence, status, version, created_at, updated_at) VALUES (1, 1, 'lesson', "
            "'Made by the old version', 'h2', 0.5, 0.8, 'active', 1, "
            "'2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')"
        )
    assert _applied(home) == [1]

    ran: list[int] = []

    def m_probe(conn: Connection) -> None:
        ran.append(1)
        conn.execute(text("CREATE TABLE upgrade_probe (id INTEGER PRIMARY KEY, note TEXT)"))
        conn.execute(text("INSERT INTO upgrade_probe (note) VALUES ('升级')"))

    later = max(migrations.MIGRATIONS) + 50
    registry = {**migrations.MIGRATIONS, later: ("test: upgrade probe", m_probe)}
    monkeypatch.setattr(migrations, "MIGRATIONS", registry)
    monkeypatch.setattr("app.db.store.MIGRATIONS", registry)
    with Engine.open(home, clock=clock) as new:
        assert new.schema_version == later
        assert [m.text for m in new.memories("cc")] == ["Made by the old version"]
        assert [e.text for e in new.tape("cc")] == ["旧版本的记录"]
    assert _applied(home) == sorted(registry)
    with sqlite3.connect(home / "tapemind.db") as db:
        assert db.execute("SELECT note FROM upgrade_probe").fetchall() == [("升级",)]
    with Engine.open(home, clock=clock):
        pass  # opening again applies nothing twice
    assert ran == [1]


def test_decisions_and_conflicts_from_before_reason_codes_keep_their_english(
    home: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The version before reason codes (migration 16): a conflict and its decision with an
    # English reason only.
    before = {k: v for k, v in migrations.MIGRATIONS.items() if k < 16}
    monkeypatch.setattr("app.db.store.MIGRATIONS", before)
    home.mkdir(parents=True)
    store = Store.open_sqlite(home / "tapemind.db")
    store.upgrade("2026-01-01T00:00:00.000000Z")
    store.close()
    monkeypatch.undo()
    at = "2026-01-01T00:00:00.000000Z"
    reason = "one side negates the other, without saying which is current; 1: closeness 0.81"
    with sqlite3.connect(home / "tapemind.db") as db:
        db.execute(
            "INSERT INTO agents (id, name, created_at, settings, next_seq) "
            "VALUES (1, 'cc', ?, '{}', 1)",
            (at,),
        )
        for mid, body in ((1, "用户喜欢猫。"), (2, "用户不喜欢猫。")):
            db.execute(
                "INSERT INTO memories (id, agent_id, category, text, content_hash, importance, "
                "confidence, status, version, created_at, updated_at) VALUES (?, 1, "
                "'preference', ?, ?, 0.5, 0.8, 'active', 1, ?, ?)",
                (mid, body, f"h{mid}", at, at),
            )
        db.execute(
            "INSERT INTO conflicts (id, agent_id, existing_id, challenger_id, reason, arbiter, "
            "status, created_at) VALUES (1, 1, 1, 2, ?, 'offline', 'open', ?)",
            (reason, at),
        )
        db.execute(
            "INSERT INTO decisions (agent_id, at, candidate_hash, category, action, target_id, "
            "memory_id, conflict_id, arbiter, reason, neighbours, actor, latency_ms) "
            "VALUES (1, ?, 'h2', 'preference', 'conflict', 1, 2, 1, 'offline', ?, 1, 'cc', 1.0)",
            (at, reason),
        )
    with Engine.open(home, clock=clock) as engine:
        [conflict] = engine.conflicts("cc")
        [decision] = engine.decisions("cc")
        for old in (conflict, decision):
            assert (old.reason, old.reason_code, dict(old.reason_params)) == (reason, None, {})
        # a new decision beside them has its code
        made = engine.remember("cc", "用户现在改用 VS Code 写代码了。", "preference")
        assert made.reason_code is not None
        assert engine.decisions("cc")[0].reason_code == made.reason_code
    assert _applied(home) == sorted(migrations.MIGRATIONS)


def test_a_failing_migration_changes_nothing(
    home: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    Engine.open(home, create=True, clock=clock).close()

    def m_broken(conn: Connection) -> None:
        conn.execute(text("CREATE TABLE half_done (id INTEGER PRIMARY KEY)"))
        conn.execute(text("SELECT * FROM no_such_table"))

    later = max(migrations.MIGRATIONS) + 60
    registry = {**migrations.MIGRATIONS, later: ("test: broken", m_broken)}
    monkeypatch.setattr("app.db.store.MIGRATIONS", registry)
    with pytest.raises(Exception, match="no_such_table"):
        Engine.open(home, clock=clock)
    with sqlite3.connect(home / "tapemind.db") as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    assert "half_done" not in tables
    assert later not in _applied(home)


def test_a_home_of_a_newer_version_is_refused_untouched(home: Path, clock: ManualClock) -> None:
    with Engine.open(home, create=True, clock=clock) as engine:
        engine.add_agent("cc")
    newer = max(migrations.MIGRATIONS) + 100
    with sqlite3.connect(home / "tapemind.db") as db:
        db.execute("INSERT INTO migrations VALUES (?, 'from the future', '2030-01-01')", (newer,))
    db_file = home / "tapemind.db"
    before = _digest(db_file)
    for _ in range(2):
        with pytest.raises(HomeError) as caught:
            Engine.open(home, clock=clock)
        message = str(caught.value)
        assert f"schema {newer}" in message
        assert "newer version" in message and "pip install -U tapemind" in message
        assert "nothing was changed" in message
    assert _digest(db_file) == before


_AFFINITY = (
    ("INT", "INTEGER"),
    ("CHAR", "TEXT"),
    ("CLOB", "TEXT"),
    ("TEXT", "TEXT"),
    ("REAL", "REAL"),
    ("FLOA", "REAL"),
    ("DOUB", "REAL"),
)


def _affinity(declared: str) -> str:
    upper = declared.upper()
    return next((aff for key, aff in _AFFINITY if key in upper), "NUMERIC")


def _migrated_columns(engine: Engine) -> dict[str, dict[str, tuple[str, bool, bool]]]:
    out: dict[str, dict[str, tuple[str, bool, bool]]] = {}
    with runtime_of(engine).store.engine.connect() as conn:
        names = [
            r[0]
            for r in conn.execute(
                text(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'"
                )
            )
            if not r[0].endswith(("_data", "_idx", "_content", "_docsize", "_config"))
        ]
        for name in names:
            out[name] = {
                row[1]: (_affinity(row[2]), bool(row[3]), bool(row[5]))
                for row in conn.execute(text(f"PRAGMA table_info({name})"))
            }
    return out


@pytest.mark.embedded_only  # the numbered migrations are SQLite's DDL
def test_sqlmodel_tables_match_the_migrated_schema(engine: Engine) -> None:
    migrated = _migrated_columns(engine)
    modelled = {t.name: t for t in SQLModel.metadata.sorted_tables}
    assert set(migrated) == set(modelled), "a migrated table has no SQLModel class or vice versa"
    for name, table in modelled.items():
        columns = {}
        for c in table.columns:
            dialect = runtime_of(engine).store.engine.dialect
            affinity = _affinity(str(c.type.compile(dialect=dialect)))
            columns[c.name] = (affinity, c.primary_key)
        assert set(columns) == set(migrated[name]), name
        for col_name, (affinity, not_null, pk) in migrated[name].items():
            assert columns[col_name] == (affinity, pk), (name, col_name)
            column = table.columns[col_name]
            if not pk:
                assert column.nullable == (not not_null), (name, col_name)


def test_rows_tokenized_by_older_rules_are_found_after_the_upgrade(
    home: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before migration 9 a Latin word and the CJK run after it were one token. Every other
    # migration is applied: today's code writes the columns they add.
    before = {n: m for n, m in migrations.MIGRATIONS.items() if n != 9}
    monkeypatch.setattr("app.db.store.MIGRATIONS", before)
    with Engine.open(home, clock=clock, create=True) as old:
        old.add_agent("cc")
        made = old.remember("cc", "用Postgres数据库存账单", "project_fact")
        assert made.memory is not None
    with sqlite3.connect(home / "tapemind.db") as db:
        db.execute(
            "UPDATE memory_fts SET tokens = 'tmagent1x 用 postgres数据库存账单' WHERE rowid = ?",
            (made.memory.id,),
        )
    monkeypatch.undo()
    with Engine.open(home, clock=clock) as new:
        assert new.schema_version >= 9
        hits = new.search("cc", "数据库", mode="fulltext").hits
        assert [h.id for h in hits] == [made.memory.id]
