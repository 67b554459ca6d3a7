"""Gateway overhead, measured: the built-in provider as the direct route and a forwarding
gateway of the test's own (a known delay) on 127.0.0.1, through the real runner and the real
`workbench bench --compare-route`; the added TTFT must come out as the delay put in."""

from __future__ import annotations

import csv
import itertools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from aiohttp import web

from tests.support.cli_inprocess import run_cli
from tests.support.delay_gateway import delay_gateway
from tests.support.loopback import ThreadedLoop, serving, serving_in_thread
from workbench.cli import main
from workbench.core.foundation.results import ErrorClass, Target
from workbench.core.history.route_compare import compare_routes, levels_json
from workbench.core.history.run_history import DB_FILENAME, RunStore
from workbench.core.planning.run_events import RunFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.runner import Runner
from workbench.core.transport.clients import ClientPool, make_client, network_baseline_ms
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer

MODEL = "sim-70b-gqa"
DELAY_S = 0.15
# On a loaded 2-core machine the direct route's median may come out this much slower than its
# share (the difference then falls short of the delay), and the forwarding itself may add
# FORWARD_SLACK_MS beyond the delay.
NOISE_MS = 30.0
FORWARD_SLACK_MS = 60.0
# At 4 at once the server batches (continuous batching): a request arriving a moment after the
# others waits for their prefill step. Through the gateway the arrivals spread by its forwarding
# (a ms or two), which at 1K prompts once put a whole prefill (~136 ms) into the added median
# (a serial-tier run, seed 761686080); at 256 tokens a prefill is a few ms, inside the slack.
PROMPT_TOKENS = 256


def _targets(direct: str, gateway: str, gateway_model: str = MODEL) -> tuple[Target, Target]:
    return (
        Target("direct", direct, MODEL, route="direct"),
        Target("gateway", gateway, gateway_model, route="gateway"),
    )


async def _run(plan: RunPlan) -> RunFinished:
    pool = ClientPool()
    try:
        async for event in Runner(pool).run(plan):
            if isinstance(event, RunFinished):
                return event
    finally:
        await pool.aclose()
    raise AssertionError("the run ended without RunFinished")


async def test_added_ttft_per_level_is_the_gateways_delay() -> None:
    # tokens ~4 ms apart: far enough for the forwarding not to bunch them on a busy machine
    async with LocalServer(settings=SimSettings(time_scale=0.2)) as server:
        app = delay_gateway(server.base_url, DELAY_S, aliases={"gw-gqa": MODEL})
        async with serving(app) as gateway:
            plan = RunPlan(
                targets=_targets(server.base_url, gateway, "gw-gqa"),
                prompt_lengths=(PROMPT_TOKENS,),
                repeats=5,
                concurrency_levels=(1, 4),
                max_tokens=24,
                mode="sequential",
            )
            final = await _run(plan)
    assert final.status == "finished"
    measured = [r for r in final.results if not r.warmup]
    assert len(measured) == plan.total_requests == 2 * (5 + 5)
    assert {(r.route, r.concurrency) for r in measured} == {
        (route, c) for route in ("direct", "gateway") for c in (1, 4)
    }
    levels = compare_routes(final.results)
    assert [level.concurrency for level in levels] == [1, 4]
    delay_ms = DELAY_S * 1000
    for level in levels:
        assert level.direct.n == level.gateway.n == 5
        assert level.added_ttft_median_ms is not None and level.added_ttft_p90_ms is not None
        assert delay_ms - NOISE_MS <= level.added_ttft_median_ms <= delay_ms + FORWARD_SLACK_MS
        assert level.added_e2e_median_ms is not None
        assert delay_ms - NOISE_MS <= level.added_e2e_median_ms <= delay_ms + FORWARD_SLACK_MS
        # the delay sits before the first token: decode speed moves far less than TTFT does
        # (the forwarding gateway's own relaying costs decode some speed on a loaded 2-core box:
        # up to 35 % was seen with eight test runs beside it)
        assert abs(level.decode_tps_change_pct or 0.0) < 50


async def test_routes_run_one_after_another_never_at_once() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.05)) as server:
        async with serving(delay_gateway(server.base_url, 0.01)) as gateway:
            plan = RunPlan(
                targets=_targets(server.base_url, gateway),
                prompt_lengths=(512,),
                repeats=3,
                concurrency_levels=(1, 3),
                max_tokens=16,
                mode="sequential",
            )
            final = await _run(plan)
    spans: dict[tuple[int, str], tuple[int, int]] = {}
    for r in final.results:
        if r.warmup or r.t_send is None or r.t_done is None:
            continue
        key = (r.concurrency, str(r.route))
        start, end = spans.get(key, (r.t_send, r.t_done))
        spans[key] = (min(start, r.t_send), max(end, r.t_done))
    order = sorted(spans, key=lambda k: spans[k][0])
    assert order == [(1, "direct"), (1, "gateway"), (3, "direct"), (3, "gateway")]
    for earlier, later in itertools.pairwise(order):
        assert spans[earlier][1] <= spans[later][0]  # no overlap: one upstream, one route


async def test_baseline_is_measured_on_the_chat_path_of_each_target() -> None:
    # the gateway's chat path costs 50 ms more than its model list, as LiteLLM's does
    async with LocalServer(settings=SimSettings(time_scale=0.05)) as server:
        app = delay_gateway(server.base_url, chat_delay_s=0.05, models_delay_s=0.0)
        async with serving(app) as gateway:
            client = make_client(gateway, None)
            try:
                models_ms = await network_baseline_ms(client)
            finally:
                await client.close()
            plan = RunPlan(
                targets=_targets(server.base_url, gateway),
                prompt_lengths=(512,),
                max_tokens=8,
                mode="sequential",
            )
            final = await _run(plan)
    by_route = {r.route: r for r in final.results if not r.warmup}
    assert {r.baseline_method for r in by_route.values()} == {"chat"}
    direct, via = by_route["direct"].network_baseline_ms, by_route["gateway"].network_baseline_ms
    assert direct is not None and via is not None
    assert models_ms is not None and models_ms < 40  # GET /models misses the chat path's cost
    assert 50 - 10 <= via <= 50 + FORWARD_SLACK_MS  # a median of three, on an idle path
    assert direct < 40
    # calibration and baseline requests are not rows of the plan
    assert len([r for r in final.results if not r.warmup]) == plan.total_requests == 2


async def test_baseline_falls_back_to_the_model_list_when_the_chat_path_refuses() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.05)) as server:
        # the alias routes to an id the upstream does not serve: every chat request fails
        app = delay_gateway(server.base_url, 0.0, aliases={"gw-broken": "no-such-model"})
        async with serving(app) as gateway:
            plan = RunPlan(
                targets=(Target("gateway", gateway, "gw-broken", route="gateway"),),
                prompt_lengths=(512,),
                max_tokens=8,
                calibrate=False,  # a refused calibration stops the target before any probe
            )
            final = await _run(plan)
    row = next(r for r in final.results if not r.warmup)
    assert row.error_class is ErrorClass.MODEL_NOT_FOUND
    assert row.baseline_method == "models" and row.network_baseline_ms is not None


async def test_a_route_comparison_counts_failures_per_route_and_leaves_warmups_out() -> None:
    async def refuse(_request: web.Request) -> web.Response:
        return web.json_response({"error": {"message": "upstream down"}}, status=503)

    broken = web.Application()
    broken.router.add_route("*", "/v1/{tail:.*}", refuse)
    async with LocalServer(settings=SimSettings(time_scale=0.05)) as server:
        async with serving(broken) as gateway:
            plan = RunPlan(
                targets=_targets(server.base_url, gateway),
                prompt_lengths=(512,),
                repeats=2,
                warmup=1,
                max_tokens=8,
                mode="sequential",
            )
            final = await _run(plan)
    (level,) = compare_routes(final.results)
    assert (level.direct.n, level.direct.errors) == (2, 0)
    assert (level.gateway.n, level.gateway.errors) == (0, 2)
    assert level.added_ttft_median_ms is None  # no figure is made up from one side alone


# ---- the command a user runs ----


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path / "data"), "GW_KEY": "sk-gw-secret-7"}


def test_compare_route_prints_the_added_ttft_writes_route_rows_and_a_chart(
    tmp_path: Path, env: dict[str, str]
) -> None:
    out, chart = tmp_path / "routes.csv", tmp_path / "routes.png"
    with _local_in_thread() as direct:
        app = delay_gateway(direct, DELAY_S, aliases={"gw-gqa": MODEL}, key="sk-gw-secret-7")
        with serving_in_thread(app) as gateway:
            argv = ["bench", "--compare-route", direct, gateway, "--model", MODEL]
            argv += ["--gateway-model", "gw-gqa", "--gateway-key-env", "GW_KEY"]
            argv += ["--concurrency", "1,4", "--repeats", "4"]
            argv += ["--prompt-tokens", str(PROMPT_TOKENS)]
            argv += ["--max-tokens", "16", "--csv", str(out), "--chart", str(chart)]
            # a process of its own: the chart starts a QGuiApplication, and one in this process
            # would abort a later test's QWidget (it needs a QApplication)
            proc = subprocess.run(
                [sys.executable, "-m", "workbench", *argv],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
                check=False,
            )
    assert proc.returncode == 0, proc.stderr
    assert "sk-gw-secret-7" not in proc.stdout + proc.stderr
    added = [line.split() for line in proc.stdout.splitlines() if " added " in line]
    assert [row[0] for row in added] == ["1", "4"]
    for row in added:  # conc, "added", TTFT median, TTFT p90, ...
        assert DELAY_S * 1000 - NOISE_MS <= float(row[2]) <= DELAY_S * 1000 + FORWARD_SLACK_MS
    with out.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted({(r["route"], r["model"], r["concurrency"]) for r in rows}) == [
        ("direct", MODEL, "1"),
        ("direct", MODEL, "4"),
        ("gateway", "gw-gqa", "1"),
        ("gateway", "gw-gqa", "4"),
    ]
    # the baseline is probed after each target's calibration, so only that row lacks it
    assert {r["baseline_method"] for r in rows if r["phase"] == "measured"} == {"chat"}
    assert {r["baseline_method"] for r in rows if r["phase"] == "calibration"} == {""}
    assert "sk-gw-secret-7" not in out.read_text(encoding="utf-8-sig")
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and chart.stat().st_size > 5000


def test_compare_route_json_prints_the_route_comparison_of_the_history(
    tmp_path: Path, env: dict[str, str]
) -> None:
    with _local_in_thread() as direct:
        app = delay_gateway(direct, DELAY_S, aliases={"gw-gqa": MODEL}, key="sk-gw-secret-7")
        with serving_in_thread(app) as gateway:
            argv = ["bench", "--compare-route", direct, gateway, "--model", MODEL, "--json"]
            argv += ["--gateway-model", "gw-gqa", "--gateway-key-env", "GW_KEY"]
            argv += ["--concurrency", "1,2", "--repeats", "3", "--prompt-tokens", "1K"]
            argv += ["--max-tokens", "8", "--output", str(tmp_path / "out")]
            proc = run_cli(argv, env)
    assert proc.returncode == 0, proc.stderr
    assert "sk-gw-secret-7" not in proc.stdout + proc.stderr
    document = json.loads(proc.stdout)  # stdout holds the document alone
    assert json.loads((tmp_path / "out" / "run.json").read_text(encoding="utf-8")) == document
    assert document["schema"] == "workbench.route_compare/1" and "aggregates" not in document
    assert [t["route"] for t in document["config"]["targets"]] == ["direct", "gateway"]
    assert document["rows"]["measured"] == 12 and document["rows"]["failed"] == 0
    levels = document["levels"]
    assert [level["concurrency"] for level in levels] == [1, 2]
    for level in levels:
        assert level["direct"]["n"] == level["gateway"]["n"] == 3
        added = level["added"]
        assert DELAY_S * 1000 - NOISE_MS <= added["ttft_median_ms"]
        assert added["ttft_median_ms"] <= DELAY_S * 1000 + FORWARD_SLACK_MS
        gap = level["gateway"]["ttft_p90_ms"] - level["direct"]["ttft_p90_ms"]
        assert added["ttft_p90_ms"] == pytest.approx(gap)
        assert added["decode_tps"] == pytest.approx(
            level["gateway"]["decode_tps_median"] - level["direct"]["decode_tps_median"]
        )
    # the figures are those of the run's rows in the history, as the text table would show
    with RunStore(Path(env["WORKBENCH_DATA_DIR"]) / DB_FILENAME) as store:
        from_history = compare_routes(store.results(document["run_id"]))
    assert levels == json.loads(json.dumps(levels_json(from_history)))


@contextmanager
def _local_in_thread() -> Iterator[str]:
    """The built-in provider on a loop of its own thread (the CLI runs in a subprocess)."""
    with ThreadedLoop() as background:
        server = LocalServer(settings=SimSettings(time_scale=0.05))
        background.run(server.start())
        try:
            yield server.base_url
        finally:
            background.run(server.stop())


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (
            ["--concurrency", "1,8"],
            "--concurrency: a list of levels runs only with --compare-route",
        ),
        (["--chart", "x.png"], "--chart belongs to a route comparison"),
        (["--gateway-model", "a"], "--gateway-model belongs to a route comparison"),
        (["--compare-route", "http://a/v1", "http://b/v1", "--model", "m2"], "give --model once"),
        (["--compare-route", "http://a/v1", "http://a/v1"], "both routes are"),
        (["--compare-route", "http://a/v1", "ftp://b"], "GATEWAY_URL"),
        (["--compare-route", "http://a/v1", "http://b/v1", "--chart", "c.pdf"], "ending in .png"),
        (["--compare-route", "http://a/v1", "http://b/v1", "--simultaneous"], "never runs"),
        (["--compare-route", "http://a/v1", "http://b/v1", "--prompt-tokens", "1K,2K"], "one"),
        (["--compare-route", "http://a/v1", "http://b/v1", "--base-url", "http://c/v1"], "drop"),
        (["--compare-route", "http://a/v1", "http://b/v1", "--concurrency", "1,1"], "repeat"),
    ],
)
def test_bad_route_comparison_flags_exit_2_naming_the_fix(
    extra: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "--model", "m", "--no-store", "--csv", str(tmp_path / "x.csv"), *extra]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and says in err, err
    assert "Traceback" not in err and not (tmp_path / "x.csv").exists()
