"""Process settings for the desktop app, made before its QApplication exists."""

from __future__ import annotations

import os

from app.host.gil import shorten_switch_interval


def prepare_gui_process() -> None:
    """Settings that keep the GUI thread from waiting on other threads.

    QT_NO_GUI_THREADPOOL (read by Qt once): Qt's raster engine splits every fill
    taller than about 96 pixels (a table's background, a scroll bar's groove)
    across a pool of threads and the GUI thread waits on a latch until each
    piece is done. When the app's own workers or other programs kept the cores
    busy, that wait lasted longer than the fill: a repaint of the memory table
    made 20-25 such waits, on top of ~5 ms of its own work. The fills are small
    enough to do on the GUI thread. The owner's own setting wins.

    The GIL switch interval: while a worker formats a page of rows in Python,
    the GUI thread waited up to 5 ms each time it needed the GIL (a scroll step
    at the bottom of the list calls the model's canFetchMore/fetchMore, a
    result slot runs); scroll steps that started a fetch reached 40-130 ms wall
    for ~9 ms of CPU, 30-40 ms at 1 ms (machine at load 3.5).
    """
    os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")
    shorten_switch_interval()
