"""One plan for both faces (issue 15, step 1): the window and `workbench bench` measure a saved
provider under the same plan and send it the same requests.

The provider is saved once in providers.toml with its own timeouts, an extra header and a model
entry; a loopback server records every request. The CLI runs as a real subprocess, the window is
driven by a click on Run all; each face keeps its own history (and calibration), and the test
compares the plans the two histories recorded and the requests the server saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import json
import os
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from PySide6.QtCore import QSettings

from tests.support.gui_driver import click_action, click_run
from tests.support.loopback import serving_in_thread
from tests.support.usage_gateway import UsageGateway
from workbench.core.access.providers import KeyRef, ModelEntry, Provider
from workbench.core.foundation.results import ErrorClass, Prices, Target, Timeouts
from workbench.core.history.run_history import RunStore
from workbench.core.models.catalog import load_catalog
from workbench.core.planning.run_plan import RunPlan, RunSettings
from workbench.core.run.plan import Choices, build_plan, saved_target
from workbench.core.saved.provider_store import save_providers
from workbench.ui.app import _load_providers
from workbench.ui.compare_controller import CompareController
from workbench.ui.main_window import MainWindow
from workbench.ui.provider_controller import choices_for

KEY = "sk-one-plan-0123456789abcdef"
PROMPT_TOKENS = 512
MAX_TOKENS = 8


class RecordingGateway(UsageGateway):
    """The usage gateway, recording what each chat request carried (its prompt text aside:
    each request's nonce makes it unique)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[dict[str, Any]] = []

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = dict(await request.json())
        messages = body.pop("messages", [])
        self.seen.append(
            {
                "body": body,
                "roles": [m.get("role") for m in messages],
                "authorization": request.headers.get("Authorization"),
                "x-team": request.headers.get("X-Team"),
            }
        )
        return await super()._chat(request)


STALL_S = 2.0  # how long the stalling server goes quiet mid-stream
STALL_LIMIT_S = 0.5  # the saved provider's stall limit: well under the stall, far under 60 s


class StallingGateway(UsageGateway):
    """The usage gateway, except that a measured request (more output than a calibration's 16
    tokens) goes quiet for STALL_S after its first token."""

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        payload = await request.json()
        if int(payload.get("max_tokens") or 0) <= 16:
            return await super()._chat(request)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        choice = {"index": 0, "delta": {"content": "w0 "}, "finish_reason": None}
        event = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "choices": [choice]}
        with contextlib.suppress(ConnectionError):  # the client gave up on the stall: fine
            await response.write(f"data: {json.dumps(event)}\n\n".encode())
            await asyncio.sleep(STALL_S)
            await response.write(b"data: [DONE]\n\n")
        return response


def _save_provider(base_url: str, **limits: float) -> Provider:
    provider = Provider(
        "gw",
        base_url,
        key=KeyRef("env", "ONE_PLAN_KEY"),
        headers={"X-Team": "bench"},
        first_token_timeout_s=42.0,
        stall_timeout_s=7.0,
        total_timeout_s=99.0,
        models=(ModelEntry("gw-model", attention="gqa", context_window=8192, prices=Prices(1, 2)),),
    )
    provider = replace(provider, **limits)
    save_providers([provider])
    return provider


def _run_cli(tmp_path: Path, max_tokens: int = MAX_TOKENS) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path / "cli-data")}
    flags = ["--provider", "gw", "--model", "gw-model", "--prompt-tokens", str(PROMPT_TOKENS)]
    flags += ["--max-tokens", str(max_tokens), "--csv", str(tmp_path / "cli.csv")]
    return subprocess.run(
        [sys.executable, "-m", "workbench", "bench", *flags],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _run_window(loop: Any, qtbot: Any, tmp_path: Path, max_tokens: int = MAX_TOKENS) -> Any:
    """The window as the app builds it (providers from the file), one pane, Run all clicked."""
    session = CompareController(store=RunStore(tmp_path / "gui-history.sqlite3"))
    _load_providers(session)
    settings = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)
    window = MainWindow(session, settings)
    qtbot.addWidget(window)
    window.pane_set.set_choices(choices_for(session))
    window.pane_set.set(["gw|gw-model"])
    window.mode.setCurrentIndex(window.mode.findData("sequential"))  # the CLI's default here
    window.prompt.set_tokens(PROMPT_TOKENS)
    window.prompt.max_tokens.setValue(max_tokens)
    window.show()
    final = click_run(window, qtbot, loop)
    loop.run_until_complete(session.close())
    return final


def _signatures(seen: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(s, sort_keys=True) for s in seen)


def test_window_and_cli_send_a_saved_provider_the_same_plan(loop, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("ONE_PLAN_KEY", KEY)
    gateway = RecordingGateway()
    with serving_in_thread(gateway.app()) as base_url:
        _save_provider(base_url)
        cli = _run_cli(tmp_path)
        assert cli.returncode == 0, cli.stderr
        from_cli, gateway.seen = gateway.seen, []
        final = _run_window(loop, qtbot, tmp_path)
        assert final is not None and final.status == "finished"
        from_window = gateway.seen

    # the same requests reached the server: bodies, the key and the provider's extra header
    assert from_cli and _signatures(from_window) == _signatures(from_cli)
    assert {s["authorization"] for s in from_window} == {f"Bearer {KEY}"}
    assert {s["x-team"] for s in from_window} == {"bench"}

    # the same plan was recorded, with the provider's own limits on its target
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "cli-data"))
    with RunStore() as cli_store, RunStore(tmp_path / "gui-history.sqlite3") as gui_store:
        (cli_run,) = cli_store.runs()
        (gui_run,) = gui_store.runs()
    assert gui_run.config == cli_run.config
    (target,) = gui_run.config["targets"]
    assert target["timeouts"] == {"first_token_s": 42.0, "stall_s": 7.0, "total_s": 99.0}
    # said once: a run's limits are its targets', with no plan-wide copy that could disagree
    assert not [key for key in gui_run.config if "timeout" in key]
    assert (target["attention"], target["context_window"]) == ("gqa", 8192)
    assert (target["prices"]["input"], target["prices"]["output"]) == (1, 2)


def test_both_faces_stop_a_stalled_stream_at_the_saved_providers_stall_limit(
    loop, qtbot, tmp_path, monkeypatch
):
    monkeypatch.setenv("ONE_PLAN_KEY", KEY)
    with serving_in_thread(StallingGateway().app()) as base_url:
        _save_provider(base_url, stall_timeout_s=STALL_LIMIT_S)
        cli = _run_cli(tmp_path, max_tokens=32)
        final = _run_window(loop, qtbot, tmp_path, max_tokens=32)
    assert cli.returncode == 3, cli.stderr  # some requests failed
    with (tmp_path / "cli.csv").open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["phase"] == "measured"]
    assert [r["error_class"] for r in rows] == ["stall_timeout"]
    (measured,) = [r for r in final.results if r.phase == "measured"]
    assert measured.error_class is ErrorClass.STALL  # not the 60 s default: it would succeed


def test_a_timeout_flag_overrides_the_provider_and_the_rest_stay_its_own():
    provider = Provider("gw", "http://127.0.0.1:9/v1", first_token_timeout_s=42.0)
    target = saved_target(load_catalog(), provider, "gw-model")
    plan = build_plan([target], Choices(prompt_lengths=(128,), timeouts=Timeouts(None, 3.0, None)))
    assert plan.targets[0].timeouts == Timeouts(42.0, 3.0, None)


def test_a_target_made_by_hand_carries_the_default_limits_itself():
    """One home for a request's limits (issue 27): a target's, never a plan-wide fallback."""
    target = Target("p", "http://127.0.0.1:9/v1", "m")
    plan = RunPlan(targets=(target,), prompt_lengths=(256,))
    assert plan.targets[0].timeouts == Timeouts()
    assert not [f.name for f in fields(RunPlan) if "timeout" in f.name]


def test_choices_and_the_plan_say_each_setting_once():
    """The settings both share are declared once (RunSettings); the one name both declare is
    `kind`: a choice (None: by the lengths) in Choices, the run's kind (a replay too) in RunPlan."""
    shared = {f.name for f in fields(RunSettings)}
    own_choices = {f.name for f in fields(Choices)} - shared
    own_plan = {f.name for f in fields(RunPlan)} - shared
    assert own_choices & own_plan == {"kind"}
    assert "prompt_lengths" in shared and own_choices == {"timeouts", "kind"}


def test_a_provider_without_own_limits_gets_the_defaults_not_none():
    target = saved_target(load_catalog(), Provider("gw", "http://127.0.0.1:9/v1"), "m")
    plan = build_plan([target], Choices(prompt_lengths=(128,)))
    assert plan.targets[0].timeouts == Timeouts()
    assert Timeouts().first_token_s == 300.0 and Timeouts().stall_s == 60.0


def test_a_built_in_fault_model_keeps_the_catalog_facts():
    from workbench.core.run.plan import local_target

    catalog = load_catalog()
    model = catalog.simulated()[0]
    target = local_target(catalog, None, f"{model.id}+429")
    assert (target.attention, target.context_window) == (model.attention, model.context_window)


@pytest.mark.parametrize("seconds", [-1.0, 1e9])
def test_a_provider_timeout_out_of_range_is_refused_naming_the_target(seconds):
    provider = Provider("gw", "http://127.0.0.1:9/v1", stall_timeout_s=seconds)
    target = saved_target(load_catalog(), provider, "m")
    with pytest.raises(ValueError, match="gw/m: stall timeout must be more than 0"):
        build_plan([target], Choices(prompt_lengths=(128,)))


def test_a_saved_timeout_beyond_a_day_stops_run_all_with_words_not_a_traceback(
    loop, qtbot, tmp_path
):
    slow = Provider("slow", "http://127.0.0.1:9/v1", first_token_timeout_s=200_000.0)
    save_providers([replace(slow, models=(ModelEntry("m"),))])
    session = CompareController(store=RunStore(tmp_path / "gui-history.sqlite3"))
    _load_providers(session)
    window = MainWindow(session, QSettings(str(tmp_path / "g.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.pane_set.set_choices(choices_for(session))
    window.pane_set.set(["slow|m"])
    try:
        click_action(window, qtbot, window.run_action)
        assert window.session._task is None  # nothing was sent
        message = window.statusBar().currentMessage()
        assert "slow/m: first-token timeout must be more than 0 and at most 86400 s" in message
        assert "Providers tab" in message
    finally:
        loop.run_until_complete(session.close())
