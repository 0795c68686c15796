"""Exit statuses are a contract with scripts: each has one meaning, and the README lists them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

# Every command and every tool, so that every error class is defined.
import app.cli.main
import app.mcp.server  # noqa: F401
from app.cli.vault_cmds import EXIT_DENIED, EXIT_PENDING
from app.errors import EXIT_STATUSES, TapemindError

README = Path(__file__).resolve().parents[2] / "README.md"


def error_classes(cls: type[TapemindError] = TapemindError) -> list[type[TapemindError]]:
    found = [cls]
    for sub in cls.__subclasses__():
        found += error_classes(sub)
    return found


def test_a_script_can_tell_a_denied_secret_from_a_failed_write() -> None:
    errors = {c.__name__: c.exit_code for c in error_classes()}
    assert {EXIT_DENIED, EXIT_PENDING}.isdisjoint(errors.values()), errors
    # Different failures get different statuses: classes sharing one are a family, all
    # of them the first one's subclasses (HomeBusy is a HomeError); 1 is the catch-all.
    by_status: dict[int, list[type[TapemindError]]] = {}
    for cls in error_classes():  # parents before their subclasses
        by_status.setdefault(cls.exit_code, []).append(cls)
    for status, classes in by_status.items():
        if status != 1:
            assert all(issubclass(c, classes[0]) for c in classes), classes


def test_the_readme_table_is_the_one_table() -> None:
    table = re.findall(r"^\| (\d+) \| (.+) \|$", README.read_text("utf-8"), flags=re.M)
    assert {int(status): meaning for status, meaning in table} == dict(EXIT_STATUSES)
    used = {c.exit_code for c in error_classes()} | {0, EXIT_DENIED, EXIT_PENDING}
    assert used == set(EXIT_STATUSES), used ^ set(EXIT_STATUSES)


@pytest.fixture
def made(ready, run_json):  # type: ignore[no-untyped-def]
    """A home with an entry, a vault secret and a reviewed agent (the in-memory keyring)."""
    ready("tape", "append", "--agent", "cc", "--thread", "t", "--role", "user", "--text", "hi")
    ready("vault", "set", "TOKEN", input="tok-1234567890-abcdef")
    return ready


def _disk_full(run, home):  # type: ignore[no-untyped-def]
    """An append past SQLite's page limit: what the disk being full looks like to it."""
    import sqlite3

    from sqlalchemy import event
    from sqlalchemy.engine import Engine as SqlEngine

    with sqlite3.connect(home / "tapemind.db") as db:
        pages = db.execute("PRAGMA page_count").fetchone()[0]

    def cap(dbapi_conn, _record):  # type: ignore[no-untyped-def]
        dbapi_conn.execute(f"PRAGMA max_page_count={pages + 2}")

    event.listen(SqlEngine, "connect", cap)
    try:
        return run("tape", "append", "--agent", "cc", "--thread", "t", "--role", "user",
                   "--text", "满" * 200_000, ok=False)  # fmt: skip
    finally:
        event.remove(SqlEngine, "connect", cap)


def _write_busy(run, home, monkeypatch):  # type: ignore[no-untyped-def]
    """An append while another writer holds the database past the busy timeout."""
    import sqlite3

    import app.db.store

    monkeypatch.setattr(app.db.store, "BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(home / "tapemind.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        return run("tape", "append", "--agent", "cc", "--thread", "t", "--role", "user",
                   "--text", "waits", ok=False)  # fmt: skip
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_every_status_is_what_the_table_says(made, home, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Each status of the table, met as a user meets it, in the table's order."""
    run = made
    remember = ("remember", "--agent", "cc", "--category", "lesson")
    # A backlog too large to embed before a command returns: the index is not ready.
    monkeypatch.setattr("app.cli.base.SETTLE_MAX_ROWS", 0)
    fresh = ("--home", str(tmp_path / "fresh"))
    run(*fresh, "init")
    run(*fresh, "agent", "add", "cc")
    run(
        *fresh, "tape", "append", "--agent", "cc", "--thread", "t", "--role", "user", "--text", "hi"
    )
    got = {
        0: run("agent", "list", ok=False),
        1: run(
            *fresh,
            "search",
            "--agent",
            "cc",
            "--mode",
            "semantic",
            "--scope",
            "tape",
            "hi",
            ok=False,
        ),
        2: run(*remember, "   ", ok=False),
        3: run(*remember, "Lin likes tea", "--source", "999", ok=False),
        4: run(*remember, "thanks!", ok=False),
        5: run("--home", str(tmp_path / "nowhere"), "agent", "list", ok=False),
    }
    got[7] = run("secret", "get", "TOKEN", "--agent", "cc", "--reason", "deploy", "--wait",
                 "0.3", ok=False)  # fmt: skip
    got[8] = run("secret", "get", "TOKEN", "--agent", "cc", "--reason", "deploy again", ok=False)
    got[9] = _disk_full(run, home)
    got[10] = _write_busy(run, home, monkeypatch)
    # the vault cannot be unlocked: its key wrapped by a passphrase nobody gives here
    locked = tmp_path / "locked"
    monkeypatch.setenv("TAPEMIND_VAULT_PASSPHRASE", "a-passphrase-to-forget")
    run("--home", str(locked), "init")
    run("--home", str(locked), "agent", "add", "cc")
    import keyring.core
    from keyring.backends.fail import Keyring as NoKeyring

    monkeypatch.setattr(keyring.core, "_keyring_backend", NoKeyring())
    run("--home", str(locked), "vault", "set", "TOKEN", input="tok-1234567890-abcdef")
    monkeypatch.delenv("TAPEMIND_VAULT_PASSPHRASE")
    got[6] = run("--home", str(locked), "tape", "append", "--agent", "cc", "--thread", "t",
                 "--role", "user", "--text", "hello", ok=False)  # fmt: skip
    assert {status: r.exit_code for status, r in sorted(got.items())} == {
        status: status for status in EXIT_STATUSES
    }, {s: (r.exit_code, r.stderr) for s, r in got.items()}
