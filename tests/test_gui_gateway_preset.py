"""The "Gateway overhead (direct vs gateway)" preset, clicked in the real window: two saved
providers (the built-in provider as the upstream, a forwarding gateway with a known delay in
front of it) hold one model; the preset puts it on two panes, one per route, and a run shows
the gateway's added TTFT. With only one provider holding a model, it says what to add."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.support.delay_gateway import delay_gateway
from tests.support.gui_driver import click_run, run_for
from tests.support.loopback import serving
from workbench.core.access.providers import ModelEntry, Provider
from workbench.core.foundation.metrics import derive
from workbench.ui.main_window import MainWindow
from workbench.ui.provider_controller import ProviderController
from workbench.ui.provider_panel import ProviderPanel
from workbench.ui.window_late import add_provider_tab

MODEL = "sim-70b-gqa"
DELAY_S = 0.15


@pytest.fixture
def window(window, tmp_path):
    controller = ProviderController(window.session, path=tmp_path / "providers.toml")
    add_provider_tab(window, ProviderPanel(controller))
    return window


def _save(window: MainWindow, loop: Any, name: str, base_url: str, models: list[str]) -> None:
    """Save a provider through the Providers tab's controller, as its Save button does."""
    controller = window.provider_panel.controller
    provider = Provider(name, base_url, models=tuple(ModelEntry(m) for m in models))
    run_for(loop, controller.save(provider))


def _click_preset(window: MainWindow, qtbot: Any, data: str) -> None:
    """Open the preset list with the mouse and click the item. Qt's popup ignores a synthetic
    release on the offscreen platform, so Return confirms the item the click made current."""
    combo = window.preset
    qtbot.mouseClick(combo, Qt.MouseButton.LeftButton)
    view = combo.view()
    qtbot.waitUntil(view.isVisible, timeout=5000)
    index = view.model().index(combo.findData(data), 0)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )
    assert view.currentIndex().row() == index.row()
    qtbot.keyClick(view, Qt.Key.Key_Return)


def test_gateway_preset_puts_one_model_on_both_routes_and_measures_the_delay(
    window: MainWindow, qtbot: Any, loop: Any
) -> None:
    upstream = window.session.local_base_url
    assert upstream
    served = serving(delay_gateway(upstream, DELAY_S))
    gateway = run_for(loop, served.__aenter__())
    try:
        _save(window, loop, "upstream", upstream, [MODEL, "sim-70b-mla"])
        _save(window, loop, "gateway", gateway, [MODEL])
        _click_preset(window, qtbot, "gateway")
        assert window.pane_set.keys == [f"upstream|{MODEL}", f"gateway|{MODEL}"]
        assert window.preset.currentData() == "gateway"
        assert window.mode.currentData() == "sequential"  # one upstream: never both at once
        assert "pane 1 is direct (upstream)" in window.statusBar().currentMessage()
        final = click_run(window, qtbot, loop)
    finally:
        run_for(loop, served.__aexit__(None, None, None))
    assert final.status == "finished"
    ttft = {r.provider: derive(r).ttft_ms for r in final.results if not r.warmup}
    assert set(ttft) == {"upstream", "gateway"}
    added = ttft["gateway"] - ttft["upstream"]
    # one request per route, beside repaints on a shared machine: a wide band around the delay
    assert DELAY_S * 1000 - 40 <= added <= DELAY_S * 1000 + 100


def test_gateway_preset_without_a_shared_model_says_what_to_add(
    window: MainWindow, qtbot: Any, loop: Any
) -> None:
    before = list(window.pane_set.keys)
    _save(window, loop, "upstream", "http://127.0.0.1:9/v1", [MODEL])
    _save(window, loop, "gateway", "http://127.0.0.1:10/v1", ["another-model"])
    _click_preset(window, qtbot, "gateway")
    message = window.statusBar().currentMessage()
    assert "needs one model on two saved providers" in message and "Providers tab" in message
    assert window.pane_set.keys == before  # nothing the user had is lost
    assert window.preset.currentData() == "custom"
