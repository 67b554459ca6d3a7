"""`workbench bench --capacity --slo ...`: each model's highest rate within the SLO (issue 29,
item 4), its sentence in the terminal, run.json and the Summary PDF.

The rule is checked on the pure module; the search's accuracy through a real `workbench bench`
subprocess against a real server of known capacity (tests/support/knee_server.py: 8 slots of 400 ms,
so 20 requests/s); the must-hold command through real subprocesses against the built-in
provider.
"""

from __future__ import annotations

import csv
import json
import math
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator

import jsonschema
import pytest
from test_json_docs import _schemas

from tests.support.knee_server import knee_server
from tests.support.pdf_text import read_pdf
from workbench.core.load.capacity import (
    CONFIRMATIONS,
    FLOOR_REQUESTS,
    Rule,
    Search,
    Step,
    Term,
    step_requests,
    wilson,
    worst_case,
)
from workbench.core.load.capacity_report import UNITS, model_json, section, sentence
from workbench.core.load.slo import parse_slo

WORKBENCH = [sys.executable, "-m", "workbench"]
SLOTS, SERVICE_MS = 8, 400.0
KNEE = SLOTS / (SERVICE_MS / 1000)  # requests/s


def _step(load: float, holds: bool, requests: int = 50) -> Step:
    """A step whose verdict is plain: every request within, or none."""
    return _counted(load, requests if holds else 0, requests)


def _counted(load: float, within: int, requests: int) -> Step:
    """A ttft_p90 step with `within` of `requests` within the limit, judged as the search does."""
    low, high = wilson(within, requests)
    term = Term("ttft_p90", 2000, within, requests, None, low, 90, high)
    return Step(load, requests, requests, (term,), None, None)


def _search(rule: Rule, knee: float) -> Search:
    search = Search(rule)
    while (load := search.next_load()) is not None:
        search.take(_step(load, load <= knee, rule.requests))
    return search


# ---- the rule ----


def test_wilson_bound_asks_a_margin_of_a_small_step() -> None:
    low, high = wilson(48, 50)
    assert 0.90 < low < 0.96 < high  # 48 of 50 shows a p90 at 90 % confidence
    assert wilson(46, 50)[0] < 0.90  # 46 of 50 (92 %) does not
    assert wilson(50, 50)[0] == pytest.approx(50 / (50 + 1.2816**2), abs=1e-3)


def test_a_step_that_cannot_tell_is_confirmed_at_its_load_then_judged_by_its_share() -> None:
    """45 of 50 within a p90 (90 %) is neither shown held nor shown missed at 90 %
    confidence: the same load again, judged on both steps' requests together."""
    assert wilson(45, 50)[0] < 0.9 < wilson(45, 50)[1]
    rule = Rule(low=1, high=16, requests=50)
    search = Search(rule)
    first = search.next_load()
    assert first is not None
    search.take(_counted(first, 45, 50))
    assert search.next_load() == first  # a confirming step
    search.take(_counted(first, 91, 100))  # both steps: 91 of 100, still undecided
    assert len(search.steps) == 1 and search.used == 100 and search.confirmations == 1
    assert search.steps[0].holds  # 91 % is at least the percentile
    assert search.next_load() == first * 2  # decided: the search goes on up
    search.take(_counted(first * 2, 44, 50))
    assert search.next_load() == first * 2
    search.take(_counted(first * 2, 88, 100))  # 88 %: misses by its share
    assert not search.steps[-1].holds
    # no confirmation left: an undecided step is judged by its share at once
    third = search.next_load()
    assert third is not None and first < third < first * 2
    search.take(_counted(third, 46, 50))
    assert search.next_load() != third and search.steps[-1].holds


def test_a_step_shown_either_way_is_not_confirmed() -> None:
    rule = Rule(low=1, high=16, requests=50)
    for within, holds in ((49, True), (38, False)):
        search = Search(rule)
        search.take(_counted(4.0, within, 50))
        assert search.steps[0].shown and search.steps[0].holds is holds
        assert search.next_load() == (8.0 if holds else 2.0)


def test_the_worst_case_counts_the_floor_and_the_confirming_steps() -> None:
    rule = Rule(low=0.5, high=64, requests=50)
    steps, requests, seconds = worst_case(rule)
    plain = max(len(_search(rule, knee).steps) for knee in (0.6, 3.0, 11.8, 40.0, 63.0))
    assert steps == 1 + plain + CONFIRMATIONS
    assert requests == FLOOR_REQUESTS + (steps - 1) * 50
    assert seconds >= 50 / 0.5  # the slowest step, at the bottom of the range


def test_a_p99_objective_gets_enough_requests_per_step() -> None:
    assert step_requests(parse_slo("ttft_p90:2s")) == 50
    n = step_requests(parse_slo("ttft_p90:2s,e2e_p99:30s"))
    assert n > 150  # 50 requests cannot show a p99 even with none missed
    assert wilson(n - math.floor(n * 0.01 / 2), n)[0] >= 0.99


@pytest.mark.parametrize("knee", [0.6, 3.0, 11.8, 40.0, 63.0])
def test_the_search_brackets_the_knee_within_the_tolerance_and_the_stated_cost(knee) -> None:
    rule = Rule(low=0.5, high=64, requests=50, tolerance=0.1)
    search = _search(rule, knee)
    assert search.status == "found"
    assert search.held is not None and search.missed is not None
    assert search.held <= knee < search.missed <= search.held * 1.1
    steps, requests, _seconds = worst_case(rule)
    assert len(search.steps) < steps and search.used + FLOOR_REQUESTS <= requests


def test_a_knee_outside_the_range_is_said_as_such() -> None:
    rule = Rule(low=1, high=16, requests=10)
    assert _search(rule, 100).status == "above"
    assert _search(rule, 0.1).status == "below"


@pytest.mark.parametrize(("low", "high"), [(8, 1024), (1.235, 64), (0.5, 1025)])
def test_the_ends_of_a_range_of_more_than_three_figures_are_reached(low, high) -> None:
    """Loads are rounded to 3 figures; the range's own ends are kept as given, so a knee past
    either end is said as such (a top of 1024 read 1020 and the search stepped there for
    ever; the worst case, said before the first step, never came back either)."""
    rule = Rule(low=low, high=high, requests=50)
    for knee, status, end in ((high * 2, "above", high), (low / 2, "below", low)):
        search = Search(rule)
        for _ in range(40):  # a search of this range takes at most 10 steps
            if (load := search.next_load()) is None:
                break
            search.take(_step(load, load <= knee))
        assert search.status == status and search.steps[-1].load == end, search.steps[-3:]
    assert worst_case(rule)[0] <= 10 + CONFIRMATIONS
    with pytest.raises(ValueError, match="whole requests in flight"):
        Rule(by="concurrency", low=1, high=300.5)  # a top of 300.5 in flight: rounded, 300


def test_the_budget_stops_the_search_before_a_step_that_would_pass_it() -> None:
    rule = Rule(low=0.5, high=64, requests=50, budget=125)
    search = _search(rule, 11.8)
    assert search.status == "budget" and search.used <= 125 and len(search.steps) == 2


def test_concurrency_is_searched_in_whole_requests() -> None:
    rule = Rule(by="concurrency", low=1, high=256, requests=20)
    search = _search(rule, 37)
    assert search.status == "found" and search.held is not None and search.missed is not None
    assert search.held <= 37 < search.missed <= max(search.held * 1.1, search.held + 1)
    assert all(s.load == int(s.load) for s in search.steps)


def test_a_concurrency_answer_is_whole_requests_in_flight() -> None:
    rule = Rule(by="concurrency", low=1, high=64, requests=20)
    answer = model_json("knee", _search(rule, 8))
    assert (answer["held"], answer["missed"], answer["capacity"]) == (8, 9, 8)
    capacity = {"unit": UNITS["concurrency"], "slo": [], "models": [answer]}
    assert sentence(capacity).startswith("knee serves 8 requests at once at ")


def test_the_sentence_ranks_models_and_leaves_out_an_unknown_cost() -> None:
    slo = [{"objective": "ttft_p90", "limit_ms": 2000}, {"objective": "tpot_p90", "limit_ms": 50}]
    models = [
        {"model": "gqa", "status": "found", "capacity": 4.1, "plus_minus": 0.2, "held": 4.0,
         "missed": 4.3, "cost_per_1000_usd": 1.2, "cost_basis": "token_prices"},
        {"model": "mla", "status": "found", "capacity": 11.8, "plus_minus": 0.6, "held": 11.2,
         "missed": 12.4, "cost_per_1000_usd": 0.41, "cost_basis": "token_prices"},
    ]  # fmt: skip
    said = sentence({"unit": "req/s", "slo": slo, "prompt_tokens": 32768, "models": models})
    assert said == (  # each cost with its basis (tests/test_capacity_cost.py: device time)
        "mla serves 11.8 req/s (±0.6) at TTFT p90 ≤ 2 s and TPOT p90 ≤ 50 ms; gqa 4.1 req/s "
        "(±0.2); at 32K prompts; $0.41 vs $1.20 per 1,000 requests at token prices"
    )
    models[0]["cost_per_1000_usd"] = None
    assert "$" not in sentence({"unit": "req/s", "slo": slo, "models": models})


def test_a_search_stopped_before_any_step_says_not_measured_not_a_miss_at_zero() -> None:
    """Stop in the floor: no load held or missed. (It read "misses the SLO even at 0 req/s".)"""
    slo = [{"objective": "ttft_p90", "limit_ms": 3000}]
    models = [{"model": m, "status": "stopped", "capacity": None, "plus_minus": None,
               "held": None, "missed": None} for m in ("gqa", "mla")]  # fmt: skip
    said = sentence({"unit": "req/s", "slo": slo, "prompt_tokens": 4096, "models": models})
    assert said == "gqa not measured; mla not measured; at 4K prompts"


# ---- the command ----


@pytest.fixture
def knee_url() -> Iterator[str]:
    with knee_server(SLOTS, SERVICE_MS) as url:
        yield url


def _bench(env: dict[str, str], *argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*WORKBENCH, "bench", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


@pytest.mark.slow
def test_the_search_finds_a_known_capacity_within_ten_percent(tmp_path, env, knee_url) -> None:
    out = tmp_path / "out"
    proc = _bench(
        env, "--base-url", knee_url, "--model", "knee", "--prompt-tokens", "1K", "--max-tokens",
        "4", "--capacity", "--slo", "ttft_p90:600ms", "--arrivals", "constant",
        "--capacity-range", "2:64", "--output", str(out), "--no-store",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    plan = next(line for line in proc.stderr.splitlines() if line.startswith("Capacity search"))
    assert "at most 9 steps, 405 requests" in plan  # the cost, said before the first step
    document = json.loads((out / "run.json").read_text())
    jsonschema.validate(document, _schemas()["run"])
    (answer,) = document["capacity"]["models"]
    assert answer["status"] == "found"
    assert abs(answer["capacity"] - KNEE) <= 0.1 * KNEE, answer
    assert answer["held"] < KNEE * 1.05 and answer["missed"] > KNEE * 0.95
    assert answer["requests"] <= document["capacity"]["worst_case"]["requests"] == 405
    assert f"knee serves {answer['capacity']:.1f} req/s" in proc.stdout


@pytest.fixture
def sim_clock_url() -> Iterator[str]:
    """`workbench serve-local --time-scale 0.1`: the built-in models ten times faster."""
    proc = subprocess.Popen(
        [*WORKBENCH, "serve-local", "--port", "0", "--time-scale", "0.1", "--exit-with-stdin"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdin is not None
    first = proc.stdout.readline()
    assert "listening at " in first, first
    try:
        yield first.split("listening at ")[1].split()[0]
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
        proc.stdout.close()


@pytest.mark.slow
def test_a_step_far_past_the_knee_ends_once_it_has_missed(tmp_path, env) -> None:
    """8 slots of 500 ms serve 16 requests/s; a first step at ~90 req/s would queue its 50
    requests for ~3 s, and their TTFTs grow past the limit within the step. It ends once it
    cannot hold any more, and the search goes on. (Each step's 50 requests take ~3 s near the
    knee; 2 slots, 4 requests/s, took ~12 s a step for the same verdicts.)"""
    rows_csv = tmp_path / "rows.csv"
    knee = 8 / 0.5
    with knee_server(8, 500.0) as url:
        proc = _bench(
            env, "--base-url", url, "--model", "knee", "--prompt-tokens", "1K", "--max-tokens",
            "4", "--capacity", "--slo", "ttft_p90:700ms", "--arrivals", "constant",
            "--capacity-range", "8:1024", "--csv", str(rows_csv), "--no-store",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    with rows_csv.open(newline="") as f:
        every = [r for r in csv.DictReader(f) if r["phase"] == "measured"]
    lone = [r for r in every if not r["offered_rate"]]  # the floor: one at a time, no rate
    assert len(lone) == FLOOR_REQUESTS and all(r["concurrency"] == "1" for r in lone)
    # one network baseline for the whole search, as for any run (docs/metrics.md): its probe
    # requests are not sent again before every step
    assert len({r["network_baseline_ms"] for r in every}) == 1 and every[0]["network_baseline_ms"]
    rows = [r for r in every if r["offered_rate"]]
    first_rate = rows[0]["offered_rate"]
    first = [r for r in rows if r["offered_rate"] == first_rate]
    assert float(first_rate) > 4 * knee  # the first step was far past the knee
    ended = [r for r in first if r["error_class"] == "cancelled"]
    served = [r for r in first if not r["error_class"]]
    assert ended and len(served) < 25, (len(served), len(ended))  # the queue was not drained
    # a log gets a progress line per step and per tenth of the worst case, not per request;
    # the early-ended step's cancelled rows are counted as stopped, not failed
    counts = [line for line in proc.stderr.splitlines() if " done, " in line]
    steps = [line for line in proc.stderr.splitlines() if line.startswith("  knee: ")]
    assert len(counts) <= len(steps) + 10 < len(every), (len(counts), len(steps), len(every))
    assert " 0 failed, " in counts[-1] and " stopped" in counts[-1], counts[-1]
    assert all(
        "not needed: the step at" in r["error_message"] and "missed ttft_p90" in r["error_message"]
        for r in ended
    ), {r["error_message"] for r in ended}
    # the answer is unchanged by it: the knee within the search's tolerance
    answer = next(line for line in proc.stdout.splitlines() if line.startswith("knee serves "))
    found = float(answer.split("serves ")[1].split(" req/s")[0])
    assert abs(found - knee) <= 0.15 * knee, answer


@pytest.mark.slow
def test_capacity_per_model_and_the_summary_pdf_leads_with_it(tmp_path, env, sim_clock_url) -> None:
    """The issue's must-hold command on the simulator's clock, then `summary --last`: the
    models ten times faster (`serve-local --time-scale 0.1`), so the limits are written in
    that clock, as the refusal below tells a user to: TPOT 60 ms x 0.1, and a TTFT of 1 s
    (10 s of the models' time): 3 s x 0.1 is under a lone 32K prefill there, so the floor
    would end both searches at once (the floor's own tests below)."""
    proc = _bench(
        env, "--base-url", sim_clock_url, "--model", "sim-70b-gqa", "--model", "sim-70b-mla",
        "--prompt-tokens", "32K", "--capacity", "--slo", "ttft_p90:1s,tpot_p90:6ms",
        "--max-tokens", "16", "--capacity-range", "4:16", "--capacity-requests", "20",
        "--csv", str(tmp_path / "rows.csv"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    # whatever the simulator's capacity: one sentence naming both (serves / misses even at)
    said = [
        line for line in proc.stdout.splitlines() if "at TTFT p90 ≤ 1 s and TPOT p90 ≤ 6 ms" in line
    ]
    assert len(said) == 1 and "at 32K prompts" in said[0], proc.stdout
    for model in ("sim-70b-gqa", "sim-70b-mla"):
        assert any(line.startswith(f"{model}: ") and "req/s" in line
                   for line in proc.stdout.splitlines()), proc.stdout  # fmt: skip
        assert model in said[0]
    pdf = tmp_path / "summary.pdf"
    made = subprocess.run(
        [*WORKBENCH, "summary", "--last", "--pdf", str(pdf)],
        capture_output=True,
        text=True,
        env={**env, "QT_QPA_PLATFORM": "offscreen"},
        timeout=120,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    # our own reader (no poppler needed) keeps the page's line breaks: compared without blanks
    first = "".join(read_pdf(pdf).pages[0].split())
    assert first.startswith("".join(said[0].rstrip(".").split())), (first[:300], said[0])
    if shutil.which("pdftotext"):  # a second, independent reader where poppler is installed
        text = subprocess.run(
            ["pdftotext", "-l", "1", str(pdf), "-"], capture_output=True, text=True, check=True
        ).stdout
        assert " ".join(text.split()).startswith(said[0].rstrip("."))


def test_an_slo_on_the_built_in_provider_at_another_time_scale_is_refused(env) -> None:
    """Limits are real milliseconds; --time-scale rescales only the models' delays. The
    refusal comes before anything starts and names both ways out."""
    for extra in (["--capacity"], ["--rate", "5", "--max-requests", "10"]):
        proc = _bench(
            env, "--model", "sim-70b-mla", "--slo", "ttft_p90:3s,tpot_p90:60ms",
            "--time-scale", "0.1", "--no-store", *extra, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert "drop --time-scale" in proc.stderr
        assert "serve-local --time-scale 0.1" in proc.stderr
        assert "--slo ttft_p90:300ms,tpot_p90:6ms" in proc.stderr
    proc = _bench(
        env, "--model", "sim-70b-mla", "--slo", "ttft_p90:3s", "--time-scale", "0",
        "--capacity", "--no-store", timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and "drop --time-scale" in proc.stderr
    assert "serve-local" not in proc.stderr  # no clock to write limits in


def test_capacity_flags_are_refused_without_what_they_need(env) -> None:
    proc = _bench(env, "--model", "sim-70b-gqa", "--capacity", "--no-store", timeout=60)
    assert proc.returncode == 2 and "add --slo" in proc.stderr
    proc = _bench(env, "--model", "sim-70b-gqa", "--capacity-budget", "100", timeout=60)
    assert proc.returncode == 2 and "add --capacity" in proc.stderr
    proc = _bench(
        env, "--model", "sim-70b-gqa", "--capacity", "--slo", "ttft_p90:2s", "--rate", "3",
        "--no-store", timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and "drop --rate" in proc.stderr


# ---- the floor: requests one at a time first ----


def _floor(within: int, judged: int) -> Step:
    return _counted(1, within, judged)


def test_a_floor_that_misses_ends_the_search_and_one_that_holds_starts_the_sweep_at_its_rate():
    rule = Rule(low=0.1, high=64, requests=50, follow=True)
    search = Search(rule)
    search.take_floor(_floor(3, 5), 2.0)  # 2 of 5 outside a p90 limit: shown missed
    assert search.status == "floor" and search.next_load() is None
    search = Search(rule)
    search.take_floor(_floor(4, 5), 2.5)  # 1 of 5 outside: cannot show a miss
    assert search.status is None and search.next_load() == 0.4  # 1 / the lone e2e
    fixed = Search(Rule(low=2, high=32, requests=50))  # a range given: its middle
    fixed.take_floor(_floor(5, 5), 2.5)
    assert fixed.next_load() == 8.0
    assert search.used == 5


@pytest.mark.parametrize("knee", [0.13, 0.3, 2.0, 40.0])
def test_a_search_that_follows_its_floor_finds_a_knee_below_the_old_low_end(knee) -> None:
    rule = Rule(low=0.1, high=64, requests=50, follow=True)
    for lone_rate in (knee * 0.5, knee, knee * 3):  # batching serves more than one at a time
        search = Search(rule)
        search.take_floor(_floor(5, 5), 1 / lone_rate)
        while (load := search.next_load()) is not None:
            search.take(_step(load, load <= knee))
        assert search.status == "found", (knee, lone_rate)
        assert search.held is not None and search.missed is not None
        assert search.held <= knee < search.missed <= search.held * 1.1
        steps, requests, _seconds = worst_case(rule)
        assert len(search.steps) + 1 <= steps and search.used <= requests


def test_the_worst_case_of_a_search_that_follows_its_floor_holds_for_every_start() -> None:
    rule = Rule(low=0.1, high=64, requests=50, follow=True)
    slo = tuple(parse_slo("ttft_p90:3s"))
    steps, requests, seconds = worst_case(rule, slo)
    assert requests == FLOOR_REQUESTS + (steps - 1) * 50
    assert seconds >= 50 / 0.1  # a step at the lowest rate
    for start in (0.1, 0.37, 3.0, 64.0):
        for knee in (0.05, 0.11, 0.8, 30.0, 100.0):
            search = Search(rule)
            search.take_floor(_floor(5, 5), 1 / start)
            while (load := search.next_load()) is not None:
                search.take(_step(load, load <= knee))
            assert len(search.steps) + 1 <= steps and search.used <= requests


def test_the_sentence_names_a_model_that_misses_alone_with_its_figure_and_the_fix() -> None:
    rule = Rule(low=0.1, high=64, requests=50, follow=True)
    slo = parse_slo("ttft_p90:3s,tpot_p90:60ms")
    gqa = Search(rule)
    ttft = Term("ttft_p90", 3000, 0, 2, 3061.0, *wilson(0, 2)[:1], 90, wilson(0, 2)[1])
    tpot = Term("tpot_p90", 60, 2, 2, 21.0, *wilson(2, 2)[:1], 90, wilson(2, 2)[1])
    gqa.take_floor(Step(1, 2, 2, (ttft, tpot), None, None, 0, 1, "ttft_p90"), 3.5)
    mla = {"model": "sim-70b-mla", "status": "found", "capacity": 0.3, "plus_minus": 0.012,
           "held": 0.288, "missed": 0.312, "requests": 300, "cost_per_1000_usd": None,
           "floor": None, "more_devices": None, "steps": []}  # fmt: skip
    answers = [model_json("sim-70b-gqa", gqa, "--tp 4"), mla]
    found = section(rule, slo, 32768, answers)
    assert found["models"][0]["floor"]["holds"] is False
    assert found["sentence"] == (
        "sim-70b-mla serves 0.30 req/s (±0.01) at TTFT p90 ≤ 3 s and "
        "TPOT p90 ≤ 60 ms; at 32K prompts; sim-70b-gqa cannot hold TTFT p90 ≤ 3 s even one "
        "request at a time: alone its TTFT p90 is 3.06 s. Loosen the limit or serve it on "
        "more devices (--tp 4)"
    )
    alone = section(rule, slo, 32768, answers[:1])["sentence"]
    assert alone.startswith(
        "sim-70b-gqa cannot hold TTFT p90 ≤ 3 s at 32K prompts even one request at a time: "
        "alone its TTFT p90 is 3.06 s."
    )
    answers[0]["more_devices"] = None  # not the built-in provider: no flag to name
    assert section(rule, slo, None, answers[:1])["sentence"].endswith(
        "Loosen the limit, or serve the model faster (more devices, a faster deployment) or "
        "with shorter prompts"
    )


def _said(proc: subprocess.CompletedProcess) -> str:
    """The capacity sentence the command printed."""
    return next(line for line in proc.stdout.splitlines() if " even one request " in line)


def test_a_search_whose_lone_request_misses_ends_after_its_floor(tmp_path, env) -> None:
    """2 slots of 400 ms against a 300 ms TTFT limit: no rate can hold it, and the search
    says so after a few requests one at a time, naming the figure, in seconds."""
    out = tmp_path / "out"
    with knee_server(2, 400.0) as url:
        proc = _bench(
            env, "--base-url", url, "--model", "knee", "--prompt-tokens", "1K", "--max-tokens",
            "4", "--capacity", "--slo", "ttft_p90:300ms", "--output", str(out), "--no-store",
            timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    document = json.loads((out / "run.json").read_text())
    jsonschema.validate(document, _schemas()["run"])
    (answer,) = document["capacity"]["models"]
    assert answer["status"] == "floor" and answer["steps"] == []
    assert answer["requests"] <= FLOOR_REQUESTS
    seen = answer["floor"]["objectives"][0]["observed_ms"]
    assert 400 <= seen < 600, answer  # the server's 400 ms, measured
    said = f"alone its TTFT p90 is {seen:.3g} ms. Loosen the limit, or serve the model faster"
    assert _said(proc).startswith(
        "knee cannot hold TTFT p90 ≤ 300 ms at 1K prompts even one request at a time: " + said
    ), proc.stdout
    assert "--tp" not in proc.stdout  # not the built-in provider: no flag of ours to name
    # the progress says what the rows were: outside the SLO (and stopped), not failed
    counts = [line for line in proc.stderr.splitlines() if " done, " in line]
    assert counts and " 0 failed, " in counts[-1] and " missed the SLO, " in counts[-1], counts
    # of at most its worst case, with the time elapsed: no share or ETA counted on that bound
    assert " of at most " in counts[-1] and counts[-1].endswith(" elapsed"), counts[-1]
    assert "ETA" not in proc.stderr and " %" not in counts[-1]


def test_on_the_built_in_provider_a_model_that_misses_alone_is_told_to_use_more_devices(
    tmp_path, env
) -> None:
    proc = _bench(
        env, "--model", "sim-70b-gqa", "--prompt-tokens", "4K", "--max-tokens", "4",
        "--capacity", "--slo", "ttft_p90:50ms", "--csv", str(tmp_path / "rows.csv"),
        "--no-store", timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    last = _said(proc)
    assert last.startswith(
        "sim-70b-gqa cannot hold TTFT p90 ≤ 50 ms at 4K prompts even one request at a time: "
        "alone its TTFT p90 is "
    ), last
    assert last.endswith("Loosen the limit or serve it on more devices (--tp 8).")


@pytest.mark.slow
def test_a_capacity_under_half_a_request_a_second_is_found_not_said_as_under(tmp_path, env) -> None:
    """One slot of 2.1 s serves 0.48 requests/s: the search starts at the lone request's rate
    and brackets it, where a fixed low end of 0.5 said "under 0.5 req/s". A TTFT limit just
    over the service time makes a step above the knee miss at its second or third request
    (constant arrivals queue), so 5-request steps at p50 decide. Slow by nature: 5 requests
    at 0.48 req/s take 10 s, the floor as long; the search takes about a minute and a half."""
    out = tmp_path / "out"
    knee = 1 / 2.1
    with knee_server(1, 2100.0) as url:
        proc = _bench(
            env, "--base-url", url, "--model", "knee", "--prompt-tokens", "1K", "--max-tokens",
            "4", "--capacity", "--slo", "ttft_p50:2250ms", "--arrivals", "constant",
            "--capacity-requests", "5", "--capacity-tolerance", "25", "--output", str(out),
            "--no-store",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (answer,) = json.loads((out / "run.json").read_text())["capacity"]["models"]
    assert answer["status"] == "found", answer
    assert answer["held"] < 0.5 and answer["held"] <= knee * 1.02 < answer["missed"]
    assert abs(answer["capacity"] - knee) <= 0.25 * knee, answer
    # after the floor the terminal says where the sweep starts and what it can still take
    floor = next(line for line in proc.stderr.splitlines() if "one at a time: holds" in line)
    assert re.search(r"the sweep starts at 0\.4\d* req/s: at most \d+ more steps", floor), floor
    assert f"knee serves {answer['capacity']:.3g} req/s" in proc.stdout  # 3 figures under 1
