"""A batch made ready to store, before the write lock is taken.

Everything that costs time in proportion to the text happens here, outside the home's
write lock: taking the vault's values out (`app.vault.echoes.screen`, which refuses an
agent's write that holds a value it was never given), replacing credential-looking text
with ``[credential: KIND]`` (unless the owner turned that off for the agent), hashing,
and the full-text terms. Inside the lock only the rows are inserted, so one agent's
megabyte cannot make every other writer wait. What one agent call may index is bounded
(`app.limits.MAX_APPEND_TERMS`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.errors import InvalidInput
from app.limits import MAX_APPEND_ENTRIES, MAX_APPEND_TERMS
from app.models import NewEntry
from app.runtime import AgentRef, Runtime, settings_of
from app.text import entry_hash, text_terms
from app.vault import echoes, redact_credentials

# A random 32-character id is a fine thread name: only unmistakable credentials are
# taken out of labels.
_LABEL_KEEPS = ("high-entropy token", "password")


@dataclass(frozen=True)
class Ready:
    """An entry as it will be stored: redacted text and meta, hash and full-text terms."""

    entry: NewEntry
    meta_json: str | None
    content_hash: str
    terms: tuple[str, ...]


def ready(entry: NewEntry) -> Ready:
    """An entry whose text is already clean (the engine's own records), made ready."""
    meta = json.dumps(dict(entry.meta), ensure_ascii=False) if entry.meta else None
    return Ready(entry, meta, entry_hash(entry.text), tuple(text_terms(entry.text)))


def _strings(value: Any, fn: Callable[[str], str]) -> Any:
    """`value` (JSON-like) with `fn` applied to every string in it, keys included."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, Mapping):
        return {fn(str(k)): _strings(v, fn) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strings(v, fn) for v in value]
    return value


_LABELS = ("thread", "turn", "user", "source_key")


def _texts(e: NewEntry) -> list[str]:
    """Every string of an entry, in the order `_rebuilt` puts them back."""
    out = [e.text, *(getattr(e, f) or "" for f in _LABELS)]

    def collect(text: str) -> str:
        out.append(text)
        return text

    if e.meta:
        _strings(dict(e.meta), collect)
    return out


def _rebuilt(e: NewEntry, strings: Iterator[str]) -> NewEntry:
    text = next(strings)
    thread, turn, user, source_key = (next(strings) or None for _ in _LABELS)
    meta = _strings(dict(e.meta), lambda _t: next(strings)) if e.meta else e.meta
    return replace(
        e, text=text, meta=meta, thread=thread or e.thread, turn=turn, user=user,
        source_key=source_key,
    )  # fmt: skip


def _without_credentials(e: NewEntry) -> NewEntry:
    def label(value: str | None) -> str | None:
        return redact_credentials(value, keep=_LABEL_KEEPS)[0] if value else value

    return replace(
        e,
        text=redact_credentials(e.text)[0],
        meta=_strings(dict(e.meta), lambda t: redact_credentials(t)[0]) if e.meta else e.meta,
        thread=label(e.thread) or e.thread,
        turn=label(e.turn),
        user=label(e.user),
        source_key=label(e.source_key),
    )


def prepare(
    rt: Runtime, arow: AgentRef, items: Sequence[NewEntry], actor: str, *, bounded: bool = False
) -> list[Ready]:
    """`items` made ready to store as agent `arow`'s (see the module doc). `bounded`: an
    agent's call over MCP, held to what one such write may carry (a local program's or the
    owner's bulk append is not). Raises InvalidInput for a bounded call over the limits,
    SecretEcho or WritesBlocked (app.vault.echoes)."""
    if bounded and len(items) > MAX_APPEND_ENTRIES:
        raise InvalidInput(
            f"{len(items)} entries in one append, over the limit of {MAX_APPEND_ENTRIES}: "
            "append them in several calls."
        )
    flat = [_texts(e) for e in items]
    clean = iter(echoes.screen(rt, arow.id, arow.name, [t for f in flat for t in f], actor=actor))
    entries = [_rebuilt(e, clean) for e in items]
    if settings_of(arow).redact_credentials:
        entries = [_without_credentials(e) for e in entries]
    out = []
    total = 0
    for e in entries:
        terms = tuple(text_terms(e.text))
        total += len(terms)
        meta = json.dumps(dict(e.meta), ensure_ascii=False) if e.meta else None
        out.append(Ready(e, meta, entry_hash(e.text), terms))
    if bounded and total > MAX_APPEND_TERMS:
        raise InvalidInput(
            f"This append would index {total} full-text terms, over the {MAX_APPEND_TERMS} "
            "one call may index: append its entries in several calls (all of them are "
            "kept; nothing was stored yet)."
        )
    return out
