"""Helpers shared by the format readers: reading lines, times, keys, turns, truncation."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.transfer.importers.model import ImportBatch, ImportedEntry, ImportProblem

# A single entry above this is cut: tool outputs (whole files, logs) can be many megabytes and
# the tape is for evidence a person or a distiller reads, not for bulk storage.
MAX_TEXT_BYTES = 1024 * 1024
_BOM = b"\xef\xbb\xbf"


class BatchBuilder:
    """Collects entries and problems across files; drops entries whose key was already seen.

    Histories repeat themselves (a resumed Claude Code session copies earlier lines, a ChatGPT
    export can list a conversation twice), and ``source_key`` must be unique per batch.
    """

    def __init__(self) -> None:
        self._entries: list[ImportedEntry] = []
        self._keys: set[str] = set()
        self._problems: list[ImportProblem] = []
        self.path_label: str | None = None
        # State a format keeps across the files of one batch (a Claude Code title line can
        # name a session stored in another file), keyed by format name.
        self.scratch: dict[str, Any] = {}

    def add(self, entry: ImportedEntry) -> bool:
        """Keep ``entry`` unless an entry with the same source key was kept before."""
        if entry.source_key in self._keys:
            return False
        self._keys.add(entry.source_key)
        self._entries.append(entry)
        return True

    def problem(self, line: int | None, message: str) -> None:
        """Record that something was skipped; ``message`` never quotes the skipped content."""
        where = f"{self.path_label}: " if self.path_label else ""
        at = f"line {line}: " if line is not None else ""
        self._problems.append(ImportProblem(line, f"{where}{at}{message}", self.path_label))

    def build(self) -> ImportBatch:
        """Freeze what was collected."""
        threads = len({e.thread for e in self._entries})
        return ImportBatch(tuple(self._entries), tuple(self._problems), threads)


class TurnCounter:
    """Numbers the real user inputs of each thread; entries before the first get turn 0."""

    def __init__(self) -> None:
        self._count: dict[str, int] = {}

    def start(self, thread: str) -> str:
        """A real user input: open the next turn of ``thread`` and return its id."""
        n = self._count.get(thread, 0) + 1
        self._count[thread] = n
        return f"{thread}:{n}"

    def current(self, thread: str) -> str:
        """The id of the turn ``thread`` is in now."""
        return f"{thread}:{self._count.get(thread, 0)}"


class KeyMaker:
    """Stable keys for sources whose records carry no id: a content hash plus an occurrence.

    The occurrence count keeps two identical records (the user typing "continue" twice in a
    format without timestamps) apart, and stays the same when the file only grows.
    """

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._seen: dict[str, int] = {}

    def key(self, thread: str, content: str) -> str:
        """The key for the next record of ``thread`` with this exact content."""
        digest = hashlib.sha256(f"{thread}\n{content}".encode()).hexdigest()[:24]
        n = self._seen.get(digest, 0)
        self._seen[digest] = n + 1
        return f"{self._prefix}:{thread}:{digest}" + (f":{n}" if n else "")


def iter_json_lines(path: Path, sink: BatchBuilder) -> Iterator[tuple[int, str, Any]]:
    """Yield ``(line number, raw text, parsed JSON)`` for each good line of a JSONL file.

    Blank lines are ignored; lines that are not UTF-8 or not JSON become problems.
    """
    with path.open("rb") as fh:
        for number, chunk in enumerate(fh, start=1):
            if number == 1 and chunk.startswith(_BOM):
                chunk = chunk[len(_BOM) :]
            chunk = chunk.strip()
            if not chunk:
                continue
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError:
                sink.problem(number, "not valid UTF-8; skipped")
                continue
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                sink.problem(number, f"not valid JSON ({exc.msg}); skipped")
                continue
            yield number, text, value


def parse_time(value: Any) -> datetime | None:
    """An ISO-8601 string or Unix seconds (or milliseconds) as an aware UTC time, else None.

    A time without a zone is taken as UTC, which is how these tools write their logs.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        seconds = float(value)
        if seconds > 1e11:  # milliseconds since the epoch
            seconds /= 1000.0
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value.strip():
        text = value.strip()
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            return None
        if parsed.tzinfo is None:
            return parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC)
    return None


def json_text(value: Any) -> str:
    """Compact JSON that keeps Chinese readable (no ``\\uXXXX`` escapes)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def small_meta(meta: Mapping[str, Any]) -> dict[str, Any]:
    """Keep only JSON scalars (strings cut to 300 characters); drop None values."""
    out: dict[str, Any] = {}
    for key, value in meta.items():
        if value is None:
            continue
        if isinstance(value, str):
            out[key] = value[:300]
        elif isinstance(value, bool | int | float):
            out[key] = value
    return out


def make_entry(
    *,
    thread: str,
    turn: str,
    kind: str,
    role: str,
    text: str,
    created_at: datetime | None,
    source_key: str,
    meta: Mapping[str, Any] | None = None,
) -> ImportedEntry:
    """Build an entry, cutting text above ``MAX_TEXT_BYTES`` and noting it in ``meta``."""
    clean = small_meta(meta or {})
    encoded = text.encode("utf-8", errors="replace")
    if len(encoded) > MAX_TEXT_BYTES:
        # errors="ignore" drops a multi-byte character split by the cut, never a whole line.
        text = encoded[:MAX_TEXT_BYTES].decode("utf-8", errors="ignore")
        clean["truncated"] = True
        clean["original_bytes"] = len(encoded)
    return ImportedEntry(
        thread=thread,
        turn=turn,
        kind=kind,
        role=role,
        text=text,
        created_at=created_at,
        source_key=source_key,
        meta=clean,  # a plain dict, so json.dumps(entry.meta) works as is
    )


def as_str(value: Any) -> str | None:
    """``value`` if it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None
