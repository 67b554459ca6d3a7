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
# (and a move: the window manager's frame becomes known after the show, with a move)
REFIT = (
    QEvent.Type.LayoutRequest,
    QEvent.Type.Show,
    QEvent.Type.ScreenChangeInternal,
    QEvent.Type.Move,
)


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
        self._set = False  # whether fit() has set the minimum (made it explicit) yet
        self._shown = False
        self._frame = QSize()  # the window manager's frame, as last seen
        window.installEventFilter(self)
        self.fit()

    def fit(self, showing: bool = False) -> None:
        window = self.window
        room = screen_room(window)
        if room is None:
            return
        minimum = capped_minimum(window.minimumSizeHint(), room)
        if minimum != window.minimumSize() or not self._set:
            window.setMinimumSize(minimum)  # explicit: the layout no longer sets it
            self._set = True
        if window.isMaximized() or window.isFullScreen():
            return
        # Back within the room: a size set before the frame was known (the first show, and the
        # frame's arrival after it), or one
        # the layout grew to its contents' hint before this filter saw the hint (a 1024 px
        # window became 1048 px on a 1024 px screen). A size the user chose past the hint (a
        # window stretched over two screens) is theirs.
        size, hint = window.size(), window.minimumSizeHint()
        frame = window.frameGeometry().size() - size
        first = (showing and not self._shown) or (self._shown and frame != self._frame)
        self._shown, self._frame = self._shown or showing, frame
        width, height = size.width(), size.height()
        if width > room.width() and (first or width <= hint.width()):
            width = room.width()
        if height > room.height() and (first or height <= hint.height()):
            height = room.height()
        if (width, height) != (size.width(), size.height()):
            window.resize(width, height)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() in REFIT:
            self.fit(showing=event.type() == QEvent.Type.Show)
        return False


def keep_minimum_on_screen(window: QWidget) -> MinimumOnScreen:
    return MinimumOnScreen(window)


def first_size(window: QWidget, wanted: QSize) -> None:
    """The window's size before any is saved: `wanted`, within its screen (a 1280x800 laptop
    got a 1400x900 window, its right and bottom edges off the screen)."""
    room = screen_room(window)
    window.resize(wanted if room is None else capped_minimum(wanted, room))
