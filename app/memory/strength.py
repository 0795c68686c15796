"""How strong a memory is now: exponential decay since it was last reinforced.

strength = 2 ** (-age / half_life), where
- age runs from the latest of: creation, last recall, last reported use, last
  duplicate reinforcement (every recall or use resets the clock);
- half_life = the agent's half-life x (0.5 + importance) x (1 + 0.25 ln(1 + uses)):
  important memories fade slower, and memories the agent actually used
  (reported with `used`) fade slower each time, as in spaced repetition.

Strength is 1.0 at the moment of reinforcement and 0.5 one half-life later.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from functools import lru_cache

from app.clock import from_iso


def effective_half_life_days(half_life_days: float, importance: float, use_count: int) -> float:
    return half_life_days * (0.5 + importance) * (1.0 + 0.25 * math.log1p(max(0, use_count)))


# Parsed stored times: `context` scores ~50 memories a call, whose anchors repeat (one
# recall stamps the same time on every memory it injected). datetimes are immutable.
_parse = lru_cache(maxsize=4096)(from_iso)


def anchor_time(created_at: str, *others: str | None) -> datetime:
    """The last time the memory was reinforced (stored ISO strings)."""
    return _parse(max([created_at, *[o for o in others if o]]))


def strength(
    now: datetime,
    anchor: datetime,
    half_life_days: float,
    importance: float,
    use_count: int = 0,
) -> float:
    age_days = max(0.0, (now - anchor).total_seconds() / 86400.0)
    half = effective_half_life_days(half_life_days, importance, use_count)
    return float(2.0 ** (-age_days / half))


def fade_days(
    half_life_days: float,
    importance: float,
    use_count: int,
    threshold: float,
    idle_days: float,
) -> float:
    """Days from the last reinforcement until a memory is an archive candidate.

    That is when its strength has fallen below `threshold` AND it has gone
    `idle_days` without a recall, use or reinforcement (the anchor above), so
    a memory with a short half-life is not archived the week it was written.
    """
    half = effective_half_life_days(half_life_days, importance, use_count)
    weak = half * math.log2(1.0 / threshold) if 0.0 < threshold < 1.0 else 0.0
    return max(weak, idle_days)


def fade_time(
    anchor: datetime,
    half_life_days: float,
    importance: float,
    use_count: int,
    threshold: float,
    idle_days: float,
) -> datetime:
    """When a memory last reinforced at `anchor` becomes an archive candidate.

    Stored as `memories.fade_at` so counting candidates is an indexed range query;
    consistent with `strength`: strength(fade_time) <= threshold.
    """
    days = fade_days(half_life_days, importance, use_count, threshold, idle_days)
    return anchor + timedelta(days=days)
