"""Names for screen readers: labels tied to the fields beside them, charts named by their titles,
and the check behind the accessibility test (which controls a screen reader could not name).

A control is named when it has an accessible name, a visible text of its own (a button's
label), or a QLabel whose buddy it is (QFormLayout rows set that). Parts Qt builds inside a
control (a spin box's line edit, a combo box's list, a view's scroll bars and header) are
named through their control and are not counted.
"""

from __future__ import annotations

import itertools
import sys

from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QBoxLayout,
    QComboBox,
    QGraphicsView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollBar,
    QTextEdit,
    QWidget,
)

CONTROLS = (
    QAbstractButton, QAbstractItemView, QAbstractSlider, QAbstractSpinBox, QComboBox,
    QGraphicsView, QLineEdit, QPlainTextEdit, QTextEdit,
)  # fmt: skip


FIELDS = (QAbstractSlider, QAbstractSpinBox, QComboBox, QLineEdit)  # a label's usual partner


def _tie(label: QWidget | None, field: QWidget | None) -> None:
    if not (isinstance(label, QLabel) and label.text() and isinstance(field, FIELDS)):
        return
    if label.buddy() is None and not field.accessibleName():
        label.setBuddy(field)


def label_fields(root: QWidget) -> None:
    """A label placed just before a field in a row ("batch [ 1 ]") becomes that field's buddy,
    as QFormLayout does for its rows; a chart without a name takes its title as its name."""
    for box in root.findChildren(QBoxLayout):
        widgets = [box.itemAt(i).widget() for i in range(box.count())]
        for label, field in itertools.pairwise(widgets):
            _tie(label, field)
    pg = sys.modules.get("pyqtgraph")  # not imported yet: there is no chart to name
    for plot in root.findChildren(pg.PlotWidget) if pg is not None else []:
        title = plot.getPlotItem().titleLabel.text
        if not plot.accessibleName() and title:
            plot.setAccessibleName(title)


def _inside_a_control(widget: QWidget, root: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None and parent is not root:
        if isinstance(parent, CONTROLS):
            return True
        parent = parent.parentWidget()
    return False


def unnamed_controls(root: QWidget) -> list[QWidget]:
    """Every control under `root` (hidden ones too) that has no name a screen reader can read."""
    buddies = {id(label.buddy()) for label in root.findChildren(QLabel) if label.buddy()}
    out = []
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or isinstance(widget, QScrollBar):
            continue
        if widget.objectName().startswith("qt_") or _inside_a_control(widget, root):
            continue  # a part Qt builds inside a control, named through it
        if widget.accessibleName() or id(widget) in buddies:
            continue
        if isinstance(widget, QAbstractButton) and widget.text().replace("&", "").strip():
            continue
        out.append(widget)
    return out


def describe(widget: QWidget) -> str:
    """`QSpinBox in SweepView > QStackedWidget`: where a failing control sits."""
    path = []
    parent = widget.parentWidget()
    while parent is not None and len(path) < 3:
        name = parent.objectName()
        path.append(type(parent).__name__ + (f"#{name}" if name else ""))
        parent = parent.parentWidget()
    tip = f" (tooltip {widget.toolTip()[:40]!r})" if widget.toolTip() else ""
    return f"{type(widget).__name__}{tip} in {' > '.join(path)}"
