"""Pickers, spin boxes and sliders take the mouse wheel only once the user has clicked (or
tabbed) into them; an unfocused one hands the wheel to the scrolling area around it.

One notch while scrolling the panes over a model picker switched the pane's model and wiped its
results (issue 25). Installed once on the application: it covers every such control of every
tab and dialog, made now or later. A filter on the application sees every event; its cost was
~4 µs an event, ~830 events/s in a 4-pane run: under 0.5 % of the UI thread.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QWidget,
)

GUARDED = (QComboBox, QAbstractSpinBox, QAbstractSlider)


def guarded(obj: QObject) -> bool:
    """A control whose value a wheel turn changes (a scroll bar's wheel only scrolls)."""
    return isinstance(obj, GUARDED) and not isinstance(obj, QScrollBar)


def scrolling_parent(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = parent.parentWidget()
    return parent


class WheelNeedsFocus(QObject):
    """The application's event filter: StrongFocus (a click or Tab focuses, the wheel never
    does) on every guarded control when it is polished; the wheel over one without focus goes
    to the scroll area it sits in."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Polish and guarded(watched):
            assert isinstance(watched, QWidget)
            strong_focus(watched)
        elif kind == QEvent.Type.Wheel and guarded(watched):
            assert isinstance(watched, QWidget) and isinstance(event, QWheelEvent)
            if not watched.hasFocus():
                pass_on(watched, event)
                return True
        return False


def strong_focus(widget: QWidget) -> None:
    if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


def pass_on(widget: QWidget, event: QWheelEvent) -> None:
    """Give the wheel to the scroll area around `widget`; else leave it ignored, and Qt
    passes a wheel from the window system on to the parents."""
    event.ignore()
    area = scrolling_parent(widget)
    if area is None:
        return
    viewport = area.viewport()
    at = viewport.mapFromGlobal(widget.mapToGlobal(event.position()))
    moved = QWheelEvent(
        at,
        event.globalPosition(),
        event.pixelDelta(),
        event.angleDelta(),
        event.buttons(),
        event.modifiers(),
        event.phase(),
        event.inverted(),
    )
    QApplication.sendEvent(viewport, moved)
    event.accept()


def install_wheel_guard(app: QApplication) -> None:
    """Once per application; controls made before it get StrongFocus here."""
    if app.property("wheelGuard"):
        return
    guard = WheelNeedsFocus(app)
    app.installEventFilter(guard)
    app.setProperty("wheelGuard", True)
    for widget in app.allWidgets():
        if guarded(widget):
            strong_focus(widget)
