"""The parts of the main window made after its first paint (the app's cold start, issue 16)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication

from workbench.ui.accessibility import label_fields
from workbench.ui.kernel_settings import restore_kernels
from workbench.ui.theme import chart_defaults

if TYPE_CHECKING:
    from workbench.core.access.providers import Provider
    from workbench.ui.kernels_view import KernelsView
    from workbench.ui.live_plots import LivePlots
    from workbench.ui.provider_panel import ProviderPanel
    from workbench.ui.window_host import WindowHost

    _Base = WindowHost
else:
    _Base = object


class LateParts(_Base):
    """Mixed into MainWindow: the charts (pyqtgraph and numpy, ~0.4 s to import), the Sweep tab
    and the History's rows, made by `finish_start()`; the Providers and Kernels tabs, which the
    app makes after the first paint, into the places reserved for them."""

    def finish_start(self) -> None:
        """What the first paint need not wait for: the charts, the Sweep tab, past runs."""
        from workbench.ui.capacity_tab import attach_capacity
        from workbench.ui.sweep_view import SweepView

        chart_defaults(QApplication.palette())
        label_fields(self.compare.build_charts())
        sweep = self.sweep_view = SweepView(self.session)
        self.reserved_tabs.place("sweep", sweep)
        label_fields(sweep)
        self.history_view.imported_aggregates.connect(sweep.add_imported)
        sweep.run_requested.connect(self._run_sweep)
        self.capacity_view = attach_capacity(self)  # type: ignore[arg-type]
        label_fields(self.capacity_view)
        sweep.stop_requested.connect(self.session.stop_all)
        if self.preset.currentData() == "story":  # chosen before the tab existed
            sweep.check_lengths(1024, 1024 * 1024)
        self.retranslate()
        self._set_plot_panes(self.pane_keys)
        self._paint()
        self.history_view.refresh()  # past runs are there from the start

    @property
    def plots(self) -> LivePlots:
        assert self.compare.plots is not None, "the charts are made by finish_start()"
        return self.compare.plots

    def reserve_tabs(self) -> None:
        """Empty Providers and Kernels tabs, titled, that `add_provider_tab` and
        `add_kernels_tab` fill: the app builds those tabs after the first paint, and the tab bar
        looks the same from the first frame."""
        self.reserved_tabs.reserve("providers")
        self.reserved_tabs.reserve("kernels")
        self.retranslate()

    def add_provider_tab(self, panel: ProviderPanel) -> None:
        """Add the Providers tab; when its providers change, the panes' choices follow."""
        self.provider_panel = panel
        self.reserved_tabs.place("providers", panel)
        self.retranslate()
        label_fields(panel)
        panel.providers_changed.connect(self._on_providers_changed)

    def _on_providers_changed(self, providers: dict[str, Provider]) -> None:
        from workbench.ui.pane_choices import choices_for

        self.session.providers = dict(providers)
        self.set_choices(choices_for(self.session))
        if self.pane_keys and not self.session.running:
            self.set_panes(self.pane_keys)  # a changed base URL reaches the panes' targets

    def add_kernels_tab(self, view: KernelsView) -> None:
        """Add the Kernels tab; the app awaits `view.aclose()` on exit to stop its worker."""
        self.kernels_view = view
        restore_kernels(view, self.settings)  # the choices of the last launch
        self.reserved_tabs.place("kernels", view)
        self.retranslate()
        label_fields(view)
