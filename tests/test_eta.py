"""The run's ETA: weighted by prompt tokens and output budget, so a sweep's big end is seen."""

from __future__ import annotations

import pytest

from workbench.core.eta import WeightedEta

SWEEP = [1024 * 2**i for i in range(8)]  # 1K → 128K, one request each
BUDGET = 256


def _seconds(prompt: int) -> float:
    """A prefill-bound server: 20K prompt tokens/s, 256 output tokens at 400 tok/s."""
    return prompt / 20_000 + BUDGET / 400


def test_a_sweep_eta_sees_the_long_prompts_still_to_come() -> None:
    eta = WeightedEta((p, BUDGET) for p in SWEEP)
    elapsed = 0.0
    for prompt in SWEEP[:5]:  # 1K..16K done
        elapsed += _seconds(prompt)
        eta.finished(prompt, BUDGET, _seconds(prompt))
    truth = sum(_seconds(p) for p in SWEEP[5:])
    straight = elapsed / 5 * 3  # every request alike: what the old display said
    assert straight < truth / 3  # the bug: a few seconds left with most of the run to go
    assert eta.remaining_s(elapsed) == pytest.approx(truth, rel=0.05)


def test_before_two_sizes_finish_the_output_budget_prior_weighs_in() -> None:
    eta = WeightedEta((p, BUDGET) for p in SWEEP)
    assert eta.remaining_s(1.0) is None  # nothing done: no estimate
    eta.finished(SWEEP[0], BUDGET, _seconds(SWEEP[0]))
    left = eta.remaining_s(_seconds(SWEEP[0]))
    assert left is not None
    truth = sum(_seconds(p) for p in SWEEP[1:])
    assert _seconds(SWEEP[0]) * 7 < left  # more than the straight line
    assert left == pytest.approx(truth, rel=0.5)  # the prior, right to within a factor


def test_equal_requests_give_the_straight_line() -> None:
    eta = WeightedEta([(4096, 64)] * 10)
    for _ in range(4):
        eta.finished(4096, 64, 0.5)
    assert eta.remaining_s(2.0) == pytest.approx(3.0)


def test_decode_bound_requests_are_weighed_by_their_budget() -> None:
    # a slow decoder: prompt size barely matters, the output budget does
    plan = [(p, 512) for p in SWEEP]
    eta = WeightedEta(plan)
    elapsed = 0.0
    for prompt in SWEEP[:3]:
        took = 512 / 50 + prompt / 1_000_000
        elapsed += took
        eta.finished(prompt, 512, took)
    truth = sum(512 / 50 + p / 1_000_000 for p in SWEEP[3:])
    assert eta.remaining_s(elapsed) == pytest.approx(truth, rel=0.05)
