"""The main window's panes: which (provider, model) each shows, their widgets, and the charts'
names for them. Mixed into MainWindow (its pane and target management, apart from runs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication

from workbench.ui.colors import pane_colors
from workbench.ui.pane_targets import target_for
from workbench.ui.pane_widget import PaneWidget
from workbench.ui.panes_model import pane_title, split_pane_key
from workbench.ui.run_toolbar import MAX_PANES

if TYPE_CHECKING:
    from workbench.ui.window_host import WindowHost

    _Base = WindowHost
else:
    _Base = object


class PaneParts(_Base):
    """Mixed into MainWindow: setting its panes, as a preset, a picker or the pane count asks."""

    def set_choices(self, choices: Sequence[tuple[str, str]]) -> None:
        """Every (provider|model key, label) a pane can pick."""
        self.choices = list(choices)
        for widget, key in zip(self.pane_widgets, self.pane_keys, strict=False):
            widget.set_choices(self.choices, key)

    def set_panes(self, keys: Sequence[str]) -> None:
        self._lay_out_panes(keys)
        s = self.session
        targets = [target_for(k, s.catalog, s.providers, s.local_base_url) for k in self.pane_keys]
        s.set_targets(targets)
        self._set_plot_panes(self.pane_keys)
        self.replay_banner.hide()
        self._refresh_context()
        self._paint()  # the panes show their new models' (empty) figures at once, never old ones

    def _lay_out_panes(self, keys: Sequence[str]) -> None:
        """A pane widget per key, each picker naming its key's model (a replay's too)."""
        self.pane_keys = list(keys)[:MAX_PANES]
        while len(self.pane_widgets) < len(self.pane_keys):
            widget = PaneWidget(len(self.pane_widgets), self.session.catalog)
            widget.choose.connect(self._on_choose)
            widget.stop.connect(self.session.stop_pane)
            widget.clamp.connect(self.prompt.set_tokens)
            widget.restyle(QApplication.palette())
            self.pane_widgets.append(widget)
        self.compare.place_panes(self.pane_widgets, len(self.pane_keys))
        for widget, key in zip(self.pane_widgets, self.pane_keys, strict=False):
            widget.set_choices(self.choices, key)
        self.pane_count.blockSignals(True)
        self.pane_count.setValue(len(self.pane_keys))
        self.pane_count.blockSignals(False)

    def _set_plot_panes(self, keys: Sequence[str]) -> None:
        if self.compare.plots is None:
            return  # finish_start() names the charts' panes when it makes them
        titles = []
        for i, key in enumerate(keys):
            target = self.session.panes[i].target if i < len(self.session.panes) else None
            titles.append(pane_title(target) if target is not None else split_pane_key(key)[1])
        self.plots.set_panes(titles, pane_colors([p.target for p in self.session.panes]))

    def _on_pane_count(self, count: int) -> None:
        keys = list(self.pane_keys)
        fallback = [k for k, _ in self.choices if k not in keys] or [keys[-1]]
        while len(keys) < count:
            keys.append(fallback[(len(keys)) % len(fallback)])
        self.preset.setCurrentIndex(self.preset.findData("custom"))
        self.set_panes(keys[:count])

    def _on_choose(self, index: int, key: str) -> None:
        if key and index < len(self.pane_keys):
            keys = list(self.pane_keys)
            keys[index] = key
            self.preset.setCurrentIndex(self.preset.findData("custom"))
            self.set_panes(keys)
