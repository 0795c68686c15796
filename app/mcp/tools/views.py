"""What an agent reads of memories and tape entries in `search`, `tape` and `remember` answers.

Several clients (Claude Code among them) give the model the JSON of a tool's result, so
every field costs tokens at every call. A hit carried the whole memory record: its owner
(always the caller), a 64-character content hash, every counter and timestamp, nulls:
~250 tokens around a 25-character text. Here a record keeps what helps an agent reason and
cite (ids, text, category, status, thread, user, times, importance, versions), and a tape
entry's text is cut at `max_chars` (one pasted log could be 300,000 characters), saying so
and how to read the rest. `memory(id)` still gives a memory's full detail.
"""

from __future__ import annotations

from typing import Any

TEXT_CHARS = 4000  # a tape entry's text in an answer, unless the agent asks for more
TEXT_CHARS_MIN = 100  # the least an agent may ask for
MAX_ANSWER_CHARS = 4 * 1024 * 1024  # the text of all entries of one answer
_NOT_FOR_AGENTS = frozenset({"agent", "content_hash"})


def lean(record: dict[str, Any]) -> dict[str, Any]:
    """`record` without what the agent does not need: its own name, the content hash,
    empty values (null, {}, false flags read as absent)."""
    return {
        k: v
        for k, v in record.items()
        if k not in _NOT_FOR_AGENTS and v is not None and v != {} and v is not False
    }


def entry_view(entry: dict[str, Any], max_chars: int = TEXT_CHARS) -> dict[str, Any]:
    """A tape entry as an agent reads it, its text cut at `max_chars` characters."""
    view = lean(entry)
    text = view.get("text") or ""
    if len(text) > max_chars:
        view["text"] = text[:max_chars]
        view["truncated"] = (
            f"{max_chars} of {len(text)} characters shown; read it whole with "
            f"tape(around={entry['id']}, limit=1, max_chars={len(text)})"
        )
    return view
