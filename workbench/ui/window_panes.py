"""The main window's panes, an object the window owns: which (provider, model) each shows and
its target in the session, the pane widgets, the choices their pickers offer, and the charts'
names for them; set as a preset, a picker or the pane count asks. Runs are not its concern."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QSpinBox

from workbench.ui.colors import pane_colors
from workbench.ui.compare_controller import CompareController
from workbench.ui.compare_tab import CompareTab
from workbench.ui.pane_targets import target_for
from workbench.ui.pane_widget import PaneWidget
from workbench.ui.panes_model import pane_title, split_pane_key
from workbench.ui.run_toolbar import MAX_PANES


class PaneSet:
    """The panes of the Compare tab and their targets (the session's pane models)."""

    def __init__(
        self,
        session: CompareController,
        compare: CompareTab,
        preset: QComboBox,
        pane_count: QSpinBox,
    ) -> None:
        self.session = session
        self.compare = compare
        self.prompt = compare.prompt
        self.replay_banner: QLabel = compare.replay_banner
        self.preset = preset
        self.pane_count = pane_count
        self.choices: list[tuple[str, str]] = []
        self.keys: list[str] = []
        self.widgets: list[PaneWidget] = []
        pane_count.valueChanged.connect(self._on_pane_count)

    def set_choices(self, choices: Sequence[tuple[str, str]]) -> None:
        """Every (provider|model key, label) a pane can pick."""
        self.choices = list(choices)
        for widget, key in zip(self.widgets, self.keys, strict=False):
            widget.set_choices(self.choices, key)

    def set(self, keys: Sequence[str]) -> None:
        """Show these (provider|model[|protocol]) keys, each pane's target set in the session."""
        self.lay_out(keys)
        s = self.session
        targets = [target_for(k, s.catalog, s.providers, s.local_base_url) for k in self.keys]
        s.set_targets(targets)
        self.name_plots(self.keys)
        self.replay_banner.hide()
        self.refresh_context()
        self.paint()  # the panes show their new models' (empty) figures at once, never old ones

    def lay_out(self, keys: Sequence[str]) -> None:
        """A pane widget per key, each picker naming its key's model (a replay's too)."""
        self.keys = list(keys)[:MAX_PANES]
        while len(self.widgets) < len(self.keys):
            widget = PaneWidget(len(self.widgets), self.session.catalog)
            widget.choose.connect(self._on_choose)
            widget.stop.connect(self.session.stop_pane)
            widget.clamp.connect(self.prompt.set_tokens)
            widget.restyle(QApplication.palette())
            self.widgets.append(widget)
        self.compare.place_panes(self.widgets, len(self.keys))
        for widget, key in zip(self.widgets, self.keys, strict=False):
            widget.set_choices(self.choices, key)
        self.pane_count.blockSignals(True)
        self.pane_count.setValue(len(self.keys))
        self.pane_count.blockSignals(False)

    def name_plots(self, keys: Sequence[str]) -> None:
        """The charts' names and colours for these panes (none before the charts are made)."""
        plots = self.compare.plots
        if plots is None:
            return
        titles = []
        for i, key in enumerate(keys):
            target = self.session.panes[i].target if i < len(self.session.panes) else None
            titles.append(pane_title(target) if target is not None else split_pane_key(key)[1])
        plots.set_panes(titles, pane_colors([p.target for p in self.session.panes]))

    def refresh_context(self) -> None:
        """Each pane's note on its prompt against its model's context window."""
        colors = pane_colors([p.target for p in self.session.panes])
        prompt, output = self.prompt.tokens(), self.prompt.max_tokens.value()
        for widget, model, color in zip(self.widgets, self.session.panes, colors, strict=False):
            widget.show_context(model, prompt, output, color)

    def clear(self) -> None:
        """The panes' figures and charts emptied (another prompt, a sweep's end)."""
        for pane in self.session.panes:
            pane.reset()
        self.replay_banner.hide()
        self.paint()

    def paint(self) -> None:
        for widget, model in zip(self.widgets, self.session.panes, strict=False):
            widget.paint(model)
        if self.compare.plots is not None:
            self.compare.plots.paint(self.session.panes)

    def restyle(self, palette: QPalette) -> None:
        for widget in self.widgets:
            widget.restyle(palette)

    def _custom(self) -> None:
        self.preset.setCurrentIndex(self.preset.findData("custom"))

    def _on_pane_count(self, count: int) -> None:
        keys = list(self.keys)
        fallback = [k for k, _ in self.choices if k not in keys] or [keys[-1]]
        while len(keys) < count:
            keys.append(fallback[(len(keys)) % len(fallback)])
        self._custom()
        self.set(keys[:count])

    def _on_choose(self, index: int, key: str) -> None:
        if key and index < len(self.keys):
            keys = list(self.keys)
            keys[index] = key
            self._custom()
            self.set(keys)
