"""Draw the app icon and write it as SVG, hicolor PNGs (Linux), ICO (Windows) and ICNS (macOS).

    QT_QPA_PLATFORM=offscreen .venv/bin/python resources/icons/make_icon.py

The picture: a causal attention matrix (a lower-triangular heat map, the diagonal brightest)
on a dark rounded tile. ICO and ICNS files are written by hand around PNG images (both formats
allow PNG payloads), so no image library beyond Qt is needed. The outputs are committed; run
this again only to change the drawing. The freedesktop icon theme gets the same picture as a
hand-written SVG (hicolor/scalable/apps/) and as PNGs rendered from that SVG at 16-256 px
(hicolor/NxN/apps/), which `workbench install-desktop` and the Linux bundle ship.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QLinearGradient, QPainter, QPainterPath
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
NAME = "attention-workbench"
GRID = 6  # cells per side of the attention matrix
HICOLOR_SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def cell_color(row: int, col: int) -> QColor:
    weight = 1.0 / (1 + (row - col))  # 1 on the diagonal, fading to the left
    return QColor.fromHsvF(0.52 - 0.42 * weight, 0.55 + 0.4 * weight, 0.55 + 0.45 * weight)


def svg_text() -> str:
    """The same drawing as draw(), as a 256x256 SVG."""
    margin, gap = 40.0, 6.0
    cell = (256 - 2 * margin - (GRID - 1) * gap) / GRID
    cells = []
    for row in range(GRID):
        for col in range(row + 1):
            x, y = margin + col * (cell + gap), margin + row * (cell + gap)
            cells.append(
                f'  <rect x="{x:g}" y="{y:g}" width="{cell:g}" height="{cell:g}" rx="6" '
                f'fill="{cell_color(row, col).name()}"/>'
            )
    return "\n".join(
        [
            '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" '
            'viewBox="0 0 256 256">',
            "  <title>Attention Workbench</title>",
            '  <defs><linearGradient id="tile" x1="0" y1="0" x2="1" y2="1">',
            '    <stop offset="0" stop-color="#24324a"/><stop offset="1" stop-color="#101826"/>',
            "  </linearGradient></defs>",
            '  <rect x="8" y="8" width="240" height="240" rx="48" fill="url(#tile)"/>',
            *cells,
            "</svg>",
            "",
        ]
    )


def render_svg(svg: bytes, size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    renderer = QSvgRenderer(QByteArray(svg))
    if not renderer.isValid():
        raise RuntimeError("Qt could not read the SVG icon")
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(p, QRectF(0, 0, size, size))
    p.end()
    return image


def write_hicolor(root: Path) -> list[Path]:
    """hicolor/scalable/apps/NAME.svg and hicolor/NxN/apps/NAME.png for each size."""
    svg = svg_text()
    scalable = root / "scalable" / "apps" / f"{NAME}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    scalable.write_text(svg, encoding="utf-8")
    written = [scalable]
    for n in HICOLOR_SIZES:
        path = root / f"{n}x{n}" / "apps" / f"{NAME}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png_bytes(render_svg(svg.encode("utf-8"), n)))
        written.append(path)
    return written


def draw(size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = size / 256.0
    tile = QRectF(8 * s, 8 * s, 240 * s, 240 * s)
    bg = QLinearGradient(tile.topLeft(), tile.bottomRight())
    bg.setColorAt(0.0, QColor("#24324a"))
    bg.setColorAt(1.0, QColor("#101826"))
    path = QPainterPath()
    path.addRoundedRect(tile, 48 * s, 48 * s)
    p.fillPath(path, bg)
    # the causal attention matrix: row i attends to columns 0..i, strongest near the diagonal
    margin, gap = 40 * s, 6 * s
    cell = (256 * s - 2 * margin - (GRID - 1) * gap) / GRID
    radius = max(1.0, 6 * s)
    for row in range(GRID):
        for col in range(row + 1):
            color = cell_color(row, col)
            x = margin + col * (cell + gap)
            y = margin + row * (cell + gap)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(color)
            p.drawRoundedRect(QRectF(x, y, cell, cell), radius, radius)
    p.end()
    return image


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise RuntimeError("Qt could not encode a PNG")
    buf.close()
    return bytes(data.data())


def write_ico(path: Path, sizes: list[int]) -> None:
    """ICONDIR + one ICONDIRENTRY per image, each image a PNG (Windows Vista and later)."""
    blobs = [png_bytes(draw(n)) for n in sizes]
    header = struct.pack("<HHH", 0, 1, len(blobs))
    offset = len(header) + 16 * len(blobs)
    entries = b""
    for n, blob in zip(sizes, blobs, strict=True):
        side = 0 if n >= 256 else n  # 0 means 256 in an ICO directory
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        offset += len(blob)
    path.write_bytes(header + entries + b"".join(blobs))


ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def write_icns(path: Path) -> None:
    """'icns' + length, then (type, length, PNG) chunks."""
    chunks = b""
    for n, kind in ICNS_TYPES.items():
        blob = png_bytes(draw(n))
        chunks += kind + struct.pack(">I", len(blob) + 8) + blob
    path.write_bytes(b"icns" + struct.pack(">I", len(chunks) + 8) + chunks)


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    assert app is not None
    if not draw(512).save(str(HERE / f"{NAME}.png")):
        raise SystemExit("could not write the PNG")
    write_ico(HERE / f"{NAME}.ico", [16, 24, 32, 48, 64, 128, 256])
    write_icns(HERE / f"{NAME}.icns")
    for suffix in (".png", ".ico", ".icns"):
        print(HERE / f"{NAME}{suffix}")
    for path in write_hicolor(HERE / "hicolor"):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
