"""Forget and erase on PostgreSQL vacuum the tables whose old row versions held the text.

An update on PostgreSQL writes a new row version and leaves the old one, text and all,
in the table until a VACUUM removes it (any session could read it back with page
inspection tools until then); forget and erase run one when they commit.
"""

from __future__ import annotations

from pathlib import Path

from app import Engine
from app.clock import ManualClock
from tests.postgres.helpers import read

PHRASE_EN = "allergic to peanuts"
PHRASE_ZH = "对花生严重过敏"
TABLES = ("memories", "memory_versions", "tape_entries")  # where the text was


def _vacuumed(url: str) -> dict[str, bool]:
    rows = read(
        url,
        "SELECT relname, last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relname = ANY(:t)",
        {"t": list(TABLES)},
    )
    return {str(name): bool(done) for name, done in rows}


def _holding(url: str) -> int:
    sql = "SELECT count(*) FROM {} x WHERE x::text LIKE :p"
    return sum(int(read(url, sql.format(t), {"p": f"%{PHRASE_ZH}%"})[0][0]) for t in TABLES)


def test_forget_and_erase_vacuum_the_old_versions_of_the_text(
    pg_url: str, tmp_path: Path, clock: ManualClock
) -> None:
    with Engine.open(tmp_path / "home", create=True, database_url=pg_url, clock=clock) as engine:
        engine.add_agent("cc")
        made = engine.remember("cc", f"Lin is {PHRASE_EN} ({PHRASE_ZH})", "preference")
        assert made.memory is not None
        engine.edit_memory(made.memory.id, f"Lin is badly {PHRASE_EN}, {PHRASE_ZH}")
        (said,) = engine.append(
            "cc", [{"thread": "t", "role": "user", "text": f"I am {PHRASE_EN}. {PHRASE_ZH}"}]
        ).ids
        assert _vacuumed(pg_url) == dict.fromkeys(TABLES, False)
        # the memory, its two versions, the remember call on the tape and the entry
        assert _holding(pg_url) == 5

        engine.forget(made.memory.id)
        engine.erase_entry(said)

        assert _holding(pg_url) == 0
        assert _vacuumed(pg_url) == dict.fromkeys(TABLES, True)
        assert engine.entry(said).erased
