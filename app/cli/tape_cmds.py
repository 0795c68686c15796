"""`tapemind tape …`: append to, read and erase the tape."""

from __future__ import annotations

import json
import sys
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from app import KINDS, ROLES, InvalidInput
from app import parse_time as from_iso
from app.cli.base import State, ask_first, json_option, pass_state
from app.cli.output import clip, counted, emit_json, printable, short_time, table


def parse_time(value: str | None, flag: str) -> datetime | None:
    if value is None:
        return None
    try:
        return from_iso(value)
    except ValueError:
        raise InvalidInput(
            f"{flag} {value!r} is not a time: use ISO 8601, e.g. 2026-11-30 or "
            "2026-11-30T09:00:00Z."
        ) from None


def read_jsonl(source: str) -> list[dict[str, Any]]:
    """Entries from a JSON Lines file (or '-' for stdin). Any bad line fails the batch."""
    if source == "-":
        data = sys.stdin.buffer.read()
        name = "stdin"
    else:
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise InvalidInput(f"Cannot read {source}: {exc.strerror}.") from None
        name = source
    entries = []
    data = data.removeprefix(b"\xef\xbb\xbf")  # a BOM, as Windows editors write
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInput(
                f"{name}, line {number}: not valid UTF-8. Nothing was appended."
            ) from None
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(
                f"{name}, line {number}: malformed JSON ({exc.msg}). Nothing was appended."
            ) from None
        if not isinstance(item, dict):
            raise InvalidInput(f"{name}, line {number}: each line must be a JSON object.")
        entries.append(item)
    return entries


@click.group()
def tape() -> None:
    """The tape: every message, tool call and event, append-only."""


@tape.command("append")
@click.option("--agent", required=True, help="The agent whose tape this is.")
@click.option("--thread", help="Thread (conversation/session) id.")
@click.option("--turn", help="Turn id: the entries of one input-to-output turn share it.")
@click.option("--kind", type=click.Choice(KINDS), default="message", show_default=True)
@click.option("--role", type=click.Choice(ROLES))
@click.option("--user", help="The person the agent works for in this thread.")
@click.option("--text", "body", help="The entry's text.")
@click.option(
    "--jsonl",
    "jsonl",
    metavar="FILE",
    help="Append a batch from a JSON Lines file ('-' for stdin), in one transaction.",
)
@click.option(
    "--key",
    help="A key of yours for the entry (a batch's lines: source_key), unique on the tape: "
    "an entry whose key is already there is not stored again. Without one, each entry "
    "gets a key of this call, so the call's own retry is safe.",
)
@json_option
@pass_state
def append(
    state: State,
    agent: str,
    thread: str | None,
    turn: str | None,
    kind: str,
    role: str | None,
    user: str | None,
    body: str | None,
    jsonl: str | None,
    key: str | None,
) -> None:
    """Append one entry (--text) or a batch (--jsonl); prints the new entry ids (or, for
    entries whose key was already on the tape, the ids they got then)."""
    if jsonl is not None:
        if body is not None:
            raise InvalidInput("Give either --text or --jsonl, not both.")
        entries: list[dict[str, Any]] = read_jsonl(jsonl)
        for e in entries:  # flags give defaults for fields a line leaves out
            for key, value in (("thread", thread), ("turn", turn), ("user", user)):
                if value is not None:
                    e.setdefault(key, value)
    else:
        if body is None or thread is None or role is None:
            raise InvalidInput(
                "A single entry needs --thread, --role and --text (or use --jsonl FILE)."
            )
        entries = [
            {"thread": thread, "turn": turn, "kind": kind, "role": role, "text": body, "user": user}
        ]
        if key is not None:
            entries[0]["source_key"] = key
    call = f"cli:{uuid.uuid4().hex}"  # through a host, a lost answer is sent again safely
    for n, e in enumerate(entries):
        if isinstance(e, dict) and not e.get("source_key"):
            e["source_key"] = f"{call}:{n}"
    # The person at the command line is the owner: their text is redacted, never refused.
    result = state.engine(vault="text").append(agent, entries, actor="owner")
    if state.as_json:
        answer: dict[str, Any] = {"ids": result.ids, "skipped": result.skipped}
        if result.existing:
            answer["existing"] = result.existing  # the ids the first call with these keys got
        emit_json(answer)
    else:
        click.echo(appended(agent, entries, result.ids, result.skipped, result.existing))


def appended(
    agent: str,
    entries: list[dict[str, Any]],
    ids: tuple[int, ...],
    skipped: int,
    existing: tuple[int, ...] = (),
) -> str:
    """What `tape append` did, with the new ids a `--source` cites (for a key already on
    the tape, the id its entry got then)."""
    if len(entries) == 1 and existing and not ids:
        return (
            f"Entry {existing[0]} is already on the tape of {agent}: it was appended before "
            "with this key, and nothing new was written."
        )
    if len(entries) == 1 and ids:
        e = entries[0]
        turn = f", turn {e['turn']}" if e.get("turn") else ""
        return f"Appended entry {ids[0]} to the tape of {agent} (thread {e['thread']}{turn})."
    said = ", ".join(str(i) for i in ids) if len(ids) <= 10 else f"{ids[0]}…{ids[-1]}"
    line = f"Appended {counted(len(ids), 'entry', 'entries')} to the tape of {agent}" + (
        f": {said}." if ids else "."
    )
    if skipped:
        were = "was" if skipped == 1 else "were"
        line += (
            f" {counted(skipped, 'entry', 'entries')} already on the tape (same keys, appended "
            f"before) {were} skipped."
        )
    return line


@tape.command("show")
@click.option("--agent", required=True)
@click.option("--thread")
@click.option("--turn")
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(KINDS),
    help="Only these kinds (repeatable).",
)
@click.option("--since", help="From this time on (ISO 8601).")
@click.option("--until", help="Up to this time (ISO 8601).")
@click.option(
    "--around",
    type=int,
    metavar="ENTRY_ID",
    help="The --limit entries of that entry's thread nearest to it, the entry among them.",
)
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--full", is_flag=True, help="Print whole texts instead of one line each.")
@json_option
@pass_state
def show(
    state: State,
    agent: str,
    thread: str | None,
    turn: str | None,
    kinds: tuple[str, ...],
    since: str | None,
    until: str | None,
    around: int | None,
    limit: int,
    full: bool,
) -> None:
    """Show an agent's tape, oldest first (the latest LIMIT unless --since)."""
    entries = state.engine().tape(
        agent,
        thread=thread,
        turn=turn,
        kinds=list(kinds) or None,
        since=parse_time(since, "--since"),
        until=parse_time(until, "--until"),
        around=around,
        limit=limit,
    )
    if state.as_json:
        emit_json(entries)
        return
    if full:
        for e in entries:
            mark = " (erased)" if e.erased else ""
            click.echo(
                f"#{e.id} [{e.thread}/{e.turn or '-'}] {e.kind} {e.role} "
                f"{short_time(e.created_at)}{mark}"
            )
            click.echo(printable(e.text, keep_newlines=True))
            click.echo()
        return
    table(
        ["ID", "TIME", "THREAD", "TURN", "KIND", "ROLE", "TEXT"],
        [
            [
                e.id,
                short_time(e.created_at),
                e.thread,
                e.turn or "-",
                e.kind,
                e.role,
                "(erased)" if e.erased else e.text,
            ]
            for e in entries
        ],
    )


@tape.command("erase")
@click.argument("entry_id", type=int)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
@pass_state
def erase(state: State, entry_id: int, yes: bool) -> None:
    """Erase an entry's content (privacy); its hash stays as a tombstone."""
    engine = state.engine()
    shown = engine.entry(entry_id)  # NotFound before asking
    if not shown.erased:
        question = (
            f"Erase the content of entry {entry_id} ({shown.thread}: {clip(shown.text, 40)})?"
        )
        ask_first(f"{question} This cannot be undone", yes=yes)
    entry = engine.erase_entry(entry_id)
    if state.as_json:
        emit_json(entry)
    else:
        click.echo(f"Erased entry {entry.id}; its content hash {entry.content_hash[:12]}… is kept.")


def register(cli: click.Group) -> None:
    cli.add_command(tape)
