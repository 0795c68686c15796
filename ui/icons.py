"""Icons drawn in code (no image files to ship): the app mark and page icons."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QStyle

_PAGE_ICONS = {
    "dashboard": QStyle.StandardPixmap.SP_ComputerIcon,
    "memories": QStyle.StandardPixmap.SP_FileDialogDetailedView,
    "conflicts": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "insights": QStyle.StandardPixmap.SP_FileDialogInfoView,
    "archive": QStyle.StandardPixmap.SP_DirIcon,
    "tape": QStyle.StandardPixmap.SP_FileDialogContentsView,
    "vault": QStyle.StandardPixmap.SP_DialogSaveButton,
    "agents": QStyle.StandardPixmap.SP_DriveNetIcon,  # agents connect; the folder was Archive's
}


def page_icon(name: str) -> QIcon:
    style = QApplication.style()
    return style.standardIcon(_PAGE_ICONS.get(name, QStyle.StandardPixmap.SP_FileIcon))


def app_icon(badge: int = 0, size: int = 64) -> QIcon:
    """A rounded tile with a reel mark; `badge` draws a count in the corner (tray)."""
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(QColor("#2f6fed"))
    p.setPen(Qt.PenStyle.NoPen)
    p.drawRoundedRect(QRectF(2, 2, size - 4, size - 4), size * 0.22, size * 0.22)
    p.setBrush(QColor("#ffffff"))
    r = size * 0.16
    for cx in (size * 0.33, size * 0.67):
        p.drawEllipse(QRectF(cx - r, size * 0.42 - r, 2 * r, 2 * r))
    p.drawRect(QRectF(size * 0.2, size * 0.68, size * 0.6, size * 0.08))
    if badge:
        p.setBrush(QColor("#d64545"))
        b = size * 0.46
        p.drawEllipse(QRectF(size - b, 0, b, b))
        p.setPen(QColor("#ffffff"))
        font = QFont()
        font.setPixelSize(int(b * 0.6))
        font.setBold(True)
        p.setFont(font)
        p.drawText(QRectF(size - b, 0, b, b), Qt.AlignmentFlag.AlignCenter, str(min(badge, 99)))
    p.end()
    return QIcon(pix)
