"""What every page shares: the engine, the worker pools, the event bridge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from .bridge import EngineBridge
from .workers import Runner

if TYPE_CHECKING:
    from app import Engine


class Navigator(QObject):
    """Cross-page requests: open a page, optionally with filters or a target."""

    page_requested = Signal(str, dict)  # page name, arguments
    notice = Signal(str)  # a sentence for the status bar (maintenance archived…, a port moved)


@dataclass
class AppContext:
    engine: Engine
    runner: Runner
    bridge: EngineBridge
    nav: Navigator
