"""Generic JSONL: one entry per line, ``{thread, turn?, kind?, role, text, time?, id?, meta?}``.

``kind`` defaults to ``message``. Without ``turn``, a new turn starts at each user message of
the thread. ``time`` is ISO-8601 (no zone means UTC) or Unix seconds/milliseconds. ``id``, when
given, makes the source key (``jsonl:<thread>:<id>``); otherwise the key is a hash of the
entry's fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.transfer.importers._common import (
    BatchBuilder,
    KeyMaker,
    TurnCounter,
    iter_json_lines,
    json_text,
    make_entry,
    parse_time,
)
from app.transfer.importers.model import KINDS, ROLES

# Names other tools use for the same roles, accepted so common exports load unchanged.
_ROLE_ALIASES = {
    "human": "user",
    "ai": "assistant",
    "bot": "assistant",
    "model": "assistant",
    "developer": "system",
    "function": "tool",
}


def read_file(path: Path, sink: BatchBuilder, turns: TurnCounter) -> None:
    """Read one generic JSONL file into ``sink``."""
    keys = KeyMaker("jsonl")
    for number, _raw, record in iter_json_lines(path, sink):
        if not isinstance(record, dict):
            sink.problem(number, "not a JSON object; skipped")
            continue
        error = _check(record)
        if error:
            sink.problem(number, f"{error}; skipped")
            continue
        thread = str(record["thread"])
        kind = record.get("kind") or "message"
        raw_role: str = record["role"]
        role = _ROLE_ALIASES.get(raw_role, raw_role)
        text: str = record["text"]
        if record.get("turn") not in (None, ""):
            turn = str(record["turn"])
            if role == "user" and kind == "message":
                turns.start(thread)  # keeps later turn-less lines of the thread counting on
        elif role == "user" and kind == "message":
            turn = turns.start(thread)
        else:
            turn = turns.current(thread)
        created_at = parse_time(record.get("time"))
        if record.get("id") not in (None, ""):
            key = f"jsonl:{thread}:{record['id']}"
        else:
            fields = [thread, record.get("turn"), kind, role, text, record.get("time")]
            key = keys.key(thread, json_text(fields))
        meta: dict[str, Any] = dict(record["meta"]) if isinstance(record.get("meta"), dict) else {}
        sink.add(
            make_entry(
                thread=thread,
                turn=turn,
                kind=kind,
                role=role,
                text=text,
                created_at=created_at,
                source_key=key,
                meta=meta,
            )
        )


def _check(record: dict[str, Any]) -> str | None:
    """Why ``record`` cannot be an entry, or None when it can."""
    thread = record.get("thread")
    if not isinstance(thread, str | int) or isinstance(thread, bool) or thread == "":
        return "missing 'thread'"
    role = record.get("role")
    if not isinstance(role, str) or _ROLE_ALIASES.get(role, role) not in ROLES:
        return f"'role' must be one of {', '.join(sorted(ROLES))}"
    if not isinstance(record.get("text"), str):
        return "missing 'text'"
    kind = record.get("kind")
    if kind is not None and (not isinstance(kind, str) or kind not in KINDS):
        return f"'kind' must be one of {', '.join(sorted(KINDS))}"
    if record.get("time") is not None and parse_time(record["time"]) is None:
        return "'time' is not an ISO-8601 time or a Unix timestamp"
    return None
