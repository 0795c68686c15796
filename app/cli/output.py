"""Printing results: readable tables for people, JSON for scripts.

Tables measure text in terminal cells (a Chinese character takes two), so
columns line up in both languages.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import click

from app import to_json


def emit_json(value: Any) -> None:
    click.echo(json.dumps(to_json(value), ensure_ascii=False, indent=2))


# Bidirectional overrides and isolates: text an agent or an import wrote could reorder
# what the owner sees on the rest of the line.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def printable(text: str, *, keep_newlines: bool = False) -> str:
    """`text` safe to print on a terminal: control characters (escape sequences, NUL...)
    become U+FFFD and bidirectional controls are dropped, so stored text can neither
    drive the terminal nor reorder the owner's view of it."""
    out = []
    for ch in text:
        if ch in _BIDI:
            continue
        if keep_newlines and ch in "\n\t":
            out.append(ch)
        elif unicodedata.category(ch) == "Cc":
            out.append("\ufffd")
        else:
            out.append(ch)
    return "".join(out)


def _cells(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0  # accents and zero-width characters join the cell before them
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def width(text: str) -> int:
    return sum(_cells(ch) for ch in text)


def clip(text: str, cells: int) -> str:
    """Cut `text` to at most `cells` terminal cells, on one line, safe to print."""
    text = printable(" ".join(text.split()))
    if width(text) <= cells:
        return text
    out, used = [], 0
    for ch in text:
        w = width(ch)
        if used + w > cells - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def short_time(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, max_cell: int = 60) -> None:
    if not rows:
        click.echo("(none)")
        return
    cells = [[clip("" if v is None else str(v), max_cell) for v in row] for row in rows]
    widths = [max(width(h), *(width(r[i]) for r in cells)) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v + " " * (w - width(v)) for v, w in zip(values, widths, strict=True))

    click.echo(line(headers).rstrip())
    click.echo("  ".join("─" * w for w in widths))
    for row in cells:
        click.echo(line(row).rstrip())


def fields(pairs: Sequence[tuple[str, Any]]) -> None:
    """Key: value lines for one record."""
    label_width = max(width(k) for k, _ in pairs)
    for key, value in pairs:
        text = "-" if value is None or value == "" else printable(str(value), keep_newlines=True)
        click.echo(f"{key}{' ' * (label_width - width(key))}  {text}")


def error(message: str, code: str, as_json: bool) -> None:
    if as_json:
        sys.stderr.write(json.dumps({"error": code, "message": message}, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"error: {message}\n")


def counted(n: int, one: str, many: str | None = None) -> str:
    """ "1 memory", "2 memories", "0 entries": a count with its noun in the right number
    (`many` defaults to `one` + "s")."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def times(n: int) -> str:
    """ "once", "2 times": how often something happened."""
    return "once" if n == 1 else f"{n} times"
