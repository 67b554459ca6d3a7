"""The protocols in the window, driven by clicks: the Providers tab's protocol and auth header
saved and loaded back, the model list asked in the provider's protocol, and one model through
chat completions and Anthropic Messages side by side against the built-in provider (real HTTP)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from tests.support.gui_driver import click_run, make_window, run_for, until
from tests.support.protocol_server import ANTHROPIC_MODELS, ProtocolServer
from workbench.core.access.keys import clear_session_keys
from workbench.core.foundation.results import Target
from workbench.core.protocols.registry import auth_for
from workbench.core.saved.provider_store import default_providers_path, load_providers
from workbench.ui.accessibility import label_fields, unnamed_controls
from workbench.ui.compare_controller import LOCAL_PROVIDER
from workbench.ui.main_window import MainWindow
from workbench.ui.panes_model import PaneState
from workbench.ui.provider_controller import ProviderController
from workbench.ui.provider_panel import ProviderPanel
from workbench.ui.window_state import restore_state, save_state

KEY = "sk-ant-gui-protocol-key-0123456789abcdef"
KEY_VAR = "GUI_PROTOCOL_TEST_KEY"
MODEL = "sim-70b-gqa"


@pytest.fixture(autouse=True)
def _key_and_no_proxy_env(monkeypatch: pytest.MonkeyPatch, no_proxy_env: None) -> Any:
    monkeypatch.setenv(KEY_VAR, KEY)
    yield
    clear_session_keys()


@pytest.fixture
def panel(qtbot: Any, loop: qasync.QEventLoop) -> ProviderPanel:
    widget = ProviderPanel(ProviderController())
    qtbot.addWidget(widget)
    widget.resize(1100, 800)
    widget.show()
    return widget


@pytest.fixture
def window(qapp: Any, loop: qasync.QEventLoop, tmp_path: Path) -> Any:
    win = make_window(loop, tmp_path)
    yield win
    win.close()
    loop.run_until_complete(win.session.close())


def pick(qtbot: Any, combo: QComboBox, data: str) -> None:
    """Open the combo box's list and click the entry holding `data`, as a user does."""
    row = combo.findData(data)
    assert row >= 0, f"{data!r} is not offered"
    combo.showPopup()
    view = combo.view()
    qtbot.waitUntil(view.isVisible, timeout=2000)
    rect = view.visualRect(view.model().index(row, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: combo.currentData() == data, timeout=2000)


def _fill(panel: ProviderPanel, qtbot: Any, name: str, base_url: str) -> None:
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    panel.name_edit.setText(name)
    panel.base_url_edit.setText(base_url)
    pick(qtbot, panel.key_source, "env")
    panel.key_env.setText(KEY_VAR)


def test_choosing_anthropic_saves_the_protocol_and_its_key_header(
    panel: ProviderPanel, qtbot: Any, loop: qasync.QEventLoop
) -> None:
    form = panel.provider_form
    _fill(panel, qtbot, "claude-gw", "https://gateway.example/v1")
    assert form.protocol.currentData() == "chat" and form.auth.currentData() == "bearer"
    pick(qtbot, form.protocol, "anthropic")
    assert form.auth.currentData() == "x-api-key"  # the header follows the protocol
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    run_for(loop, until(lambda: panel.status.text().startswith("Saved 'claude-gw'")))
    saved = load_providers().get("claude-gw")
    assert saved is not None and saved.protocol == "anthropic"
    assert auth_for(saved.protocol, saved.auth) == "x-api-key"
    text = default_providers_path().read_text(encoding="utf-8")
    assert 'protocol = "anthropic"' in text and KEY not in text
    # shown again from the file
    panel._select(LOCAL_PROVIDER)
    assert form.protocol.currentData() == "chat"
    panel._select("claude-gw")
    assert form.protocol.currentData() == "anthropic" and form.auth.currentData() == "x-api-key"
    # a gateway in front of Claude Code that takes ANTHROPIC_AUTH_TOKEN wants a bearer token
    pick(qtbot, form.auth, "bearer")
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    # the file is written before the save ends: wait for its end too (the button back), or the
    # save would go on into the teardown and touch the deleted panel
    saved_bearer = lambda: load_providers().get("claude-gw").auth == "bearer"  # noqa: E731
    run_for(loop, until(lambda: saved_bearer() and panel.save_button.isEnabled()))
    assert load_providers().get("claude-gw").protocol == "anthropic"
    assert 'auth = "bearer"' in default_providers_path().read_text(encoding="utf-8")
    label_fields(panel)  # as the window does when it adds the tab
    assert not unnamed_controls(form)  # the new choices are named for screen readers


def test_fetch_models_of_an_anthropic_provider_sends_its_version_and_x_api_key(
    panel: ProviderPanel, qtbot: Any, loop: qasync.QEventLoop
) -> None:
    listed = {"/v1/models": (200, "application/json", json.dumps(ANTHROPIC_MODELS))}

    async def fetch() -> tuple[list[str] | None, list[dict[str, str]]]:
        async with ProtocolServer(answers=listed) as server:
            _fill(panel, qtbot, "claude", server.base_url)
            pick(qtbot, panel.provider_form.protocol, "anthropic")
            return await panel.fetch_models(), server.headers

    ids, headers = run_for(loop, fetch(), timeout=30)
    assert ids == ["claude-haiku-4-5", "claude-sonnet-4-5"]
    assert panel.models.count() == 2
    sent = headers[-1]
    assert sent.get("anthropic-version") == "2023-06-01"
    assert sent.get("x-api-key") == KEY and "authorization" not in sent


def _choose_model(window: MainWindow, qtbot: Any, pane: int, model: str) -> None:
    pick(qtbot, window.pane_set.widgets[pane].picker, f"{LOCAL_PROVIDER}|{model}")


def test_one_model_through_chat_and_anthropic_side_by_side(
    window: MainWindow, qtbot: Any, loop: qasync.QEventLoop
) -> None:
    _choose_model(window, qtbot, 0, MODEL)
    _choose_model(window, qtbot, 1, MODEL)
    second = window.pane_set.widgets[1]
    assert second.protocol.currentData() == "chat" and not second.protocol_chip.isVisible()
    pick(qtbot, second.protocol, "anthropic")
    first, second = window.pane_set.widgets[:2]  # the panes were laid out again
    assert [p.target.protocol for p in window.session.panes if p.target] == ["chat", "anthropic"]
    assert second.protocol_chip.isVisible() and second.protocol_chip.text() == "anthropic"
    assert not first.protocol_chip.isVisible()
    assert first.color != second.color  # two curves a presenter can tell apart
    final = click_run(window, qtbot, loop)
    assert final is not None and final.status == "finished"
    assert [p.state for p in window.session.panes] == [PaneState.DONE, PaneState.DONE]
    for widget in (first, second):
        assert widget.figures.text("tokens") == "32" and len(widget.text.toPlainText()) > 50
        assert widget.figures.text("ttft").endswith("ms")
    assert second.protocol_chip.text() == "anthropic" and not first.protocol_chip.isVisible()
    rows = [r for r in window.session.records.rows([final.run_id]) if r.phase == "measured"]
    assert sorted(r.protocol for r in rows) == ["anthropic", "chat"]
    for row in rows:
        assert row.model == MODEL and row.ok
        assert row.completion_tokens == 32 and (row.prompt_tokens or 0) > 3000
        assert not row.usage_estimated
    # the Summary keeps the two wires apart: one entry per protocol, each with its own figures,
    # in the panes' order (whichever request finished first)
    window.tabs.setCurrentWidget(window.summary_view)
    report = window.summary_view.document.report
    assert report.models == (MODEL, f"{MODEL} via anthropic")
    assert all(row.cell.n == 1 for row in report.rows)
    # the layout is remembered with the protocol, and comes back
    save_state(window)
    window.pane_set.set([f"{LOCAL_PROVIDER}|sim-llama-3-70b"] * 2)
    assert restore_state(window)
    assert window.pane_set.keys == [
        f"{LOCAL_PROVIDER}|{MODEL}",
        f"{LOCAL_PROVIDER}|{MODEL}|anthropic",
    ]
    # a replay of the run shows each pane's protocol again
    replay = window.replay(window.session.records.load_run(final.run_id), speed=50)
    assert replay is not None
    run_for(loop, replay)
    assert [p.target.protocol for p in window.session.panes if p.target] == ["chat", "anthropic"]
    assert window.pane_set.widgets[1].protocol_chip.text() == "anthropic"
    assert not window.pane_set.widgets[1].protocol_chip.isHidden()


def test_stop_on_one_protocols_pane_leaves_the_other_protocol_running(
    qapp: Any, qtbot: Any, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    window = make_window(loop, tmp_path, time_scale=0.2)  # slow enough to click Stop mid-stream
    try:
        window.pane_set.set([f"{LOCAL_PROVIDER}|{MODEL}", f"{LOCAL_PROVIDER}|{MODEL}|responses"])
        window.prompt.max_tokens.setValue(400)
        qtbot.mouseClick(
            window.toolbar.widgetForAction(window.run_action), Qt.MouseButton.LeftButton
        )
        task = window.session._task
        panes = window.session.panes
        run_for(loop, until(lambda: all(p.state is PaneState.STREAMING for p in panes)))
        qtbot.mouseClick(window.pane_set.widgets[1].stop_button, Qt.MouseButton.LeftButton)
        final = run_for(loop, task)
        assert final is not None
        assert [p.state for p in panes] == [PaneState.DONE, PaneState.STOPPED]
        assert panes[0].tokens == 400
    finally:
        window.close()
        loop.run_until_complete(window.session.close())


def test_target_label_names_a_protocol_other_than_chat() -> None:
    chat = Target("local", "http://127.0.0.1:1/v1", MODEL)
    anthropic = Target("local", "http://127.0.0.1:1/v1", MODEL, protocol="anthropic")
    assert chat.label == f"local/{MODEL}"
    assert anthropic.label == f"local/{MODEL} via anthropic"


def test_test_connection_of_an_anthropic_provider_checks_the_messages_path(
    panel: ProviderPanel, qtbot: Any, loop: qasync.QEventLoop
) -> None:
    """Test connection speaks the provider's protocol, and each check's row says which."""
    from workbench.local.costmodel import SimSettings
    from workbench.local.server import LocalServer

    async def test() -> None:
        server = LocalServer(settings=SimSettings(time_scale=0.01), api_key=KEY)
        await server.start()
        try:
            _fill(panel, qtbot, "sim", server.base_url)
            pick(qtbot, panel.provider_form.protocol, "anthropic")
            assert await panel.fetch_models() is not None
            panel.set_model_checked(MODEL)
            qtbot.mouseClick(panel.test_button, Qt.MouseButton.LeftButton)
            while panel.last_report is None or not panel.test_button.isEnabled():
                await asyncio.sleep(0.005)
        finally:
            await server.stop()

    run_for(loop, test(), timeout=60)
    report = panel.last_report
    assert report is not None
    assert [c for c in report.checks if not c.ok and not c.skipped] == []
    row = panel.check_row("stream")
    assert row is not None and row[0] == "✓"
    assert row[1].endswith("(anthropic /v1/messages)")
