"""One connection for both faces (issue 27, "one engine path"): a saved provider's key and
headers reach a request through `core/provider_connection.connect` alone, under one policy.

A header the user configured that cannot be used (its `${VAR}` not set, or a value HTTP cannot
carry) refuses the run before anything is sent, with the same cause in both faces: `workbench
bench --provider` (a real subprocess) exits 2 saying it, and the window's Run all (a real click)
says it in the status bar. A loopback server records every request it is sent: none arrive.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from PySide6.QtCore import QSettings, Qt

from tests.support.gui_driver import click_action, click_tab
from tests.support.loopback import serving_in_thread
from tests.support.usage_gateway import UsageGateway
from workbench.core.access.providers import KeyRef, ModelEntry, Provider
from workbench.core.history.run_history import RunStore
from workbench.core.saved.provider_store import save_providers
from workbench.ui.app import _load_providers
from workbench.ui.compare_controller import CompareController
from workbench.ui.main_window import MainWindow
from workbench.ui.pane_choices import choices_for

KEY = "sk-one-connection-0123456789abcdef"


def _recording_app(seen: list[str]) -> web.Application:
    """The usage gateway, noting the path of every request that reaches it."""

    @web.middleware
    async def record(request: web.Request, handler: Any) -> web.StreamResponse:
        seen.append(request.path)
        return await handler(request)

    app = UsageGateway().app()
    app.middlewares.append(record)
    return app


def _save(base_url: str, header: str) -> None:
    save_providers(
        [
            Provider(
                "gw",
                base_url,
                key=KeyRef("env", "ONE_CONNECTION_KEY"),
                headers={"X-Team": header},
                models=(ModelEntry("gw-model"),),
            )
        ]
    )


def _cli(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path / "cli-data")}
    flags = ["--provider", "gw", "--model", "gw-model", "--prompt-tokens", "256"]
    return subprocess.run(
        [sys.executable, "-m", "workbench", "bench", *flags, "--max-tokens", "8"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _window(qtbot: Any, tmp_path: Path) -> MainWindow:
    session = CompareController(store=RunStore(tmp_path / "gui-history.sqlite3"))
    _load_providers(session)  # the providers file, as the app loads it
    window = MainWindow(session, QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.pane_set.set_choices(choices_for(session))
    window.pane_set.set(["gw|gw-model"])
    window.prompt.set_tokens(256)
    window.show()
    return window


@pytest.mark.parametrize(
    ("header", "environment", "cause"),
    [
        (
            "${ONE_CONNECTION_TEAM}",
            None,
            "provider 'gw': header 'X-Team' uses ${ONE_CONNECTION_TEAM}, and environment "
            "variable ONE_CONNECTION_TEAM is not set",
        ),
        (
            "${ONE_CONNECTION_TEAM}",
            "b\u00e9nch",
            "provider 'gw': the header 'X-Team' contains a non-ASCII character",
        ),
        ("bench\u3000team", None, "provider 'gw': the header 'X-Team' contains a non-ASCII"),
    ],
    ids=["unset-variable", "variable-not-ascii", "literal-not-ascii"],
)
def test_an_unusable_header_refuses_the_run_in_both_faces_and_nothing_is_sent(
    loop, qtbot, tmp_path, monkeypatch, header, environment, cause
):
    monkeypatch.setenv("ONE_CONNECTION_KEY", KEY)
    if environment is None:
        monkeypatch.delenv("ONE_CONNECTION_TEAM", raising=False)
    else:
        monkeypatch.setenv("ONE_CONNECTION_TEAM", environment)
    seen: list[str] = []
    with serving_in_thread(_recording_app(seen)) as base_url:
        _save(base_url, header)
        cli = _cli(tmp_path)
        from_cli, seen[:] = list(seen), []
        window = _window(qtbot, tmp_path)
        click_action(window, qtbot, window.run_action)
        shown = window.statusBar().currentMessage()
        running = window.session.running
        capacity = window.capacity_view  # the Capacity tab's Search: the same refusal
        click_tab(window, qtbot, capacity)
        qtbot.mouseClick(capacity.run_button, Qt.MouseButton.LeftButton)
        searched = capacity.status.text()
        running = running or window.session.running
        loop.run_until_complete(window.session.close())
        from_window = list(seen)

    assert cli.returncode == 2, cli.stderr
    assert cause in cli.stderr
    assert f"Cannot run: {cause}" in shown
    assert searched.startswith(f"Cannot run: {cause}")
    assert not running  # no run started, from Run all or from Search
    assert from_cli == [] and from_window == []  # nothing was sent, not even GET /models
    assert "b\u00e9nch" not in cli.stderr + shown + searched
    assert KEY not in cli.stderr + shown + searched
