"""`workbench bench --slo`: each request met or missed, and each cell's goodput (issue 29,
item 3). Parsing and counting on the pure module; a real run against `serve-local`."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import pytest
from test_open_loop import MODEL, WORKBENCH, measured_rows, serve_local

from workbench.core.foundation.metrics import derive
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.load.slo import Objective, goodput, holds, parse_slo, request_meets

MS = 1_000_000  # ns


def test_an_slo_reads_any_figure_percentile_and_unit() -> None:
    assert parse_slo("ttft_p90:2s,tpot_p90:50ms,e2e_p99:30s") == (
        Objective("ttft", 90, 2000),
        Objective("tpot", 90, 50),
        Objective("e2e", 99, 30_000),
    )
    assert parse_slo(" e2el_p99.9:1.5s ") == (Objective("e2e", 99.9, 1500),)  # vLLM's name


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "give one or more FIGURE_pNN:LIMIT terms"),
        ("ttft_p90:2s,", "give one or more FIGURE_pNN:LIMIT terms"),
        ("ttft:2s", "'ttft:2s': write FIGURE_pNN:LIMIT, e.g. ttft_p90:2s"),
        ("ttft_p90", "'ttft_p90': write FIGURE_pNN:LIMIT"),
        ("latency_p90:2s", "unknown figure 'latency'; use one of ttft, ttfc, tpot, itl, e2e"),
        ("ttft_p0:2s", "'ttft_p0:2s': the percentile must be 0 < p <= 100"),
        ("ttft_p101:2s", "the percentile must be 0 < p <= 100"),
        ("ttft_p90:2", "'ttft_p90:2': the limit needs a number and a unit, ms or s"),
        ("ttft_p90:2min", "needs a number and a unit, ms or s, e.g. 2s or 50ms"),
        ("ttft_p90:0ms", "the limit must be more than 0"),
        ("ttft_p90:1s,ttft_p90:2s", "ttft_p90 is given twice"),
    ],
)
def test_a_bad_slo_names_the_bad_part_and_the_fix(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=None) as caught:
        parse_slo(text)
    assert says in str(caught.value)


def _known(ttft_ms: int, e2e_ms: int, start_s: float, ok: bool = True) -> RequestResult:
    """A measured request due at `start_s` (wall clock) and sent at once."""
    t0 = 10_000 * MS
    result = RequestResult(model="m", started_at=start_s, t_intended=t0, t_send=t0)
    result.t_first_token = t0 + ttft_ms * MS
    result.t_last_token = result.t_done = t0 + e2e_ms * MS
    result.event_times = [result.t_first_token, result.t_last_token]
    result.completion_tokens = 2
    if not ok:
        result.error_class = ErrorClass.SERVER
    return result


def test_goodput_counts_the_requests_that_met_every_objective_per_second() -> None:
    slo = parse_slo("ttft_p90:550ms,e2e_p99:2s")
    # TTFT 100..1000 ms, one request a second; the last is slow end to end, one failed
    rows = [_known(100 * (i + 1), 100 * (i + 1) + 50, 1000.0 + i) for i in range(10)]
    rows[2] = _known(300, 2500, 1002.0)  # TTFT fine, e2e over 2 s
    rows[3] = _known(400, 450, 1003.0, ok=False)
    pairs = [(r, derive(r)) for r in rows]
    verdicts = [request_meets(r, m, slo) for r, m in pairs]
    assert verdicts == [True, True, False, False, True, False, False, False, False, False]
    for (r, _), verdict in zip(pairs, verdicts, strict=True):
        r.slo_met = verdict
    good = goodput(pairs)
    assert good is not None and (good.met, good.judged) == (3, 10)
    assert good.attainment == pytest.approx(0.3)
    # from the first due time (1000.0) to the last end (1009.0 + 1.05 s)
    assert good.duration_s == pytest.approx(10.05)
    assert good.request_goodput == pytest.approx(3 / 10.05)
    # the cell's p90 TTFT is 910 ms: over 550 ms, so the SLO does not hold for the cell
    assert not holds(slo, [m for _, m in pairs])
    assert holds(parse_slo("ttft_p50:600ms"), [m for _, m in pairs])
    assert request_meets(rows[0], pairs[0][1], ()) is None  # no SLO, no verdict


def test_a_bad_slo_flag_exits_2_before_anything_is_sent(tmp_path: Path) -> None:
    args = ["bench", "--model", MODEL, "--csv", str(tmp_path / "x.csv"), "--slo", "ttft_p90:2"]
    done = subprocess.run([*WORKBENCH, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "argument --slo: 'ttft_p90:2': the limit needs a number and a unit" in done.stderr
    assert not (tmp_path / "x.csv").exists()


@pytest.fixture
def slow_server():
    yield from serve_local(0.25)  # a 1K prompt and 8 tokens take about 70 ms


def _wall(row: dict[str, str]) -> float:
    return dt.datetime.fromisoformat(row["started_at"].replace("Z", "+00:00")).timestamp()


def test_goodput_is_counted_from_the_rows_met_and_missed(
    tmp_path: Path, env: dict[str, str], slow_server: str
) -> None:
    failing = f"{MODEL}+500"  # the server answers 500 to every request of this id
    out = tmp_path / "out"
    args = ["bench", "--base-url", slow_server, "--model", MODEL, "--model", failing]
    args += ["--prompt-tokens", "1K", "--max-tokens", "8", "--output", str(out)]
    args += ["--rate", "40", "--arrivals", "constant", "--max-requests", "16"]
    args += ["--max-concurrency", "1", "--slo", "ttft_p90:300ms,e2e_p99:10s"]
    done = subprocess.run([*WORKBENCH, *args], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 3, done.stderr  # the failing model's requests failed
    rows = measured_rows(out / "results.csv")
    good = [r for r in rows if r["model"] == MODEL]
    bad = [r for r in rows if r["model"] == failing]
    assert len(good) == len(bad) == 16
    # queueing behind a cap of 1 at 40/s: the early requests meet 300 ms, the later do not
    expected = [float(r["ttft_from_scheduled_ms"]) <= 300 for r in good]
    assert [r["slo_met"] == "true" for r in good] == expected
    met = sum(expected)
    assert 0 < met < 16
    assert all(r["slo_met"] == "false" for r in bad)
    # the table: goodput and the share per cell
    table = done.stdout
    assert "goodput req/s" in table and "SLO met" in table
    assert f"{met / 16:.0%} ({met}/16)" in table and "0% (0/16)" in table
    # run.json: vLLM's request_goodput, met per second of the model's rows
    aggregates = json.loads((out / "run.json").read_text())["aggregates"]
    first = min(_wall(r) - float(r["dispatch_ms"]) / 1000 for r in good)
    last = max(_wall(r) + float(r["e2e_ms"]) / 1000 for r in good)
    assert aggregates[MODEL]["request_goodput"] == pytest.approx(met / (last - first), rel=0.02)
    assert aggregates[MODEL]["slo_attainment"] == pytest.approx(met / 16)
    assert aggregates[failing]["request_goodput"] == 0
