"""The main window's layout kept between launches: geometry, panes, prompt length, run mode."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.ui.kernel_settings import save_kernels
from workbench.ui.panes_model import split_pane_key

if TYPE_CHECKING:
    from workbench.ui.window_host import WindowHost

    _Base = WindowHost
else:
    _Base = object


class WindowState(_Base):
    """Mixed into MainWindow: saving its layout to its QSettings and restoring it."""

    def save_state(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("panes", self.pane_keys)
        self.settings.setValue("prompt_tokens", self.prompt.tokens())
        self.settings.setValue("mode", self.mode.currentData())
        if getattr(self, "kernels_view", None) is not None:
            save_kernels(self.kernels_view, self.settings)

    def restore_state(self) -> bool:
        """Restore the last layout; False on a first launch."""
        panes = self.settings.value("panes")
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
            self.restoreState(self.settings.value("window/state"))
        tokens = self.settings.value("prompt_tokens")
        if tokens is not None:
            self.prompt.set_tokens(int(tokens))
        mode = self.settings.value("mode")
        if mode:
            self.mode.setCurrentIndex(max(0, self.mode.findData(mode)))
        if isinstance(panes, list) and len(panes) >= 2:
            known = {k for k, _ in self.choices}
            # a pane key may carry a protocol (provider|model|protocol): its target must be known
            keys = [k for k in panes if "|".join(split_pane_key(k)[:2]) in known]
            if len(keys) >= 2:
                self.set_panes(keys)
                self.preset.setCurrentIndex(self.preset.findData("custom"))
                return True
        return False
