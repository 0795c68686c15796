"""What every page shares: the engine, the worker pools, the event bridge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from .bridge import EngineBridge
from .workers import Runner


class Navigator(QObject):
    """Cross-page requests: open a page, optionally with filters or a target."""

    page_requested = Signal(str, dict)  # page name, arguments


@dataclass
class AppContext:
    engine: Any  # app.Engine (typed loosely: the UI probes for features with hasattr)
    runner: Runner
    bridge: EngineBridge
    nav: Navigator

    def has(self, *methods: str) -> bool:
        """Whether this engine offers all of `methods` (features land one by one)."""
        return all(callable(getattr(self.engine, m, None)) for m in methods)
