"""`tapemind import-history`: existing agent histories onto an agent's tape."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import InvalidInput
from ..importers import FORMATS, file_patterns, parse_history
from ..models import NewEntry
from .base import State, json_option, pass_state
from .output import emit_json

CHUNK = 500  # entries per transaction: a big history never holds the write lock for long


@click.command("import-history")
@click.option("--agent", required=True, help="The agent whose tape receives the history.")
@click.option(
    "--from",
    "fmt",
    required=True,
    type=click.Choice(FORMATS),
    help="claude-code (session JSONL), codex (session JSONL), chatgpt (conversations.json "
    "or the export ZIP) or jsonl (one entry per line).",
)
@click.argument("path", type=click.Path(path_type=Path))
@json_option
@pass_state
def import_history(state: State, agent: str, fmt: str, path: Path) -> None:
    """Import the history at PATH (a file or a directory) into AGENT's tape.

    Importing the same history again adds nothing; malformed lines are reported
    and skipped.
    """
    try:
        batch = parse_history(fmt, path.expanduser())
    except FileNotFoundError:
        raise InvalidInput(f"No history at {path}: give a file or a directory of files.") from None
    if path.expanduser().is_dir() and not batch.entries and not batch.problems:
        # A wrong or empty folder is a mistake to report, not a successful import of nothing.
        raise InvalidInput(
            f"Found no {fmt} history in {path}: no file in it or below it named "
            f"{' or '.join(file_patterns(fmt))} holds any entry. Check the folder and --from."
        )
    engine = state.engine()
    engine.agent(agent)  # an unknown agent is reported before anything is written
    entries = [
        NewEntry(
            thread=e.thread,
            turn=e.turn,
            kind=e.kind,
            role=e.role,
            text=e.text,
            created_at=e.created_at,
            meta=dict(e.meta) or None,
            source_key=e.source_key,
        )
        for e in batch.entries
    ]
    added = skipped = 0
    for start in range(0, len(entries), CHUNK):
        result = engine.append(agent, entries[start : start + CHUNK], actor="owner")
        added += len(result.ids)
        skipped += result.skipped
    problems = [{"path": p.path, "line": p.line, "message": p.message} for p in batch.problems]
    if state.as_json:
        emit_json(
            {
                "agent": agent,
                "format": fmt,
                "threads": batch.threads,
                "added": added,
                "skipped": skipped,  # already on the tape (kept for scripts)
                "already_there": skipped,
                "problems": problems,  # lines that could not be read, not imported
            }
        )
        return
    click.echo(
        f"Imported {added} entries from {batch.threads} thread(s) into the tape of agent "
        f"{agent} ({skipped} already there)."
    )
    for p in problems:  # each message already names the file and line
        click.echo(f"  not imported: {p['message']}", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(import_history)
