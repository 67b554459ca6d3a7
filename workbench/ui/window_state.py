"""The main window's layout kept between launches: geometry, panes, prompt length, run mode,
saved to the window's QSettings and restored from them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.ui.kernel_settings import save_kernels
from workbench.ui.panes_model import split_pane_key

if TYPE_CHECKING:
    from workbench.ui.window_host import WindowHost


def save_state(window: WindowHost) -> None:
    settings = window.settings
    settings.setValue("window/geometry", window.saveGeometry())
    settings.setValue("window/state", window.saveState())
    settings.setValue("panes", window.pane_set.keys)
    settings.setValue("prompt_tokens", window.prompt.tokens())
    settings.setValue("mode", window.mode.currentData())
    if getattr(window, "kernels_view", None) is not None:
        save_kernels(window.kernels_view, settings)


def restore_state(window: WindowHost) -> bool:
    """Restore the last layout; False on a first launch."""
    settings = window.settings
    panes = settings.value("panes")
    geometry = settings.value("window/geometry")
    if geometry is not None:
        window.restoreGeometry(geometry)
        window.restoreState(settings.value("window/state"))
    tokens = settings.value("prompt_tokens")
    if tokens is not None:
        window.prompt.set_tokens(int(tokens))
    mode = settings.value("mode")
    if mode:
        window.mode.setCurrentIndex(max(0, window.mode.findData(mode)))
    if isinstance(panes, list) and len(panes) >= 2:
        known = {k for k, _ in window.pane_set.choices}
        # a pane key may carry a protocol (provider|model|protocol): its target must be known
        keys = [k for k in panes if "|".join(split_pane_key(k)[:2]) in known]
        if len(keys) >= 2:
            window.pane_set.set(keys)
            window.preset.setCurrentIndex(window.preset.findData("custom"))
            return True
    return False
