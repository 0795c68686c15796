"""A notice while the home opens, when that takes longer than a moment.

Opening is quick (the engine opens on a thread while Qt loads), except once after
an upgrade: a new database migration can re-index every row (about five seconds per
100,000 memories). Without a notice the owner would see nothing at all meanwhile,
since the window is built only once the engine is open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app import Engine
    from app.host.lock import HomeLock

    from .startup import EngineOpener

NOTICE_AFTER_S = 0.8  # shorter opens show nothing


def wait_for_home(
    opener: EngineOpener, after_s: float = NOTICE_AFTER_S
) -> tuple[Engine, HomeLock | None]:
    """`opener.result()`, showing a small notice window (events processed) if the
    home is not open after `after_s` seconds."""
    opener.join(after_s)
    if not opener.is_alive():
        return opener.result()
    from PySide6.QtCore import QEventLoop, Qt
    from PySide6.QtWidgets import QApplication, QLabel

    from .i18n import tr

    notice = QLabel(
        tr("Opening your Tapemind home…")
        + "\n"
        + tr("After an upgrade this can take a minute, once.")
    )
    notice.setObjectName("opening-notice")
    notice.setWindowFlags(Qt.WindowType.SplashScreen | Qt.WindowType.WindowStaysOnTopHint)
    notice.setAlignment(Qt.AlignmentFlag.AlignCenter)
    notice.setMargin(28)
    notice.show()
    try:
        while opener.is_alive():
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            opener.join(0.05)
    finally:
        notice.close()
        notice.deleteLater()
    return opener.result()
