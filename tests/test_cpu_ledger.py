"""`--cpu-ledger PATH` (tests/support/cpu_ledger.py) books each test's CPU, its children's
included, to the phase that spent it, and under pytest-xdist the controller writes every
worker's rows."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
CHECKOUT = Path(__file__).resolve().parent.parent

BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end:\n    pass\n"
TESTS = f"""
import subprocess, sys, time
import pytest

def burn():
{"".join("    " + line + chr(10) for line in BURN.splitlines())}

@pytest.fixture
def costly():
    burn()

def test_in_a_child():
    subprocess.run([sys.executable, "-c", {BURN!r}], check=True)

def test_in_its_fixture(costly):
    pass

def test_asleep():
    time.sleep(0.3)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "xdist"])
def test_each_test_is_booked_the_cpu_it_and_its_children_spent(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(CHECKOUT))  # xdist's workers import the plugin too
    pytester.makeconftest('pytest_plugins = ["tests.support.cpu_ledger"]')
    pytester.makepyfile(test_costs=TESTS)
    ledger = pytester.path / "ledger.csv"
    # xdist's workers are processes anyway; one process runs in this one (cheaper)
    run = pytester.runpytest_subprocess if workers else pytester.runpytest_inprocess
    result = run(*workers, "-p", "no:randomly", "--cpu-ledger", ledger)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*cpu ledger: * s CPU, in *ledger.csv*", "*3 tests*test_costs.py"])
    rows = {r["nodeid"].split("::")[-1]: r for r in csv.DictReader(ledger.open())}
    assert set(rows) == {"test_in_a_child", "test_in_its_fixture", "test_asleep", "<outside tests>"}
    cpu = {
        name: {k: float(v) for k, v in r.items() if k.endswith("_s")} for name, r in rows.items()
    }

    assert cpu["test_in_a_child"]["call_cpu_s"] >= 0.25
    assert cpu["test_in_a_child"]["children_cpu_s"] >= 0.25
    assert cpu["test_in_its_fixture"]["setup_cpu_s"] >= 0.25
    assert cpu["test_in_its_fixture"]["call_cpu_s"] < 0.1
    assert cpu["test_in_its_fixture"]["children_cpu_s"] < 0.1
    asleep = cpu["test_asleep"]
    assert asleep["wall_s"] >= 0.3
    assert asleep["setup_cpu_s"] + asleep["call_cpu_s"] + asleep["teardown_cpu_s"] < 0.1
    assert cpu["<outside tests>"]["setup_cpu_s"] > 0  # the interpreter's start and collection
    workers_seen = {r["worker"] for r in rows.values() if r["nodeid"] != "<outside tests>"}
    assert workers_seen <= ({"gw0", "gw1"} if workers else {"main"})
