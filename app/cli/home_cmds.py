"""Home-wide commands: init, audit, export, import, demo."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from app import PASSPHRASE_ENV, Engine, InvalidInput
from app.cli.base import State, home_path, json_option, pass_state
from app.cli.output import counted, emit_json, fields, short_time, table


@click.command()
@click.option(
    "--database",
    "database_url",
    envvar="TAPEMIND_DATABASE_URL",
    metavar="URL",
    help="Keep the memories in this PostgreSQL database (postgresql://USER@HOST/DB) "
    "instead of the home's own file; the home directory keeps the URL and local settings.",
)
@json_option
@pass_state
def init(state: State, database_url: str | None) -> None:
    """Create a new home (an empty or new directory)."""
    path = home_path(state)
    from app import is_home

    existed = is_home(path)
    engine = state.engine(create=True, database_url=database_url)
    if state.as_json:
        emit_json(
            {
                "home": str(engine.home),
                "home_id": engine.home_id,
                "created": not existed,
                "schema": engine.schema_version,
            }
        )
    elif existed:
        click.echo(f"{engine.home} is already a Tapemind home (schema {engine.schema_version}).")
    else:
        click.echo(f"Created a Tapemind home at {engine.home}.")
        click.echo("Next: tapemind agent add NAME")


@click.command()
@click.option("--agent", help="Only this agent's events.")
@click.option("--action", help="Only this action, e.g. memory.add.")
@click.option("--limit", type=click.IntRange(1, 10000), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0)
@json_option
@pass_state
def audit(state: State, agent: str | None, action: str | None, limit: int, offset: int) -> None:
    """The audit trail: time, agent, action, object ids and counts (never text)."""
    events = state.engine().audit(agent=agent, action=action, limit=limit, offset=offset)
    if state.as_json:
        emit_json(events)
        return
    table(
        ["TIME", "AGENT", "ACTOR", "ACTION", "IDS", "COUNTS"],
        [
            [
                short_time(e.at),
                e.agent or "-",
                e.actor,
                e.action,
                ",".join(str(i) for i in e.object_ids) or "-",
                " ".join(f"{k}={v}" for k, v in e.counts.items()) or "-",
            ]
            for e in events
        ],
        max_cell=40,
    )


@click.command("export")
@click.option("--out", "out", required=True, metavar="FILE", help="File to write ('-' for stdout).")
@json_option
@pass_state
def export_(state: State, out: str) -> None:
    """Export the whole home as JSON Lines (secret values are never exported)."""
    engine = state.engine()
    if out == "-":
        engine.export(sys.stdout)
        return
    counts = engine.export(Path(out))
    if state.as_json:
        emit_json({"file": out, "rows": counts})
    else:
        click.echo(f"Exported {counted(sum(counts.values()), 'row')} to {out}.")


@click.command()
@click.option(
    "--to",
    "to",
    required=True,
    metavar="URL|embedded",
    help="postgresql://USER@HOST/DB (an empty database), or `embedded` to bring the home "
    "back into its own file.",
)
@json_option
@pass_state
def migrate(state: State, to: str) -> None:
    """Move the home's memories, tape and vault to another database, checked row for row.

    The home directory stays; its old database file is kept in before-migrate-TIME/."""
    from app.host.move import move_home

    report = move_home(home_path(state), to)
    total = sum(report.rows.values())
    if state.as_json:
        emit_json(
            {
                "home": str(report.home),
                "to": report.to,
                "rows": report.rows,
                "kept": str(report.kept),
            }
        )
    else:
        where = "PostgreSQL" if report.to == "postgresql" else "its own file"
        click.echo(
            f"Moved {counted(total, 'row')} of {report.home} to {where}, checked row for row."
        )
        click.echo(f"The old copy is kept in {report.kept}; the vector index is built again.")


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@json_option
@pass_state
def import_(state: State, file: Path) -> None:
    """Import an export into an empty home (created if needed)."""
    if not file.expanduser().is_file():
        # Before the home is created: a mistyped path must not leave an empty home behind.
        raise InvalidInput(f"No export file at {file}: give the path `tapemind export` wrote.")
    from app import is_home

    engine = state.engine(create=not is_home(home_path(state)))
    counts = engine.import_(file)
    if state.as_json:
        emit_json({"file": str(file), "rows": counts})
    else:
        click.echo(f"Imported {counted(sum(counts.values()), 'row')} into {engine.home}.")


@click.command()
@json_option
@pass_state
def demo(state: State) -> None:
    """Seed a demo home: two agents with a bilingual history, memories and lineage."""
    from app import check_home as check_openable
    from app.host.lock import HomeLock

    path = home_path(state)
    check_openable(path, create=True)
    # Seeding writes many rows: hold the home like any owner, so a host or another
    # command started meanwhile is refused instead of interleaving with the seed.
    lock = HomeLock(path, "cli")
    lock.acquire(wait_s=2.0)
    try:
        _seed_and_show(state, path)
    finally:
        lock.release()


def _seed_and_show(state: State, path: Path) -> None:
    from app import seed_demo as seed

    counts = seed(path, embed=True)
    if state.as_json:
        emit_json({"home": str(path), **counts})
        return
    click.echo(
        f"Seeded a demo home at {path}: {counts['agents']} agents, "
        f"{counts['entries']} tape entries, {counts['memories']} memories "
        f"({counts['embedded']} rows embedded for semantic search)."
    )
    if counts.get("secrets_skipped"):
        click.echo(
            f"Skipped the {counts['secrets_skipped']} demo secrets: "
            f"{counts['secrets_skipped_why']}. Seed again with {PASSPHRASE_ENV} set to a "
            "passphrase the vault accepts to include them.",
            err=True,
        )
    with Engine.open(path) as engine:
        rows = []
        for a in engine.agents():
            stats = engine.agent_stats(a.name)
            rows.append(
                [
                    a.name,
                    stats.threads,
                    stats.tape_entries,
                    stats.active,
                ]
            )
        click.echo()
        table(["AGENT", "THREADS", "TAPE", "MEMORIES"], rows)


@click.command()
@click.option(
    "--repair",
    is_flag=True,
    help="Rebuild damaged indexes and full-text tables from the rows (never the rows).",
)
@json_option
@pass_state
def doctor(state: State, repair: bool) -> None:
    """Check the home's database from end to end (SQLite's integrity check, every index
    against its table, foreign keys). Exit status 5 when it is damaged.

    Every command already refuses a database that is empty, truncated or damaged (a
    quick check at open), so nothing more is written into it; this says what is damaged
    and what to do. The vector index has its own check: `tapemind index check`.
    """
    from app import doctor as check

    report = check(state.home, repair=repair)
    if state.as_json:
        from app import to_json

        emit_json(to_json(report))
    else:
        fields(
            [
                ("database", f"{report.database} ({report.size_bytes:,} bytes)"),
                ("whole", "yes" if report.whole else "no"),
                *[("problem", p) for p in report.problems[:20]],
                *[("rebuilt", r) for r in report.repaired],
                ("checked in", f"{report.seconds:.2f} s"),
                ("advice", report.advice),
            ]
        )
    if not report.whole:
        raise click.exceptions.Exit(5)


def register(cli: click.Group) -> None:
    for command in (init, audit, export_, import_, migrate, demo, doctor):
        cli.add_command(command)
