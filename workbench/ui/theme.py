"""Light, dark or the system's scheme, switched live: widgets, panes and every chart follow.

The chosen scheme becomes the application's QPalette; everything else (chart background, axes,
titles, the panes' notes and error boxes) is derived from that palette, so nothing below keeps a
colour of its own for backgrounds or text. Model colours stay as they are: the palette in
colors.py keeps 3:1 contrast on white and on a dark chart alike.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QListWidget,
    QListWidgetItem,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

if TYPE_CHECKING:
    import pyqtgraph as pg

CHOICES = ("system", "light", "dark")
FAILURE_RED = "#c0392b"  # failures stay red in both schemes (hatched bars, error text)
NOTICE_AMBER = "#f0a020"  # the replay banner's tint
# the hue of each status; what is painted is that hue mixed into the palette's text colour
STATUS_HUES = {"ok": "#2e9d3a", "failed": FAILURE_RED, "warning": "#d68910"}
STATUS_PROPERTY = "workbenchStatus"  # a widget's status, read again at every theme switch
STATUS_ROLE = Qt.ItemDataRole.UserRole + 64  # a table item's status, likewise


def status_color(state: str, palette: QPalette) -> QColor:
    """The colour of a status ("ok", "failed", "warning", "skipped") in this palette: dark on a
    light scheme, light on a dark one, so it keeps its contrast after a theme switch."""
    text = palette.color(QPalette.ColorRole.Text)
    if state not in STATUS_HUES:  # skipped, or anything without a verdict: a muted text
        return mix(text, palette.color(QPalette.ColorRole.Base), 0.45)
    return mix(text, QColor(STATUS_HUES[state]), 0.72)


# What a theme switch recolours: the widgets show_status marked and the tables and lists whose
# cells mark_item marks (follow_item_status), by id, each leaving on its `destroyed`. Not
# QApplication.allWidgets(): walking every widget wraps Qt's internal ones too, and a wrapper
# that outlived its widget crashed a long-lived process once another widget took its address.
_FOLLOWED: dict[int, QWidget] = {}


def _follow(widget: QWidget) -> None:
    key = id(widget)
    if key not in _FOLLOWED:
        _FOLLOWED[key] = widget
        widget.destroyed.connect(lambda _=None, key=key: _FOLLOWED.pop(key, None))


def follow_item_status(view: QTableWidget | QListWidget) -> None:
    """The status colours mark_item gives this table's or list's cells follow theme switches."""
    _follow(view)


def _status_style(widget: QWidget, palette: QPalette) -> None:
    state = str(widget.property(STATUS_PROPERTY) or "")
    if not state:
        widget.setStyleSheet("")
        return
    weight = " font-weight: bold;" if widget.property(STATUS_PROPERTY + "Bold") else ""
    widget.setStyleSheet(f"color: {status_color(state, palette).name()};{weight}")


def show_status(widget: QWidget, state: str | None, bold: bool = False) -> None:
    """Paint a label's text in a status colour (None: the plain text colour), and keep it in
    the status colour of every scheme the user switches to."""
    widget.setProperty(STATUS_PROPERTY, state or "")
    widget.setProperty(STATUS_PROPERTY + "Bold", bold)
    _follow(widget)
    _status_style(widget, QApplication.palette())


def mark_item(item: QTableWidgetItem | QListWidgetItem, state: str) -> None:
    """A table cell's or list entry's text in a status colour, kept through theme switches when
    its table or list follows them (follow_item_status)."""
    item.setData(STATUS_ROLE, state)
    item.setForeground(QBrush(status_color(state, QApplication.palette())))


def restyle_status(palette: QPalette) -> int:
    """Every widget and table cell marked with a status takes its colour in `palette`;
    returns how many were recoloured."""
    count = 0
    for widget in list(_FOLLOWED.values()):
        try:
            marked = widget.property(STATUS_PROPERTY)
        except RuntimeError:  # its C++ object is gone, its `destroyed` not yet delivered
            continue
        if marked:
            _status_style(widget, palette)
            count += 1
        for item in _items(widget):
            state = item.data(STATUS_ROLE)
            if state:
                item.setForeground(QBrush(status_color(state, palette)))
                count += 1
    return count


def _items(widget: QWidget) -> list[QTableWidgetItem | QListWidgetItem]:
    """The cells of a table widget or the entries of a list widget; none for other widgets."""
    if isinstance(widget, QTableWidget):
        rows, columns = range(widget.rowCount()), range(widget.columnCount())
        cells = (widget.item(r, c) for r in rows for c in columns)
        return [item for item in cells if item is not None]
    if isinstance(widget, QListWidget):
        return [widget.item(i) for i in range(widget.count())]
    return []


def error_colors(palette: QPalette) -> tuple[QColor, QColor]:
    """(background, text) of an error box: red tints of the palette's base and text."""
    red = QColor(FAILURE_RED)
    base, text = palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)
    return mix(base, red, 0.16), mix(text, red, 0.55)


def mix(a: QColor, b: QColor, share_of_b: float) -> QColor:
    """`a` blended towards `b`: a tint that keeps its contrast against the palette it came from."""
    t = max(0.0, min(1.0, share_of_b))
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * t,
        a.greenF() + (b.greenF() - a.greenF()) * t,
        a.blueF() + (b.blueF() - a.blueF()) * t,
    )


def notice_style(object_name: str, palette: QPalette) -> str:
    """A notice banner (the replay banner): an amber tint of the window, in the window's text."""
    base, amber = palette.color(QPalette.ColorRole.Window), QColor(NOTICE_AMBER)
    return (
        f"#{object_name} {{ background: {mix(base, amber, 0.18).name()};"
        f" color: {palette.color(QPalette.ColorRole.WindowText).name()};"
        f" border: 1px solid {mix(base, amber, 0.6).name()}; padding: 6px; font-weight: 600; }}"
    )


def dark_palette() -> QPalette:
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#202124",
        QPalette.ColorRole.WindowText: "#e8eaed",
        QPalette.ColorRole.Base: "#17181a",
        QPalette.ColorRole.AlternateBase: "#2a2b2e",
        QPalette.ColorRole.Text: "#e8eaed",
        QPalette.ColorRole.PlaceholderText: "#9aa0a6",
        QPalette.ColorRole.Button: "#2d2e31",
        QPalette.ColorRole.ButtonText: "#e8eaed",
        QPalette.ColorRole.ToolTipBase: "#2d2e31",
        QPalette.ColorRole.ToolTipText: "#e8eaed",
        QPalette.ColorRole.Highlight: "#8ab4f8",
        QPalette.ColorRole.HighlightedText: "#202124",
        QPalette.ColorRole.Link: "#8ab4f8",
        QPalette.ColorRole.BrightText: "#ffffff",
        QPalette.ColorRole.Light: "#3c4043",
        QPalette.ColorRole.Midlight: "#35363a",
        QPalette.ColorRole.Mid: "#5f6368",
        QPalette.ColorRole.Dark: "#111214",
        QPalette.ColorRole.Shadow: "#000000",
    }
    for role, color in roles.items():
        p.setColor(role, QColor(color))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):  # fmt: skip
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7f8388"))
    return p


def light_palette(app: QApplication) -> QPalette:
    return app.style().standardPalette()


def chart_colors(palette: QPalette) -> tuple[QColor, QColor]:
    """(background, foreground) of a chart: the palette's base and its text."""
    return palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)


def recolor_plot(plot: pg.PlotWidget, palette: QPalette) -> None:
    """Background, axes, tick labels, axis labels, title and legend text of one chart."""
    import pyqtgraph as pg

    background, foreground = chart_colors(palette)
    plot.setBackground(background)
    item = plot.getPlotItem()
    for name in ("left", "bottom", "top", "right"):
        axis = item.getAxis(name)
        axis.setPen(foreground)
        axis.setTextPen(foreground)
        axis.labelStyle = {**axis.labelStyle, "color": foreground.name()}
        axis._updateLabel()  # re-renders the label's HTML with the new colour
    title = item.titleLabel
    if title.text:
        title.setText(title.text, color=foreground.name())
    if item.legend is not None:
        item.legend.setLabelTextColor(foreground)  # for the entries added from now on
        for _sample, label in item.legend.items:  # setLabelTextColor does not re-render these
            label.setText(label.text, color=foreground.name())
        item.legend.setBrush(pg.mkBrush(mix(background, foreground, 0.05)))


def recolor_charts(root: QWidget, palette: QPalette) -> list[pg.PlotWidget]:
    """Every chart under `root` (all tabs); returns them."""
    pg = sys.modules.get("pyqtgraph")
    if pg is None:  # not imported yet: no chart was made (the window makes its charts late)
        return []
    plots = root.findChildren(pg.PlotWidget)
    for plot in plots:
        recolor_plot(plot, palette)
    return plots


def chart_defaults(palette: QPalette) -> None:
    """Charts made from now on (a new tab, an exported figure) start in the scheme."""
    import pyqtgraph as pg

    background, foreground = chart_colors(palette)
    pg.setConfigOptions(antialias=True, background=background, foreground=foreground)


class Theme(QObject):
    """The scheme in use. `changed` carries the new palette after every switch."""

    changed = Signal(QPalette)

    def __init__(
        self, app: QApplication, settings: QSettings | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.app = app
        self.settings = settings
        saved = str(settings.value("theme", "system")) if settings is not None else "system"
        self.choice = saved if saved in CHOICES else "system"
        self._system_dark = app.styleHints().colorScheme() == Qt.ColorScheme.Dark
        # the desktop's light/dark switch reaches a running app (Qt >= 6.5); off again in
        # detach(), or when this Theme is deleted (a @Slot: Qt drops the connection itself)
        app.styleHints().colorSchemeChanged.connect(self._on_system_scheme)
        self._attached = True

    def detach(self) -> None:
        """Off the app-wide scheme signal: the window closed (a closed window stays alive, and
        every later desktop switch would restyle it, and through it the whole app)."""
        if self._attached:
            self._attached = False
            self.app.styleHints().colorSchemeChanged.disconnect(self._on_system_scheme)

    @property
    def dark(self) -> bool:
        return self.choice == "dark" or (self.choice == "system" and self._system_dark)

    def set_choice(self, choice: str) -> None:
        if choice not in CHOICES:
            raise ValueError(f"theme {choice!r}: choose one of {', '.join(CHOICES)}")
        self.choice = choice
        if self.settings is not None:
            self.settings.setValue("theme", choice)
        self.apply()

    def apply(self) -> QPalette:
        palette = dark_palette() if self.dark else light_palette(self.app)
        self.app.setPalette(palette)
        if "pyqtgraph" in sys.modules:  # else whoever makes the first chart calls chart_defaults
            chart_defaults(palette)
        restyle_status(palette)
        self.changed.emit(palette)
        return palette

    @Slot(Qt.ColorScheme)  # a slot Qt knows: a deleted Theme's connection goes with it
    def _on_system_scheme(self, scheme: Qt.ColorScheme) -> None:
        self._system_dark = scheme == Qt.ColorScheme.Dark
        if self.choice == "system":
            self.apply()
