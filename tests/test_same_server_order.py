"""Several models on one server share its compute: `bench` runs them one after another unless
--simultaneous asks otherwise, and then says in one line why that skews the figures."""

from __future__ import annotations

from pathlib import Path

from gateway_imitation import Imitation
from test_gateway_answers import _cli, _serve

from workbench.core.foundation.results import Target
from workbench.core.planning.run_plan import RunPlan

MODELS = ["tiny-gqa", "tiny-mha"]


def _overlaps(spans: list[tuple[str, float, float]]) -> bool:
    """Whether a request of one model was in flight while one of another model was."""
    return any(
        a[0] != b[0] and a[1] < b[2] and b[1] < a[2] for i, a in enumerate(spans) for b in spans[i:]
    )


def _bench(url: str, tmp_path: Path, *extra: str) -> tuple[int, str]:
    models = [arg for m in MODELS for arg in ("--model", m)]
    run = _cli(
        "bench", "--base-url", url, *models, "--prompt-tokens", "128", "--max-tokens", "4",
        "--repeats", "2", "--no-store", "--csv", str(tmp_path / "r.csv"), *extra,
    )  # fmt: skip
    return run.returncode, run.stderr


def test_models_on_one_server_run_one_after_another_by_default(tmp_path: Path) -> None:
    imitation = Imitation(MODELS, MODELS, token_delay_s=0.05)
    for url in _serve(imitation):
        code, stderr = _bench(url, tmp_path)
    assert code == 0, stderr
    assert len(imitation.spans) >= 4 and not _overlaps(imitation.spans)  # with calibrations
    assert "share its compute" not in stderr


def test_simultaneous_runs_them_at_once_with_a_warning_why(tmp_path: Path) -> None:
    imitation = Imitation(MODELS, MODELS, token_delay_s=0.05)
    for url in _serve(imitation):
        code, stderr = _bench(url, tmp_path, "--simultaneous")
    assert code == 0, stderr
    assert _overlaps(imitation.spans)
    warnings = [line for line in stderr.splitlines() if "share its compute" in line]
    assert len(warnings) == 1 and "2 models run at once on one server" in warnings[0]


def _plan(mode: str, *targets: tuple[str, str, str]) -> RunPlan:
    return RunPlan(
        targets=tuple(Target(p, url, m) for p, url, m in targets),
        prompt_lengths=(1024,),
        mode=mode,  # type: ignore[arg-type]
    )


def test_the_gui_warns_when_models_on_one_server_run_at_once(qapp, loop, tmp_path: Path) -> None:
    from PySide6.QtCore import QSettings

    from workbench.ui.compare_controller import LOCAL_PROVIDER, CompareController
    from workbench.ui.main_window import MainWindow, shared_server

    gw = "http://127.0.0.1:4000/v1"
    same = _plan("parallel", ("gw", gw, "a"), ("gw2", "http://127.0.0.1:4000", "b"))
    assert shared_server(same) == "127.0.0.1:4000"
    assert shared_server(_plan("sequential", ("gw", gw, "a"), ("gw", gw, "b"))) is None
    apart = _plan("parallel", ("gw", gw, "a"), ("other", "http://127.0.0.1:4001/v1", "b"))
    assert shared_server(apart) is None
    local = "http://127.0.0.1:5000/v1"
    built_in = _plan("parallel", (LOCAL_PROVIDER, local, "a"), (LOCAL_PROVIDER, local, "b"))
    assert shared_server(built_in) is None  # simulated models share no compute

    settings = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)
    session = CompareController(store=None)
    window = MainWindow(session, settings)
    try:
        window._warn_shared_server(same)
        message = window.statusBar().currentMessage()
        assert "127.0.0.1:4000" in message and "share its compute" in message
    finally:
        window.close()
        loop.run_until_complete(session.close())
