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
from datetime import datetime

from .clock import from_iso


def effective_half_life_days(half_life_days: float, importance: float, use_count: int) -> float:
    return half_life_days * (0.5 + importance) * (1.0 + 0.25 * math.log1p(max(0, use_count)))


def anchor_time(created_at: str, *others: str | None) -> datetime:
    """The last time the memory was reinforced (stored ISO strings)."""
    return from_iso(max([created_at, *[o for o in others if o]]))


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


def days_until(
    threshold: float, current: float, half_life_days: float, importance: float, use_count: int = 0
) -> float:
    """Days until a memory of strength `current` decays to `threshold` (0 if already)."""
    if current <= threshold:
        return 0.0
    half = effective_half_life_days(half_life_days, importance, use_count)
    return half * math.log2(current / threshold)
