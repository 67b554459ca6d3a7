"""What a capacity costs (issue 29, "at what cost?"): a model served on a deployment of the
catalog costs its devices' time at the load that held (devices x price per device-hour / the
requests an hour), so a twin that serves more users on the same devices costs less per request;
a model without a deployment (a user's API) keeps its token prices; the user's own price per
device-hour replaces the list price (`bench --device-cost`), and a bad one is refused.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections.abc import Iterator

import jsonschema
import pytest
from test_json_docs import _schemas

from kernels_bridge.analytic import get_profile
from tests.support.knee_server import knee_server
from tests.support.pdf_text import read_pdf
from tests.support.serve_local import serve_local
from workbench.core.load.capacity import Rule, Search, Step, Term
from workbench.core.load.capacity_report import model_json, sentence
from workbench.core.models.catalog import load_catalog
from workbench.core.planning.device_cost import device_costs

WORKBENCH = [sys.executable, "-m", "workbench"]
H200 = get_profile("H200")


def _held_search(held: float, missed: float, goodput: float | None = None) -> Search:
    """A search by rate that held at `held` and missed at `missed`."""
    search = Search(Rule(low=1, high=64, requests=20))
    for load, holds in ((held, True), (missed, False)):
        term = Term("ttft_p90", 2000, 20 if holds else 0, 20, 100.0, 0.95 if holds else 0.0, 90,
                    1.0 if holds else 0.05)  # fmt: skip
        search.take(Step(load, 20, 20, (term,), goodput, 0.002))  # $0.002 a request in tokens
    search.status = "found"
    return search


def test_a_deployment_costs_its_device_time_at_the_rate_that_held() -> None:
    costs = device_costs(load_catalog(), ["sim-70b-gqa", "sim-70b-mla", "llama-3.1-70b"])
    assert set(costs) == {"sim-70b-gqa", "sim-70b-mla"}  # the API model keeps token prices
    device = costs["sim-70b-mla"]  # 8 x H200: tensor parallel 2 x pipeline parallel 4
    assert (device["devices"], device["gpu"], device["usd_per_hour"]) == (8, "H200", 3.99)
    assert H200.usd_per_hour == 3.99 and "on-demand" in device["price_source"]
    mla = model_json("sim-70b-mla", _held_search(11.2, 12.4), None, device)
    gqa = model_json("sim-70b-gqa", _held_search(4.0, 4.4), None, costs["sim-70b-gqa"])
    assert mla["cost_basis"] == "device_hours" and mla["device_cost"] == device
    assert mla["cost_per_1000_usd"] == pytest.approx(8 * 3.99 / (11.2 * 3600) * 1000)
    # the same devices serving 2.8x the requests: each costs 1/2.8 as much
    assert gqa["cost_per_1000_usd"] / mla["cost_per_1000_usd"] == pytest.approx(11.2 / 4.0)
    said = sentence({"unit": "req/s", "slo": [{"objective": "ttft_p90", "limit_ms": 2000}],
                     "prompt_tokens": 32768, "models": [gqa, mla]})  # fmt: skip
    assert said.endswith(
        "at 32K prompts; $0.79 vs $2.22 per 1,000 requests in device time on 8 × H200 at "
        "$3.99 per device-hour"
    ), said
    # a token-priced model keeps the catalog's token prices: the held step's mean cost
    api = model_json("llama-3.1-70b", _held_search(4.0, 4.4))
    assert (api["cost_basis"], api["device_cost"]) == ("token_prices", None)
    assert api["cost_per_1000_usd"] == pytest.approx(2.0)


def test_a_search_by_concurrency_costs_the_requests_per_second_that_met_the_slo() -> None:
    search = Search(Rule(by="concurrency", low=1, high=64, requests=20))
    term = Term("ttft_p90", 2000, 20, 20, 100.0, 0.95, 90, 1.0)
    search.take(Step(8, 20, 20, (term,), 2.5, None))  # 8 in flight met the SLO at 2.5 req/s
    device = {"devices": 4, "gpu": "H100", "usd_per_hour": 3.2, "price_source": "x"}
    answer = model_json("sim-llama-3-70b", search, None, device)
    assert answer["cost_per_1000_usd"] == pytest.approx(4 * 3.2 / (2.5 * 3600) * 1000)


def test_costs_of_two_bases_are_never_set_against_each_other() -> None:
    device = {"devices": 8, "gpu": "H200", "usd_per_hour": 3.99, "price_source": "x"}
    twin = model_json("sim-70b-mla", _held_search(11.2, 12.4), None, device)
    api = model_json("llama-3.1-70b", _held_search(4.0, 4.4))
    slo = [{"objective": "ttft_p90", "limit_ms": 2000}]
    said = sentence({"unit": "req/s", "slo": slo, "models": [twin, api]})
    assert " vs " not in said
    assert said.endswith(
        "sim-70b-mla $0.79 per 1,000 requests in device time on 8 × H200 at $3.99 per device-hour; "
        "llama-3.1-70b $2.00 per 1,000 requests at token prices"
    ), said
    # a section recorded before the basis was: token prices were all it had
    old = {k: v for k, v in api.items() if k not in ("cost_basis", "device_cost")}
    assert sentence({"unit": "req/s", "slo": slo, "models": [old]}).endswith(
        "$2.00 per 1,000 requests at token prices"
    )
    # a device with no price: no cost to say, rather than a token price said as if it were one
    unpriced = model_json("sim-x", _held_search(4.0, 4.4), None, {**device, "usd_per_hour": None})
    assert unpriced["cost_per_1000_usd"] is None and unpriced["cost_basis"] == "device_hours"
    assert "$" not in sentence({"unit": "req/s", "slo": slo, "models": [unpriced]})


def test_the_users_own_price_and_overrides_reach_the_devices() -> None:
    costs = device_costs(load_catalog(), ["sim-70b-gqa"], tensor_parallel=8, own_price=2.5)
    device = costs["sim-70b-gqa"]  # --tp 8 keeps pipeline parallel 4: 32 devices
    assert (device["devices"], device["usd_per_hour"]) == (32, 2.5)
    assert device["price_source"] == "the user's own price"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("abc", "'abc' is not a price per device-hour; write USD per device-hour, e.g. 2.5"),
        ("0", "must be above 0 and at most 1000 USD"),
        ("1e9/h", "must be above 0 and at most 1000 USD"),
        ("nan", "must be above 0 and at most 1000 USD"),
    ],
)
def test_a_bad_device_cost_is_refused_naming_the_fix(tmp_path, value, said) -> None:
    proc = subprocess.run(
        [*WORKBENCH, "bench", "--model", "sim-70b-gqa", "--capacity", "--slo", "ttft_p90:2s",
         "--device-cost", value, "--no-store", "--csv", str(tmp_path / "rows.csv")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    assert not (tmp_path / "rows.csv").exists()


def test_a_device_cost_without_a_search_is_refused(tmp_path) -> None:
    proc = subprocess.run(
        [*WORKBENCH, "bench", "--model", "sim-70b-gqa", "--device-cost", "2.5/h", "--no-store",
         "--csv", str(tmp_path / "rows.csv")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (
        proc.returncode == 2
        and "--device-cost" in proc.stderr
        and "add --capacity" in (proc.stderr)
    ), proc.stderr


# ---- the command, against serve-local and a server priced by tokens ----


@pytest.fixture
def sim_clock_url() -> Iterator[str]:
    """`workbench serve-local --time-scale 0.05`: the built-in models twenty times faster."""
    with serve_local("--time-scale", "0.05") as server:
        yield server.base_url


def _bench(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*WORKBENCH, "bench", *argv], capture_output=True, text=True, env=env, timeout=600,
        check=False,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_two_twins_cost_in_inverse_ratio_to_their_capacities(tmp_path, env, sim_clock_url) -> None:
    """MHA and GQA twins on the same 8 x H200 (serve-local twenty times faster, so rates and
    limits are in its clock: a TTFT of 4 s is 200 ms there): at 8K prompts and 256 output
    tokens MHA's eight times larger KV cache slows its batch, so it holds a lower rate (about
    13 against 17 req/s in that clock; ~45 s quiet, where ten times faster took ~1.5 min),
    and each of its requests costs more."""
    out = tmp_path / "out"
    proc = _bench(
        env, "--base-url", sim_clock_url, "--model", "sim-70b-mha", "--model", "sim-70b-gqa",
        "--prompt-tokens", "8K", "--max-tokens", "256", "--capacity", "--slo",
        "ttft_p90:200ms", "--arrivals", "constant", "--capacity-range", "4:64",
        "--output", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    document = json.loads((out / "run.json").read_text())
    jsonschema.validate(document, _schemas()["run"])
    answers = {m["model"]: m for m in document["capacity"]["models"]}
    mha, gqa = answers["sim-70b-mha"], answers["sim-70b-gqa"]
    for answer in (mha, gqa):  # the figure from the catalog's deployment and list price
        assert answer["cost_basis"] == "device_hours"
        assert answer["device_cost"]["devices"] == 8 and answer["device_cost"]["gpu"] == "H200"
        assert answer["device_cost"]["usd_per_hour"] == H200.usd_per_hour
        expected = 8 * H200.usd_per_hour / (answer["held"] * 3600) * 1000
        assert answer["cost_per_1000_usd"] == pytest.approx(expected)
    assert mha["held"] < gqa["held"], (mha, gqa)  # the twins differ: their costs must too
    ratio = mha["cost_per_1000_usd"] / gqa["cost_per_1000_usd"]
    assert ratio == pytest.approx(gqa["held"] / mha["held"])
    said = document["capacity"]["sentence"]
    assert said.endswith(
        f"per 1,000 requests in device time on 8 × H200 at ${H200.usd_per_hour:.2f} per device-hour"
    ), said
    assert f"${gqa['cost_per_1000_usd']:,.2f} vs ${mha['cost_per_1000_usd']:,.2f}" in said
    assert said in proc.stdout

    pdf = tmp_path / "summary.pdf"  # the Summary's lead sentence says the same
    made = subprocess.run(
        [*WORKBENCH, "summary", "--last", "--pdf", str(pdf)], capture_output=True, text=True,
        env={**env, "QT_QPA_PLATFORM": "offscreen"}, timeout=120, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    first = "".join(read_pdf(pdf).pages[0].split())
    assert first.startswith("".join(said.split())), (first[:400], said)


@pytest.mark.slow
def test_a_token_priced_model_keeps_its_token_prices(tmp_path, env) -> None:
    """A server of its own serving an API model (no deployment): its cost per 1,000 requests
    is the catalog's token prices at the rate that held, even with a device price given."""
    out = tmp_path / "out"
    with knee_server(8, 100.0) as url:  # 80 requests/s
        proc = _bench(
            env, "--base-url", url, "--model", "llama-3.1-70b", "--prompt-tokens", "1K",
            "--max-tokens", "4", "--capacity", "--slo", "ttft_p90:300ms", "--arrivals",
            "constant", "--capacity-range", "4:16", "--capacity-requests", "20",
            "--device-cost", "2.5/h", "--output", str(out), "--no-store",
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    document = json.loads((out / "run.json").read_text())
    (answer,) = document["capacity"]["models"]
    assert (answer["cost_basis"], answer["device_cost"]) == ("token_prices", None)
    with (out / "results.csv").open(newline="") as f:
        held = [r for r in csv.DictReader(f)
                if r["phase"] == "measured" and r["offered_rate"]
                and float(r["offered_rate"]) == answer["held"]]  # fmt: skip
    mean = sum(float(r["cost_usd"]) for r in held) / len(held)
    assert answer["cost_per_1000_usd"] == pytest.approx(mean * 1000)
    assert document["capacity"]["sentence"].endswith("per 1,000 requests at token prices")
