"""`tapemind import-history`: existing agent histories onto an agent's tape."""

from __future__ import annotations

import re
from pathlib import Path

import click

from app import HISTORY_FORMATS as FORMATS
from app import InvalidInput, NewEntry, parse_history
from app import history_file_patterns as file_patterns
from app.cli.base import State, json_option, pass_state
from app.cli.output import counted, emit_json

CHUNK = 500  # entries per transaction: a big history never holds the write lock for long
SHOWN_PROBLEMS = 10  # lines of problems printed; --json lists them all
ANNOUNCE = 2000  # from this many entries on, say what is being added before it is done


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

    \b
    Where histories usually are:
      claude-code  ~/.claude/projects (or one project's folder, or one .jsonl)
      codex        ~/.codex/sessions
      chatgpt      the export ZIP from ChatGPT (Settings → Data controls → Export
                   data), or the conversations.json inside it
      jsonl        your own file: one JSON object per line, {"thread", "role",
                   "text"} and optionally "turn", "kind", "time", "id", "meta"
    """
    engine = state.engine(vault="text")
    # An unknown agent is reported before anything is written, and before a big history
    # is read (minutes for years of sessions) only to be refused.
    engine.agent(agent)
    try:
        batch = parse_history(fmt, path.expanduser())
    except FileNotFoundError:
        raise InvalidInput(f"No history at {path}: give a file or a directory of files.") from None
    if not batch.entries:
        # Nothing readable at all: a wrong --from, a wrong file or folder. Reporting
        # "Imported 0 entries" with exit 0 (and one problem per line of the file) hides that.
        if path.expanduser().is_dir():
            found = (
                f"no file in it or below it named {' or '.join(file_patterns(fmt))} holds any entry"
            )
        else:
            found = f"nothing in the file reads as {fmt}"
        if batch.problems:
            # A whole file that could not be read says more than a bad byte in it.
            whole = [p for p in batch.problems if p.message.endswith("file skipped")]
            first = re.sub(r"; (file )?skipped$", "", (whole or batch.problems)[0].message)
            found += f" ({len(batch.problems)} unreadable, e.g. {first})"
        raise InvalidInput(
            f"Found no {fmt} history in {path}: {found}. "
            "Check the path and --from (claude-code, codex, chatgpt or jsonl)."
        )

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
    if len(entries) >= ANNOUNCE and not state.as_json:
        click.echo(
            f"Adding {counted(len(entries), 'entry', 'entries')} from "
            f"{counted(batch.threads, 'thread')} to the tape of "
            f"agent {agent}…",
            err=True,
        )
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
        f"Imported {counted(added, 'entry', 'entries')} from {counted(batch.threads, 'thread')} "
        "into the tape of agent "
        f"{agent} ({skipped} already there)."
    )
    for p in problems[:SHOWN_PROBLEMS]:  # each message already names the file and line
        click.echo(f"  not imported: {p['message']}", err=True)
    if len(problems) > SHOWN_PROBLEMS:
        click.echo(
            f"  … and {len(problems) - SHOWN_PROBLEMS} more lines not imported "
            "(--json lists them all).",
            err=True,
        )


def register(cli: click.Group) -> None:
    cli.add_command(import_history)
