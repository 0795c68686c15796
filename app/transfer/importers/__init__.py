"""Read existing agent histories into plain tape entries (``tapemind import-history``).

Formats: ``claude-code`` (Claude Code session JSONL), ``codex`` (Codex CLI rollout JSONL),
``chatgpt`` (a ChatGPT export's ``conversations.json``) and ``jsonl`` (one entry per line).
The readers never write anything; the engine appends what they return, skipping entries whose
``source_key`` it already holds, so importing twice adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.transfer.importers import chatgpt, claude_code, codex, generic_jsonl
from app.transfer.importers._common import BatchBuilder, TurnCounter
from app.transfer.importers.model import KINDS, ROLES, ImportBatch, ImportedEntry, ImportProblem

__all__ = [
    "FORMATS",
    "KINDS",
    "ROLES",
    "ImportBatch",
    "ImportProblem",
    "ImportedEntry",
    "file_patterns",
    "parse_history",
]

_Reader = Callable[[Path, BatchBuilder, TurnCounter], None]

# format -> (file name patterns tried in order when PATH is a directory, reader)
_READERS: dict[str, tuple[tuple[str, ...], _Reader]] = {
    "claude-code": (("*.jsonl",), claude_code.read_file),
    "codex": (("rollout-*.jsonl", "*.jsonl"), codex.read_file),
    "chatgpt": (("conversations*.json", "*.json", "*.zip"), chatgpt.read_file),
    "jsonl": (("*.jsonl",), generic_jsonl.read_file),
}
FORMATS: tuple[str, ...] = tuple(_READERS)


def parse_history(fmt: str, path: Path) -> ImportBatch:
    """Read the history at ``path`` (a file, or a directory searched recursively).

    Args:
        fmt: one of ``FORMATS``.
        path: a history file, or a directory of them (e.g. ``~/.claude/projects`` or
            ``~/.codex/sessions``).

    Returns:
        The entries in source order (files in sorted path order), the problems found (malformed
        lines and records are skipped, never fatal) and the number of threads.

    Raises:
        ValueError: ``fmt`` is not a known format.
        FileNotFoundError: ``path`` does not exist.
    """
    if fmt not in _READERS:
        raise ValueError(f"unknown history format {fmt!r}; choose one of {', '.join(FORMATS)}")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no history at {path}; give a file or a directory of files")
    patterns, reader = _READERS[fmt]
    sink = BatchBuilder()
    turns = TurnCounter()
    for file in _files(path, patterns):
        sink.path_label = str(file.relative_to(path)) if path.is_dir() else file.name
        try:
            reader(file, sink, turns)
        except OSError as exc:
            sink.problem(None, f"could not be read ({exc.strerror or exc}); skipped")
    sink.path_label = None
    return sink.build()


def file_patterns(fmt: str) -> tuple[str, ...]:
    """The file names a directory is searched for in format ``fmt`` (for messages)."""
    return _READERS[fmt][0]


def _files(path: Path, patterns: tuple[str, ...]) -> list[Path]:
    if path.is_file():
        return [path]
    for pattern in patterns:
        # A session file before the folder of its sub-agents (``<id>.jsonl``, ``<id>/...``).
        found = sorted(
            (p for p in path.rglob(pattern) if p.is_file()),
            key=lambda p: p.with_suffix("").parts,
        )
        if found:
            return found
    return []
