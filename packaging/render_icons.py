"""Render packaging/icons/tapemind.svg to the PNG sizes a desktop needs (Qt's SVG renderer).

    QT_QPA_PLATFORM=offscreen python packaging/render_icons.py

Writes packaging/icons/hicolor/<N>x<N>/apps/tapemind.png for N in SIZES (the freedesktop
icon theme layout, so `cp -r` into ~/.local/share/icons installs them) and
packaging/icons/tapemind.png (256 px, the bundle's executable icon). Run it again after
editing the SVG and commit the PNGs; the build does not need Qt's SVG module.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 32, 48, 64, 128, 256)
HERE = Path(__file__).resolve().parent / "icons"


def render(renderer: QSvgRenderer, size: int, out: Path) -> None:
    """Draw the SVG into a transparent size x size image and save it as PNG."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"could not write {out}")


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])  # QImage and fonts need an application object
    renderer = QSvgRenderer(str(HERE / "tapemind.svg"))
    if not renderer.isValid():
        raise SystemExit("tapemind.svg is not a valid SVG")
    for size in SIZES:
        render(renderer, size, HERE / "hicolor" / f"{size}x{size}" / "apps" / "tapemind.png")
    render(renderer, 256, HERE / "tapemind.png")
    print(f"wrote {len(SIZES) + 1} PNGs under {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
