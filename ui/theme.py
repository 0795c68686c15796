"""Look: Fusion style, light and dark palettes, and a CJK-capable font.

The palette follows the system colour scheme unless the owner picks one; the
font list puts a CJK family after the UI family so Chinese text in memories and
on the tape is drawn with real glyphs, not boxes.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetrics, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "PingFang SC",
    "Microsoft YaHei",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
)
CJK_FONT_FILES = (
    Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"),
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
)
UI_FAMILIES = ("Inter", "Cantarell", "Segoe UI", "SF Pro Text", "Noto Sans", "DejaVu Sans")


def cjk_family() -> str | None:
    """A font family that draws Simplified Chinese, registering a known file if needed."""
    families = set(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese))
    for name in CJK_FAMILIES:
        if name in families:
            return name
    for path in CJK_FONT_FILES:
        if path.exists():
            font_id = QFontDatabase.addApplicationFont(str(path))
            loaded = QFontDatabase.applicationFontFamilies(font_id) if font_id >= 0 else []
            if loaded:
                return loaded[0]
    return next(iter(sorted(families)), None)


# Symbols Chinese text uses that some CJK fonts map to an empty glyph: WenQuanYi Micro Hei
# (Debian's fonts-wqy-microhei) has a blank ℃, and Qt then draws nothing instead of
# falling back. Such a family is left to Qt's per-glyph fallback, as in English.
SYMBOLS = "℃"


def draws(family: str, text: str) -> bool:
    """Whether `family` itself draws every character of `text` (not an empty glyph)."""
    metrics = QFontMetrics(QFont(family))
    return all(metrics.boundingRect(ch).width() > 0 for ch in text)


def apply_fonts(app: QApplication, lang: str) -> QFont:
    """Set the application font: a CJK family for Chinese (unless it draws common symbols
    blank, see SYMBOLS), the UI family for English.

    One family only: Qt falls back per glyph on its own (Chinese text in an
    English UI is drawn with the CJK family), while a QFont carrying a list of
    families made every table repaint several times slower.
    """
    available = set(QFontDatabase.families())
    ui = next((f for f in UI_FAMILIES if f in available), app.font().family())
    cjk = cjk_family()
    font = QFont(app.font())
    font.setFamily(cjk if (lang == "zh" and cjk and draws(cjk, SYMBOLS)) else ui)
    font.setPointSizeF(max(font.pointSizeF(), 10.0))
    app.setFont(font)
    # Big numbers read best in the Latin family (CJK fonts often lack a bold weight).
    app.setProperty("tapemind_number_family", ui)
    return font


def system_scheme() -> str:
    """'dark' or 'light', as the desktop says (light when it does not say)."""
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None and scheme() == Qt.ColorScheme.Dark:
        return "dark"
    return "light"


_LIGHT = {
    "window": "#f5f6f8",
    "base": "#ffffff",
    "alt": "#f0f2f5",
    "text": "#1d2330",
    "muted": "#5f6b7a",
    "button": "#eef0f3",
    "highlight": "#2f6fed",
    "highlighted_text": "#ffffff",
    "border": "#d9dde3",
    "card": "#ffffff",
    "sidebar": "#eceff3",
    "link": "#2f6fed",
    "warn": "#b45309",
    "warn_border": "#f1b77c",
    "warn_bg": "#fff8ee",
}
_DARK = {
    "window": "#1e2127",
    "base": "#16181d",
    "alt": "#22262d",
    "text": "#e6e9ef",
    "muted": "#9aa4b2",
    "button": "#2a2e36",
    "highlight": "#4c8dff",
    "highlighted_text": "#ffffff",
    "border": "#343a44",
    "card": "#262a31",
    "sidebar": "#191c21",
    "link": "#7aa9ff",
    "warn": "#f0a35e",
    "warn_border": "#8a5a2b",
    "warn_bg": "#2f2a24",
}


def colors(scheme: str) -> dict[str, str]:
    return _DARK if scheme == "dark" else _LIGHT


def apply_theme(app: QApplication, scheme: str) -> str:
    """Apply 'light', 'dark' or 'system'; returns the scheme in effect."""
    if scheme == "system":
        scheme = system_scheme()
    c = colors(scheme)
    app.setStyle("Fusion")
    pal = QPalette()
    role = QPalette.ColorRole
    pal.setColor(role.Window, QColor(c["window"]))
    pal.setColor(role.WindowText, QColor(c["text"]))
    pal.setColor(role.Base, QColor(c["base"]))
    pal.setColor(role.AlternateBase, QColor(c["alt"]))
    pal.setColor(role.Text, QColor(c["text"]))
    pal.setColor(role.Button, QColor(c["button"]))
    pal.setColor(role.ButtonText, QColor(c["text"]))
    pal.setColor(role.Highlight, QColor(c["highlight"]))
    pal.setColor(role.HighlightedText, QColor(c["highlighted_text"]))
    pal.setColor(role.ToolTipBase, QColor(c["card"]))
    pal.setColor(role.ToolTipText, QColor(c["text"]))
    pal.setColor(role.PlaceholderText, QColor(c["muted"]))
    pal.setColor(role.Link, QColor(c["link"]))
    pal.setColor(QPalette.ColorGroup.Disabled, role.Text, QColor(c["muted"]))
    pal.setColor(QPalette.ColorGroup.Disabled, role.ButtonText, QColor(c["muted"]))
    app.setPalette(pal)
    app.setStyleSheet(_QSS.format(**c))
    app.setProperty("tapemind_scheme", scheme)
    return scheme


def current_scheme() -> str:
    app = QApplication.instance()
    value = app.property("tapemind_scheme") if app is not None else None
    return str(value) if value else "light"


_QSS = """
QListWidget#sidebar {{
    background: {sidebar}; border: none; border-right: 1px solid {border};
    padding: 8px 6px; font-size: 11pt; outline: 0;
}}
QListWidget#sidebar::item {{ padding: 8px 12px; border-radius: 6px; margin: 1px 0; }}
QListWidget#sidebar::item:selected {{ background: {highlight}; color: {highlighted_text}; }}
QListWidget#sidebar::item:hover:!selected {{ background: {alt}; }}
QListWidget::item {{ padding: 5px 8px; }}
QTreeWidget::item {{ padding: 3px 2px; }}
QListWidget#sidebar::item {{ padding: 8px 12px; }}
QFrame#card {{ background: {card}; border: 1px solid {border}; border-radius: 10px; }}
QFrame#card:hover {{ border: 1px solid {highlight}; }}
QFrame#card[alert="true"] {{ background: {warn_bg}; border: 1px solid {warn_border}; }}
QFrame#card[alert="true"]:hover {{ border: 1px solid {highlight}; }}
QLabel#cardValue[alert="true"] {{ color: {warn}; }}
QLabel#notice {{
    background: {warn_bg}; border: 1px solid {warn_border}; border-radius: 6px; padding: 6px 10px;
}}
QLabel#cardTitle {{ color: {muted}; font-size: 9.5pt; }}
QLabel#cardValue {{ font-size: 20pt; font-weight: 600; }}
QLabel#cardNote {{ color: {muted}; font-size: 9pt; }}
QLabel#pageTitle {{ font-size: 16pt; font-weight: 600; }}
QLabel#muted {{ color: {muted}; }}
QLabel#emptyTitle {{ font-size: 13pt; font-weight: 600; }}
QLabel#sectionTitle {{ font-weight: 600; color: {muted}; }}
QFrame#panel {{ background: {card}; border: 1px solid {border}; border-radius: 8px; }}
QScrollArea#panelScroll, QWidget#panelBody {{ background: transparent; border: none; }}
QTableView {{ gridline-color: {border}; selection-background-color: {highlight}; }}
QHeaderView::section {{
    background: {alt}; padding: 5px 6px; border: none; border-bottom: 1px solid {border};
    font-weight: 600;
}}
"""
