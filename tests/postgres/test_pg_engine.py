"""A home on PostgreSQL, as its owner makes and uses one: `tapemind init --database URL`,
then every later command with only the home; a second home directory on the same
database opens the same memories, once the first has let the database go."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from app import Engine
from app.cli.main import cli as tapemind
from tests.pg import fresh_database


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


def test_two_homes_on_the_same_database_serve_the_same_memories_at_once(
    pg_url: str, tmp_path: Path
) -> None:
    _run(tmp_path / "laptop", "init", env={"TAPEMIND_DATABASE_URL": pg_url})
    _run(tmp_path / "laptop", "agent", "add", "cc")
    _run(tmp_path / "laptop", "tape", "append", "--agent", "cc", "--thread", "t1",
         "--role", "user", "--text", "We deploy the blog with Hugo.")  # fmt: skip
    _run(tmp_path / "desktop", "init", "--database", pg_url)

    with Engine.open(tmp_path / "laptop") as laptop, Engine.open(tmp_path / "desktop") as desk:
        assert desk.home_id == laptop.home_id
        assert [(t.name, t.entries) for t in desk.threads("cc")] == [("t1", 1)]
        made = desk.remember("cc", "用户用 Hugo 写博客", "project_fact")
        assert made.memory is not None
        # What one writes, the other reads at once, and confronts its own writes with.
        hits = laptop.search("cc", "博客", mode="fulltext", scope="memories").hits
        assert [h.text for h in hits] == ["用户用 Hugo 写博客"]
        again = laptop.remember("cc", "用户用 Hugo 写博客", "project_fact")
        assert again.decision == "duplicate" and again.memory is not None
        assert again.memory.id == made.memory.id
        # The CLI opens it too while both are open.
        assert "cc" in _run(tmp_path / "desktop", "agent", "list")


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


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[1:]  # past the header's time


def test_an_embedded_home_exported_and_imported_on_postgresql_is_the_same_home(
    pg_url: str, tmp_path: Path
) -> None:
    with Engine.open(tmp_path / "embedded", create=True) as embedded:
        embedded.add_agent("cc")
        ids = embedded.append("cc", [
            {"thread": "t1", "role": "user", "text": "我们用 Hugo 写博客，部署在周五。"},
            {"thread": "t1", "role": "assistant", "text": "Noted: the blog is built with Hugo."},
        ]).ids  # fmt: skip
        embedded.remember("cc", "用户用 Hugo 写博客", "project_fact", sources=list(ids[:1]))
        embedded.remember("cc", "The user deploys on Fridays.", "project_fact")
        embedded.export(tmp_path / "embedded.jsonl")

    with Engine.open(tmp_path / "team", create=True, database_url=pg_url) as team:
        team.import_(tmp_path / "embedded.jsonl")
        team.export(tmp_path / "team.jsonl")
        assert _lines(tmp_path / "team.jsonl") == _lines(tmp_path / "embedded.jsonl")
        # Its words are found, in Chinese too, and what is written next gets new ids.
        hits = team.search("cc", "博客", mode="fulltext", scope="memories").hits
        assert [h.text for h in hits] == ["用户用 Hugo 写博客"]
        more = team.append("cc", [{"thread": "t2", "role": "user", "text": "再写一篇"}]).ids
        assert min(more) > max(ids)
        made = team.remember("cc", "The user writes in Markdown.", "preference")
        assert made.memory is not None


def test_migrate_moves_a_home_to_postgresql_and_back_with_its_vault_and_tokens(
    pg_url: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    with Engine.open(home, create=True) as embedded:
        embedded.add_agent("cc")
        token = embedded.agent_token("cc").token
        embedded.append("cc", [{"thread": "t1", "role": "user", "text": "部署脚本在 ops 仓库里"}])
        embedded.remember("cc", "用户的部署脚本在 ops 仓库", "project_fact")
        embedded.set_secret("DEPLOY_KEY", "dk-7Hq-部署-9")
        embedded.export(tmp_path / "before.jsonl")

    moved = json.loads(_run(home, "--json", "migrate", "--to", pg_url))
    assert moved["to"] == "postgresql" and moved["rows"]["memories"] == 1
    assert (home / "database.json").exists() and not (home / "tapemind.db").exists()
    assert (Path(moved["kept"]) / "tapemind.db").exists()  # the old copy, kept
    assert pg_url not in json.dumps(moved)
    with Engine.open(home) as team:
        assert team.agent_for_token(token) == "cc"  # the agent's token still opens it
        assert team.reveal_secret("DEPLOY_KEY") == "dk-7Hq-部署-9"
        hits = team.search("cc", "部署脚本", mode="fulltext", scope="memories").hits
        assert [h.text for h in hits] == ["用户的部署脚本在 ops 仓库"]
        team.remember("cc", "The user reviews deploys on Mondays.", "preference")

    again = _run(home, "migrate", "--to", pg_url, ok=False)
    assert "in that database already" in again
    back = json.loads(_run(home, "--json", "migrate", "--to", "embedded"))
    assert back["to"] == "embedded"
    assert (home / "tapemind.db").exists() and not (home / "database.json").exists()
    with Engine.open(home) as embedded:
        assert embedded.reveal_secret("DEPLOY_KEY") == "dk-7Hq-部署-9"
        texts = sorted(m.text for m in embedded.memories("cc"))
        assert texts == ["The user reviews deploys on Mondays.", "用户的部署脚本在 ops 仓库"]


def test_migrate_refuses_a_database_that_holds_a_home_and_changes_nothing(
    pg_url: str, tmp_path: Path
) -> None:
    _run(tmp_path / "other", "init", "--database", pg_url)
    _run(tmp_path / "other", "agent", "add", "someone")
    home = tmp_path / "home"
    _run(home, "init")
    _run(home, "agent", "add", "cc")
    out = _run(home, "migrate", "--to", pg_url, ok=False)
    assert "already holds a Tapemind home" in out and "Nothing was changed" in out
    assert not any(p.name.startswith(("before-migrate", ".migrating")) for p in home.iterdir())
    assert (home / "tapemind.db").exists() and not (home / "database.json").exists()
    assert "cc" in _run(home, "agent", "list")


def test_migrate_between_two_databases_keeps_the_old_url_with_the_old_copy(
    pg_server: Any, pg_url: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    _run(home, "init", "--database", pg_url)
    _run(home, "agent", "add", "cc")
    _run(home, "remember", "--agent", "cc", "--category", "preference", "用户喜欢喝乌龙茶")
    other = fresh_database(pg_server)
    moved = json.loads(_run(home, "--json", "migrate", "--to", other))
    kept = json.loads((Path(moved["kept"]) / "database.json").read_text(encoding="utf-8"))
    assert kept["url"] == pg_url
    listed = json.loads(_run(home, "--json", "memory", "list", "--agent", "cc"))
    assert [m["text"] for m in listed] == ["用户喜欢喝乌龙茶"]
