"""Qt settings that must be in place before the QApplication exists."""

from __future__ import annotations

import os


def prepare_qt_environment() -> None:
    """Settings of the process's environment that Qt reads once, at start.

    QT_NO_GUI_THREADPOOL: Qt's raster engine splits every fill taller than
    about 96 pixels (a table's background, a scroll bar's groove) across a
    pool of threads and the GUI thread waits on a latch until each piece is
    done. When the app's own workers or other programs keep the cores busy,
    that wait lasted longer than the fill itself: a repaint of the memory
    table made 20-25 such waits, on top of ~5 ms of its own work. The fills
    are small enough to do on the GUI thread, which then never waits for
    another thread to be scheduled while it paints. The owner's own setting
    wins.
    """
    os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")
