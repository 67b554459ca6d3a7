"""The parts of the main window made after its first paint (the app's cold start, issue 16):
the charts (pyqtgraph and numpy, ~0.4 s to import), the Sweep and Capacity tabs and the
History's rows (`finish_start`); the Providers and Kernels tabs, which the app makes after the
first paint, into the places reserved for them. Typed against the window's parts
(window_host.py), so that this module never imports main_window.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication

from workbench.ui.accessibility import label_fields
from workbench.ui.kernel_settings import restore_kernels
from workbench.ui.theme import chart_defaults
from workbench.ui.wheel_focus import install_wheel_guard

if TYPE_CHECKING:
    from workbench.core.access.providers import Provider
    from workbench.ui.kernels_view import KernelsView
    from workbench.ui.provider_panel import ProviderPanel
    from workbench.ui.window_host import WindowHost


def finish_start(window: WindowHost) -> None:
    """What the first paint need not wait for: the charts, the Sweep tab, past runs."""
    from workbench.ui.capacity_tab import attach_capacity
    from workbench.ui.sweep_view import SweepView

    # a control takes the wheel only once clicked into; made here, not before the first paint:
    # the filter sees every event, and wrapping each object it is handed brought in Python types
    # the first frame never needs (~40 ms)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    install_wheel_guard(app)
    window.build_run_tabs()
    chart_defaults(QApplication.palette())
    label_fields(window.compare.build_charts())
    sweep = window.sweep_view = SweepView(window.session)
    window.reserved_tabs.place("sweep", sweep)
    label_fields(sweep)
    window.history_view.imported_aggregates.connect(sweep.add_imported)
    sweep.run_requested.connect(window.run_sweep)
    window.capacity_view = attach_capacity(window)
    label_fields(window.capacity_view)
    sweep.stop_requested.connect(window.session.stop_all)
    if window.preset.currentData() == "story":  # chosen before the tab existed
        sweep.check_lengths(1024, 1024 * 1024)
    window.retranslate()
    window.pane_set.name_plots(window.pane_set.keys)
    window.paint()
    window.history_view.refresh()  # past runs are there from the start


def reserve_tabs(window: WindowHost) -> None:
    """Empty Providers and Kernels tabs, titled, that `add_provider_tab` and `add_kernels_tab`
    fill: the app builds those tabs after the first paint, and the tab bar looks the same from
    the first frame."""
    window.reserved_tabs.reserve("providers")
    window.reserved_tabs.reserve("kernels")
    window.retranslate()


def add_provider_tab(window: WindowHost, panel: ProviderPanel) -> None:
    """Add the Providers tab; when its providers change, the panes' choices follow."""
    window.provider_panel = panel
    window.reserved_tabs.place("providers", panel)
    window.retranslate()
    label_fields(panel)

    def changed(providers: dict[str, Provider]) -> None:
        from workbench.ui.pane_choices import choices_for

        window.session.providers = dict(providers)
        window.pane_set.set_choices(choices_for(window.session))
        if window.pane_set.keys and not window.session.running:
            window.pane_set.set(window.pane_set.keys)  # a changed base URL reaches the targets

    panel.providers_changed.connect(changed)


def add_kernels_tab(window: WindowHost, view: KernelsView) -> None:
    """Add the Kernels tab; the app awaits `view.aclose()` on exit to stop its worker."""
    window.kernels_view = view
    restore_kernels(view, window.settings)  # the choices of the last launch
    window.reserved_tabs.place("kernels", view)
    window.retranslate()
    label_fields(view)
