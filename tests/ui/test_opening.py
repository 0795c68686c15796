"""Opening a home that takes a while (an upgrade re-indexing it) shows a notice."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel

from app.db import migrations
from ui import startup
from ui.opening import wait_for_home


def _notices() -> list[QLabel]:
    return [
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, QLabel) and w.objectName() == "opening-notice" and w.isVisible()
    ]


def test_a_slow_open_shows_a_notice_until_the_home_is_open(
    qapp, english, demo_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    seen: list[str] = []
    real = migrations.MIGRATIONS[9][1]

    def slow_upgrade(conn):  # type: ignore[no-untyped-def]
        time.sleep(1.2)  # the re-indexing of a big home, shortened
        real(conn)

    # The demo home as a version before migration 9 left it: opening it upgrades it.
    with sqlite3.connect(demo_home / "tapemind.db") as db:
        db.execute("DELETE FROM migrations WHERE id = 9")
        db.execute("DROP TABLE tape_fts_vocab")
    monkeypatch.setitem(migrations.MIGRATIONS, 9, (migrations.MIGRATIONS[9][0], slow_upgrade))
    opener = startup.EngineOpener(demo_home, own=False)
    opener.start()

    # The notice is looked for from the GUI thread's own event processing.
    timer = QTimer()
    timer.timeout.connect(lambda: seen.extend(n.text() for n in _notices()))
    timer.start(50)
    engine, lock = wait_for_home(opener, after_s=0.2)
    timer.stop()
    try:
        assert lock is None and engine.schema_version >= 9
        assert any("Opening your Tapemind home" in text for text in seen)
        assert _notices() == []  # gone once the home is open
    finally:
        engine.close()


def test_a_quick_open_shows_nothing(qapp, english, demo_home: Path) -> None:  # type: ignore[no-untyped-def]
    opener = startup.EngineOpener(demo_home, own=False)
    opener.start()
    engine, _ = wait_for_home(opener, after_s=30)
    try:
        assert _notices() == []
    finally:
        engine.close()
