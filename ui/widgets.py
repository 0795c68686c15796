"""Small shared widgets: dashboard cards, empty states, section titles, formatting."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QMouseEvent
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QVBoxLayout, QWidget

from .i18n import tr


class Card(QFrame):
    """A dashboard number with a title and a note; a click opens the matching list."""

    clicked = Signal()

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("card")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setMinimumSize(140, 92)  # five across at 1024 wide
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 9, 14, 9)
        lay.setSpacing(2)
        self.title = QLabel(title)
        self.title.setObjectName("cardTitle")
        self.title.setWordWrap(True)  # a long title takes a second line, never clipped
        self.value = QLabel("…")
        self.value.setObjectName("cardValue")
        app = QApplication.instance()
        family = app.property("tapemind_number_family") if app is not None else None
        if family:
            font = self.value.font()
            font.setFamily(str(family))
            self.value.setFont(font)
        self.note = QLabel("")
        self.note.setObjectName("cardNote")
        self.note.setWordWrap(True)
        lay.addWidget(self.title)
        lay.addWidget(self.value)
        lay.addWidget(self.note)
        lay.addStretch(1)

    def show_value(self, value: object, note: str = "") -> None:
        self.value.setText(str(value))
        self.note.setText(note)

    def set_alert(self, on: bool) -> None:
        """Mark the card as wanting a look (a health figure that is not zero)."""
        if bool(self.property("alert")) == on:
            return
        for widget in (self, self.value):
            widget.setProperty("alert", on)
            widget.style().unpolish(widget)  # a dynamic property restyles only when re-polished
            widget.style().polish(widget)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mouseReleaseEvent(event)


class EmptyState(QWidget):
    """A centred message where a list or a whole page has nothing to show."""

    def __init__(self, title: str, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.addStretch(1)
        self.title = QLabel(title)
        self.title.setObjectName("emptyTitle")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text = QLabel(text)
        self.text.setObjectName("muted")
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(self.title)
        lay.addWidget(self.text)
        lay.addStretch(2)


def title_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("pageTitle")
    return label


def section_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("sectionTitle")
    return label


def fmt_time(value: datetime | None) -> str:
    """Local time as 2026-11-30 14:05 (formatted by hand: strftime imports a module
    on each call, which under PySide6's import hook costs ~30 µs per cell)."""
    if value is None:
        return tr("never")
    t = value.astimezone()
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d} {t.hour:02d}:{t.minute:02d}"


def fmt_date(value: datetime) -> str:
    """The local date, 2026-11-30 (a table's column: the time is in its tooltip)."""
    t = value.astimezone()
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}"


def fmt_age(seconds: float | None) -> str:
    """A duration the way people say it: 3 d, 5 h, 12 min."""
    if seconds is None:
        return ""
    seconds = max(0.0, float(seconds))
    if seconds >= 86400:
        return tr("{n} d").format(n=int(seconds // 86400))
    if seconds >= 3600:
        return tr("{n} h").format(n=int(seconds // 3600))
    return tr("{n} min").format(n=int(seconds // 60))


def age_since(value: datetime | None, now: datetime | None = None) -> float | None:
    if value is None:
        return None
    return ((now or datetime.now(UTC)) - value).total_seconds()


def one_line(text: str, width: int = 140) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def draw_text_unshaped(widget: QWidget) -> None:
    """Let `widget` (a big table) lay out its text without OpenType shaping where
    the script does not need it: Latin and Han read the same, only kerning and
    ligatures go; scripts that need shaping (Arabic, Indic) are still shaped.

    Shaping each cell's text (HarfBuzz, three layouts per cell: size, elision,
    drawing) was the most of a table repaint: ~4.4 ms for a screen of memories,
    ~2.9 ms without it. Only the style strategy is set, so the widget keeps
    following the application font (language switch).
    """
    font = QFont()
    font.setStyleStrategy(QFont.StyleStrategy.PreferNoShaping)
    widget.setFont(font)
