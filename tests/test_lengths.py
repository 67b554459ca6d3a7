"""`--prompt-tokens 4K±1K` and `--max-tokens 256±64`: each request's size drawn from a range
(issue 29, item 2's synthetic length distributions)."""

from __future__ import annotations

import os
import statistics
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_open_loop import MODEL, WORKBENCH, measured_rows, serve_local

from workbench.core.foundation.lengths import draw, split_spread
from workbench.core.foundation.results import Target
from workbench.core.planning.context_fit import overflows
from workbench.core.run.plan import Choices, build_plan

TARGET = Target("local", "http://127.0.0.1:1/v1", MODEL, context_window=8000)


def test_sizes_are_drawn_uniformly_from_the_range_and_the_same_every_time() -> None:
    sizes = [draw(4096, 1024, i, "prompt") for i in range(4000)]
    assert min(sizes) >= 3072 and max(sizes) <= 5120
    assert statistics.fmean(sizes) == pytest.approx(4096, rel=0.01)
    # uniform: a quarter of the draws in each quarter of the range
    assert sum(1 for s in sizes if s < 3584) / len(sizes) == pytest.approx(0.25, abs=0.03)
    assert sizes == [draw(4096, 1024, i, "prompt") for i in range(4000)]
    assert draw(4096, 1024, -1, "prompt") == 4096  # a calibration request keeps the length
    assert draw(4096, 0, 7, "prompt") == 4096


def test_a_plan_with_spreads_refuses_ranges_it_cannot_build() -> None:
    plan = build_plan([TARGET], Choices(prompt_lengths=(2048,), prompt_spreads=(1024,)))
    assert {plan.prompt_size(2048, i) for i in range(200)} <= set(range(1024, 3073))
    with pytest.raises(ValueError, match="use a smaller spread"):
        build_plan([TARGET], Choices(prompt_lengths=(2048,), prompt_spreads=(2048,)))
    with pytest.raises(ValueError, match=r"max_tokens 256±300 must stay within"):
        build_plan([TARGET], Choices(prompt_lengths=(2048,), max_tokens=256, max_tokens_spread=300))
    with pytest.raises(ValueError, match="write LENGTH±SPREAD"):
        split_spread("4K±")


def test_the_context_check_counts_the_longest_prompt_and_output_of_a_spread() -> None:
    fits = build_plan([TARGET], Choices(prompt_lengths=(6144,), max_tokens=1024))
    assert overflows(fits) is None
    spread = Choices(prompt_lengths=(6144,), prompt_spreads=(1024,), max_tokens=1024)
    refusal = overflows(build_plan([TARGET], spread))
    assert refusal is not None and "a 7,168-token prompt + max_tokens 1,024" in refusal


@pytest.fixture
def fast_server() -> Iterator[str]:
    yield from serve_local(0.01)


def test_a_run_sends_each_request_its_drawn_sizes(tmp_path: Path, fast_server: str) -> None:
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path / "data")}
    out = tmp_path / "rows.csv"
    args = ["bench", "--base-url", fast_server, "--model", MODEL, "--csv", str(out), "-q"]
    args += ["--prompt-tokens", "2K±1K", "--max-tokens", "8+-4", "--repeats", "30"]
    done = subprocess.run([*WORKBENCH, *args], env=env, capture_output=True, text=True, timeout=180)
    done.check_returncode()
    rows = measured_rows(out)
    assert len(rows) == 30 and {r["prompt_tokens_target"] for r in rows} == {"2048"}
    plan = build_plan([TARGET], Choices(prompt_lengths=(2048,), prompt_spreads=(1024,)))
    for r in rows:  # the server counts what was sent: the draw, within the estimate's error
        asked = plan.prompt_size(2048, int(r["repeat"]))
        assert int(r["prompt_tokens"]) == pytest.approx(asked, rel=0.1, abs=80), r["repeat"]
    assert statistics.pstdev(int(r["prompt_tokens"]) for r in rows) > 300
    outputs = {int(r["repeat"]): int(r["completion_tokens"]) for r in rows}
    assert outputs == {i: draw(8, 4, i, "output") for i in range(30)}
    assert len(set(outputs.values())) > 3
    bad = subprocess.run(
        [*WORKBENCH, "bench", "--model", MODEL, "--prompt-tokens", "2K±3K"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "use a smaller spread" in bad.stderr
