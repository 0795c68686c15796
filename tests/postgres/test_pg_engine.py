"""A home on PostgreSQL, as its owner makes and uses one: `tapemind init --database URL`,
then every later command with only the home; a second home directory on the same
database opens the same memories, once the first has let the database go."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from app import Engine, HomeBusy
from app.cli.main import cli as tapemind


def _run(home: Path, *args: str, ok: bool = True, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(tapemind, ["--home", str(home), *args], env=env)
    assert (result.exit_code == 0) == ok, result.output
    return result.output


def test_init_keeps_the_url_privately_and_later_commands_need_only_the_home(
    pg_url: str, tmp_path: Path
) -> None:
    home = tmp_path / "laptop"
    made = json.loads(_run(home, "--json", "init", "--database", pg_url))
    assert made["created"] is True
    kept = home / "database.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600  # it may hold a password
    assert not (home / "tapemind.db").exists()

    _run(home, "agent", "add", "cc")
    _run(home, "remember", "--agent", "cc", "--category", "preference", "用户喜欢喝乌龙茶")
    listed = json.loads(_run(home, "--json", "memory", "list", "--agent", "cc"))
    assert [m["text"] for m in listed] == ["用户喜欢喝乌龙茶"]
    again = json.loads(_run(home, "--json", "init"))
    assert again["created"] is False and again["home_id"] == made["home_id"]


def test_a_second_home_on_the_same_database_shares_its_memories_one_process_at_a_time(
    pg_url: str, tmp_path: Path
) -> None:
    _run(tmp_path / "laptop", "init", env={"TAPEMIND_DATABASE_URL": pg_url})
    _run(tmp_path / "laptop", "agent", "add", "cc")
    _run(tmp_path / "laptop", "tape", "append", "--agent", "cc", "--thread", "t1",
         "--role", "user", "--text", "We deploy the blog with Hugo.")  # fmt: skip
    _run(tmp_path / "desktop", "init", "--database", pg_url)

    with Engine.open(tmp_path / "laptop") as laptop:
        home_id = laptop.home_id
        # Its vectors are in the laptop's index: a second owner would embed into another.
        with pytest.raises(HomeBusy) as busy:
            Engine.open(tmp_path / "desktop")
        assert "Nothing was changed" in busy.value.message and pg_url not in str(busy.value)
        out = _run(tmp_path / "desktop", "agent", "list", ok=False)
        assert "Another Tapemind process has this home's PostgreSQL database open" in out
    with Engine.open(tmp_path / "desktop") as desk:  # the laptop let it go
        assert desk.home_id == home_id
        assert [a.name for a in desk.agents()] == ["cc"]
        assert [(t.name, t.entries) for t in desk.threads("cc")] == [("t1", 1)]


def test_a_home_refuses_a_database_it_does_not_keep(pg_url: str, tmp_path: Path) -> None:
    embedded = tmp_path / "embedded"
    _run(embedded, "init")
    out = _run(embedded, "init", "--database", pg_url, ok=False)
    assert "on its own tapemind.db" in out
    assert pg_url not in out

    on_pg = tmp_path / "on-pg"
    _run(on_pg, "init", "--database", pg_url)
    other = pg_url.rsplit("/", 1)[0] + "/postgres?" + pg_url.split("?", 1)[1]
    out = _run(on_pg, "init", "--database", other, ok=False)
    assert "already keeps its memories in another database" in out
    assert other not in out


def test_a_damaged_database_file_says_how_to_write_it_again(pg_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    _run(home, "init", "--database", pg_url)
    (home / "database.json").write_text("{", encoding="utf-8")
    out = _run(home, "agent", "list", ok=False)
    assert "does not say where this home's database is" in out
