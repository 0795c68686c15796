"""Time as an injected dependency, so decay, snapshots and tests can move it."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol

from app.errors import InvalidInput


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock tests set and advance by hand."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def set(self, when: datetime) -> None:
        with self._lock:
            self._now = when

    def advance(self, **delta: float) -> datetime:
        with self._lock:
            self._now += timedelta(**delta)
            return self._now


def to_iso(when: datetime) -> str:
    """Stored form of a time: UTC, microseconds, 'Z' suffix; sorts as text."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    utc = when.astimezone(UTC)
    # Not strftime("%Y"): glibc does not zero-pad years before 1000, and
    # "907-06-20…" would neither parse back nor sort as text.
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:"
        f"{utc.second:02d}.{utc.microsecond:06d}Z"
    )


def check_window(since: datetime | None, until: datetime | None) -> None:
    """Refuse a time window that ends before it starts: it would match nothing, silently."""
    if since is not None and until is not None and to_iso(since) > to_iso(until):
        raise InvalidInput(
            f"since ({to_iso(since)[:19]}Z) is after until ({to_iso(until)[:19]}Z): nothing "
            "can match. Swap them."
        )


def from_iso(text: str) -> datetime:
    """Parse a stored or user-given ISO time; naive times are taken as UTC."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def from_iso_or_none(text: str | None) -> datetime | None:
    """`from_iso` for optional stored times (NULL columns)."""
    return from_iso(text) if text else None
