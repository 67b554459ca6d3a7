"""A progress bar whose new value paints with the window's next frame.

QProgressBar.setValue repaints at once whenever the bar visibly moves, and a widget's
immediate repaint paints every pending change of its window with it: the run clock's update
then carried a whole window paint (8 ms of a frame, benchmarks/gui_load.py --events).
"""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar


class QuietProgressBar(QProgressBar):
    def setValue(self, value: int) -> None:
        self.setUpdatesEnabled(False)  # QProgressBar's immediate repaint becomes a no-op ...
        super().setValue(value)
        self.setUpdatesEnabled(True)  # ... and this schedules an ordinary update instead
