"""A date axis for trend plots whose month and weekday names follow the app's language.

pyqtgraph's DateAxisItem writes its ticks with strftime ("%b", "%a %d"), whose names come
from the C locale: English in a Chinese app. Here the names are put in the app's language.
"""

from __future__ import annotations

import re
from typing import Any

import pyqtgraph as pg

from .i18n import current_language

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_ZH = {
    **{name: f"{n}月" for n, name in enumerate(_MONTHS, 1)},
    **dict(zip(_WEEKDAYS, ("周一", "周二", "周三", "周四", "周五", "周六", "周日"), strict=True)),
}
_NAME = re.compile(r"\b(" + "|".join(_ZH) + r")\b")


def localise_tick(text: str, language: str) -> str:
    """A tick label with English month and weekday abbreviations in `language`."""
    if language != "zh":
        return text
    return _NAME.sub(lambda m: _ZH[m[1]], text)


class DateAxis(pg.DateAxisItem):  # type: ignore[misc]
    """pyqtgraph's date axis, with names in the app's language."""

    def tickStrings(self, values: Any, scale: Any, spacing: Any) -> list[str]:
        language = current_language()
        return [localise_tick(s, language) for s in super().tickStrings(values, scale, spacing)]
