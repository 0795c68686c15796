"""The migrations' triggers on PostgreSQL: class counts and stale fade times follow writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import Connection, Engine, text

from app.db import Store
from app.db.postgres import triggers
from tests.postgres.helpers import add_agent, add_memory

FADE = "2027-01-01T00:00:00.000000Z"


def _counts(conn: Connection) -> set[tuple[object, ...]]:
    rows = conn.execute(
        text("SELECT agent_id, status, recalled, used, n FROM memory_class_counts WHERE n > 0")
    ).all()
    return {tuple(r) for r in rows}


def _grouped(conn: Connection) -> set[tuple[object, ...]]:
    rows = conn.execute(
        text(
            "SELECT agent_id, status, (recall_count > 0)::int, (use_count > 0)::int, count(*) "
            "FROM memories GROUP BY 1, 2, 3, 4"
        )
    ).all()
    return {tuple(r) for r in rows}


def test_the_triggers_are_sqlites(pg: Engine, tmp_path: Path) -> None:
    store = Store.open_sqlite(tmp_path / "tapemind.db")
    store.upgrade("2026-11-01T09:00:00Z")
    store.close()
    sqlite = sqlite3.connect(tmp_path / "tapemind.db")
    names = {r[0] for r in sqlite.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
    with pg.connect() as conn:
        held = set(
            conn.execute(text("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")).scalars()
        )
    assert names == set(triggers.TRIGGER_NAMES) == held


def test_class_counts_follow_inserts_changes_and_deletes(pg: Engine) -> None:
    with pg.begin() as conn:
        ada, bob = add_agent(conn, "ada"), add_agent(conn, "bob")
        ids = [add_memory(conn, ada, f"lesson {i}") for i in range(5)]
        add_memory(conn, bob, "bob's lesson", status="archived")
        conn.execute(text("UPDATE memories SET recall_count = 2 WHERE id = :i"), {"i": ids[0]})
        conn.execute(text("UPDATE memories SET recall_count = 3 WHERE id = :i"), {"i": ids[0]})
        conn.execute(text("UPDATE memories SET use_count = 1 WHERE id = :i"), {"i": ids[1]})
        conn.execute(text("UPDATE memories SET status = 'archived' WHERE id = :i"), {"i": ids[2]})
        conn.execute(text("DELETE FROM memories WHERE id = :i"), {"i": ids[3]})
        assert _counts(conn) == _grouped(conn)
        assert (ada, "active", 1, 0, 1) in _counts(conn)
    with pg.begin() as conn:
        conn.execute(text("DELETE FROM agents WHERE id = :a"), {"a": ada})
        assert _counts(conn) == _grouped(conn) == {(bob, "archived", 0, 0, 1)}


def test_fade_time_is_cleared_when_an_input_of_it_changes(pg: Engine) -> None:
    with pg.begin() as conn:
        ada = add_agent(conn, "ada")
        kept, changed, by_settings = (add_memory(conn, ada, f"m{i}") for i in range(3))
        conn.execute(text("UPDATE memories SET fade_at = :f"), {"f": FADE})
        conn.execute(text("UPDATE memories SET importance = 0.9 WHERE id = :i"), {"i": changed})
        conn.execute(text("UPDATE memories SET text = 'edited' WHERE id = :i"), {"i": kept})
        fades = dict(conn.execute(text("SELECT id, fade_at FROM memories")).all())
        assert fades == {kept: FADE, changed: None, by_settings: FADE}
        conn.execute(
            text("UPDATE agents SET settings = '{\"half_life_days\": 30}' WHERE id = :a"),
            {"a": ada},
        )
        fades = dict(conn.execute(text("SELECT id, fade_at FROM memories")).all())
        assert set(fades.values()) == {None}
        conn.execute(text("UPDATE memories SET fade_at = :f"), {"f": FADE})
        conn.execute(  # the same settings written again: nothing to recompute
            text("UPDATE agents SET settings = '{\"half_life_days\": 30.0}' WHERE id = :a"),
            {"a": ada},
        )
        fades = dict(conn.execute(text("SELECT id, fade_at FROM memories")).all())
        assert set(fades.values()) == {FADE}
