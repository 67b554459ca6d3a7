"""Export any pyqtgraph chart to PNG (pyqtgraph's image exporter) or SVG (Qt's SVG painter).

pyqtgraph's own SVG exporter cannot parse the path data that Qt 6.12 writes, so SVG goes
through QSvgGenerator, which renders the chart's scene as vectors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyqtgraph as pg
import pyqtgraph.exporters as exporters
from PySide6.QtCore import QRect, QRectF, QSize
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator


@dataclass
class ExportableChart:
    name: str
    widget: pg.PlotWidget

    def export(self, path: str | Path) -> Path:
        """Write the chart as PNG or SVG, chosen by the file's suffix."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        suffix = path.suffix.lower()
        if suffix == ".png":
            exporter = exporters.ImageExporter(self.widget.plotItem)
            exporter.parameters()["width"] = max(800, int(self.widget.width() * 2))
            exporter.export(str(path))
        elif suffix == ".svg":
            size = self.widget.size()
            generator = QSvgGenerator()
            generator.setFileName(str(path))
            generator.setSize(QSize(size.width(), size.height()))
            generator.setViewBox(QRect(0, 0, size.width(), size.height()))
            generator.setTitle(self.name)
            painter = QPainter(generator)
            try:
                self.widget.scene().render(
                    painter, QRectF(0, 0, size.width(), size.height()), self.widget.sceneRect()
                )
            finally:
                painter.end()
        else:
            raise ValueError(f"{path.name}: charts export as .png or .svg")
        return path
