"""Giving a window the keyboard focus in the offscreen platform, as the owner's click would."""

from __future__ import annotations

from typing import Any


def activate(qtbot: Any, window: Any) -> None:
    """Make `window` the active window and wait until it is. Without a window manager
    (offscreen) a request made before the window is exposed can be dropped, and
    activation drifts between page reloads: ask again until it holds."""

    def active() -> bool:
        if not window.isActiveWindow():
            window.activateWindow()
        return bool(window.isActiveWindow())

    qtbot.waitUntil(active)
