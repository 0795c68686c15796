"""What a tape entry may hold: the checks on what callers send, before anything is stored.

Every refusal names the entry and the field and says what is wrong, never the value
sent: an error is shown to an agent and may be logged, and the value could be anything
(a pasted credential, a megabyte of text).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from app.clock import from_iso, to_iso
from app.errors import InvalidInput
from app.limits import MAX_ENTRY_CHARS, MAX_LABEL_CHARS
from app.models import KINDS, ROLES, NewEntry

ENTRY_FIELDS = frozenset(
    {"thread", "turn", "kind", "role", "text", "user", "created_at", "time", "meta", "source_key"}
)
# Line breaks and other control or format characters: a label is one line of plain text,
# and a label with a line break could pass for the structure of what shows it.
_FIELD = re.compile(r"^[a-z][a-z_]{0,23}$")
_NOT_IN_LABELS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\ufeff]")


def encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def label(value: Any, name: str, where: str, *, required: bool) -> str | None:
    """A thread/turn/user label, or InvalidInput saying what is wrong with it."""
    if value is None or value == "":
        if required:
            raise InvalidInput(f"{where}: '{name}' is required.")
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInput(f"{where}: '{name}' must be a string.")
    out = str(value)
    if not encodable(out):
        raise InvalidInput(f"{where}: '{name}' is not valid Unicode (a lone surrogate).")
    if len(out) > MAX_LABEL_CHARS:
        raise InvalidInput(f"{where}: '{name}' is longer than {MAX_LABEL_CHARS} characters.")
    if _NOT_IN_LABELS.search(out):
        raise InvalidInput(
            f"{where}: '{name}' holds a line break or another control character: a label "
            "is one line of plain text, such as a conversation id."
        )
    return out


def _time(value: Any, where: str) -> datetime | None:
    """A user-given entry time as an aware datetime that SQLite text can hold."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = from_iso(value)
        except ValueError:
            raise InvalidInput(
                f"{where}: time is not an ISO 8601 time (e.g. 2026-11-30T09:00:00Z)."
            ) from None
        except OverflowError:
            raise InvalidInput(f"{where}: time is out of range.") from None
    elif not isinstance(value, datetime):
        raise InvalidInput(f"{where}: time must be an ISO 8601 string.")
    when: datetime = value
    try:
        to_iso(when)
    except (ValueError, OverflowError):
        raise InvalidInput(f"{where}: time is out of range.") from None
    return when


def _meta(value: Any, where: str) -> Mapping[str, Any] | None:
    """`meta` as an object that stores as strict JSON, or InvalidInput."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidInput(f"{where}: 'meta' must be an object.")
    try:
        json.dumps(dict(value), ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError, RecursionError):
        raise InvalidInput(
            f"{where}: 'meta' is not storable as JSON (only strings, numbers, booleans, "
            "null, lists and objects, no NaN, valid Unicode)."
        ) from None
    return value


def _fields(raw: NewEntry | Mapping[str, Any], where: str) -> dict[str, Any]:
    if isinstance(raw, NewEntry):
        return {
            "thread": raw.thread,
            "turn": raw.turn,
            "kind": raw.kind,
            "role": raw.role,
            "text": raw.text,
            "user": raw.user,
            "created_at": raw.created_at,
            "meta": raw.meta,
            "source_key": raw.source_key,
        }
    if not isinstance(raw, Mapping):
        raise InvalidInput(f"{where}: must be an object with thread, kind, role and text.")
    data = dict(raw)
    if "content" in data and "text" not in data:
        data["text"] = data.pop("content")
    unknown = [k for k in data if k not in ENTRY_FIELDS]
    if unknown:
        # A typo is named ("colour"); anything else might be a value put where a name goes.
        named = ", ".join(sorted(k for k in unknown if isinstance(k, str) and _FIELD.match(k)))
        raise InvalidInput(
            f"{where}: {len(unknown)} unknown field(s){f' ({named[:200]})' if named else ''}; "
            "an entry has thread, turn, kind, role, text (and optional user, time, meta)."
        )
    if "time" in data and "created_at" not in data:
        data["created_at"] = data.pop("time")
    return data


def _text(body: Any, where: str) -> str:
    if not isinstance(body, str):
        raise InvalidInput(f"{where}: 'text' must be a string.")
    if not encodable(body):
        raise InvalidInput(
            f"{where}: 'text' is not valid Unicode (it holds a lone surrogate); send UTF-8."
        )
    if len(body) > MAX_ENTRY_CHARS:
        raise InvalidInput(
            f"{where}: text is {len(body)} characters, over the limit of {MAX_ENTRY_CHARS} "
            "for one entry; split it, or store a summary and a pointer to the file."
        )
    return body


def coerce_entry(raw: NewEntry | Mapping[str, Any], index: int = 0) -> NewEntry:
    """Validate one entry (a NewEntry or a dict as in JSONL/MCP) or raise InvalidInput
    naming the entry and the field."""
    where = f"entry {index + 1}"
    data = _fields(raw, where)
    kind = data.get("kind") or "message"
    if not isinstance(kind, str) or kind not in KINDS:
        raise InvalidInput(f"{where}: kind is not one of {', '.join(KINDS)}.")
    role = data.get("role")
    if not isinstance(role, str) or role not in ROLES:
        what = "is missing: use" if role is None else "is not"
        raise InvalidInput(f"{where}: role {what} one of {', '.join(ROLES)}.")
    return NewEntry(
        thread=label(data.get("thread"), "thread", where, required=True) or "",
        turn=label(data.get("turn"), "turn", where, required=False),
        user=label(data.get("user"), "user", where, required=False),
        kind=kind,
        role=role,
        text=_text(data.get("text"), where),
        created_at=_time(data.get("created_at"), where),
        meta=_meta(data.get("meta"), where),
        source_key=label(data.get("source_key"), "source_key", where, required=False),
    )
