"""Glyphs drawn before a table shows them: the first paint of a row stays cheap.

The first time a glyph is drawn in a font, Qt loads its outline, measures it
and rasterizes it (once for each of the four horizontal sub-pixel positions a
glyph can fall on); later paints copy it from the font engine's cache. Chinese
text meets new glyphs for a long time (thousands of characters in common use),
and a screenful of rows with ~600 new glyphs took ~20 ms to paint instead of
~5. `GlyphWarmer` draws the characters a widget will show, a few at a time
while the app is idle, into an image nobody sees: the common hanzi and ASCII
as soon as it starts, then each page of rows' new characters as it arrives.
"""

from __future__ import annotations

import contextlib
import functools
from collections import deque
from typing import Any

from PySide6.QtCore import QObject, QPointF, QTimer
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QWidget

SLICE_CHARS = 24  # a slice draws these in ~3 ms at most (all new), far less once cached
PAUSE_MS = 8  # between slices: the event loop stays free for input and paints
SUBPIXEL_POSITIONS = 4  # Qt's FreeType engine caches a glyph per quarter pixel
CJK_PUNCTUATION = "，。、：；！？（）《》“”‘’【】…—·"


@functools.cache
def common_characters() -> str:
    """Printable ASCII, CJK punctuation and the 3,755 most common hanzi (GB 2312 level 1)."""
    hanzi = []
    for row in range(0xB0, 0xD8):
        for cell in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):  # the last row is short
                hanzi.append(bytes((row, cell)).decode("gb2312"))
    return "".join(chr(c) for c in range(0x21, 0x7F)) + CJK_PUNCTUATION + "".join(hanzi)


class _Canvas(QWidget):
    """Never shown: rendered into an image so that text is drawn exactly as a
    widget draws it (a QImage target would fill a different glyph cache)."""

    def __init__(self) -> None:
        super().__init__()
        self.text = ""
        self.resize(SLICE_CHARS * 2 * 40, 48)

    def paintEvent(self, _event: Any) -> None:
        painter = QPainter(self)
        for k in range(SUBPIXEL_POSITIONS):
            painter.drawText(QPointF(2 + k / SUBPIXEL_POSITIONS, 32), self.text)
        painter.end()


class GlyphWarmer(QObject):
    """Draws queued characters in `widget`'s font, a slice per idle moment."""

    def __init__(self, widget: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._widget = widget
        self._seen: set[str] = set()
        self._queue: deque[str] = deque()
        self._canvas: _Canvas | None = None
        self._image: QImage | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(PAUSE_MS)
        self._timer.timeout.connect(self._slice)

    @property
    def pending(self) -> int:
        """Characters queued and not drawn yet."""
        return sum(len(s) for s in self._queue)

    @property
    def drawn(self) -> frozenset[str]:
        """Characters drawn or queued so far."""
        return frozenset(self._seen)

    def add(self, text: str) -> None:
        """Queue the characters of `text` not drawn (or queued) before."""
        new = [ch for ch in dict.fromkeys(text) if ch not in self._seen and not ch.isspace()]
        if not new:
            return
        self._seen.update(new)
        for i in range(0, len(new), SLICE_CHARS):
            self._queue.append("".join(new[i : i + SLICE_CHARS]))
        if not self._timer.isActive():
            self._timer.start()

    def _slice(self) -> None:
        if not self._queue:
            self._timer.stop()
            return
        if self._canvas is None:
            self._canvas = _Canvas()
            self._image = QImage(self._canvas.size(), QImage.Format.Format_ARGB32_Premultiplied)
        assert self._image is not None  # made together with the canvas
        self._canvas.setFont(self._widget.font())
        self._canvas.text = self._queue.popleft()
        self._canvas.render(self._image)
        if not self._queue:
            self._timer.stop()  # all drawn: no more wake-ups until new text comes

    def close(self) -> None:
        self._timer.stop()
        if self._canvas is not None:
            self._canvas.deleteLater()
            self._canvas = None
