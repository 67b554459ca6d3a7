"""The main window's minimum size never grows past the screen it is on.

Qt sets a window's minimum to what its contents need, and grows the window to it: one label
with a long line (the Kernels tab's CPU warning) pushed a 1024 px window to 1594 px, off the
screen (issue 25). Here the window's minimum is what its contents need, capped at the screen's
available area less the window's frame; a widget that needs more is squeezed, not the window
pushed off-screen.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtWidgets import QWidget

# what may change the contents' needs or the room: a layout's new size hints, a new screen
REFIT = (QEvent.Type.LayoutRequest, QEvent.Type.Show, QEvent.Type.ScreenChangeInternal)


def screen_room(window: QWidget) -> QSize | None:
    """The largest size (without the frame) the window has on its screen, or None if it has
    none yet."""
    screen = window.screen()
    if screen is None:
        return None
    frame = window.frameGeometry().size() - window.geometry().size()
    return screen.availableGeometry().size() - frame


def capped_minimum(needed: QSize, room: QSize) -> QSize:
    return QSize(min(needed.width(), room.width()), min(needed.height(), room.height()))


class MinimumOnScreen(QObject):
    """An event filter on one window: after every layout request, its minimum size is set
    (explicitly, so the layout no longer sets it) to its contents' minimum within the screen."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        window.installEventFilter(self)
        self.fit()

    def fit(self) -> None:
        room = screen_room(self.window)
        if room is None:
            return
        minimum = capped_minimum(self.window.minimumSizeHint(), room)
        if minimum != self.window.minimumSize():
            self.window.setMinimumSize(minimum)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() in REFIT:
            self.fit()
        return False


def keep_minimum_on_screen(window: QWidget) -> MinimumOnScreen:
    return MinimumOnScreen(window)


def first_size(window: QWidget, wanted: QSize) -> None:
    """The window's size before any is saved: `wanted`, within its screen (a 1280x800 laptop
    got a 1400x900 window, its right and bottom edges off the screen)."""
    room = screen_room(window)
    window.resize(wanted if room is None else capped_minimum(wanted, room))
