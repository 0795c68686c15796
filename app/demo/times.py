"""The demo's times: written for one day in `demo.json`, moved to just before now."""

from __future__ import annotations

import re
from datetime import timedelta

from app.clock import from_iso

# Digits around, not word boundaries: "在2026-11-05说" has none (CJK is a word character).
_DATE = re.compile(r"(?<!\d)20\d\d-[01]\d-[0-3]\d(?!\d)")


def shift_dates(text: str, shift: timedelta) -> str:
    """`text` with each ISO date in it moved by `shift`, as the demo's times are: a reason
    that cites "2026-09-02" then names the day its evidence on the tape shows."""

    def moved(match: re.Match[str]) -> str:
        noon = from_iso(f"{match[0]}T12:00:00Z") + shift
        return noon.date().isoformat()

    return _DATE.sub(moved, text)
