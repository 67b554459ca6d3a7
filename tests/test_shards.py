"""How a plan is shared out over workers (core/scale/shards.py): every planned request once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from workbench.core.foundation.results import Target
from workbench.core.planning.run_plan import RunPlan
from workbench.core.scale.shards import planned, rounds, shard_count, split

TARGETS = (Target("local", "http://127.0.0.1:1/v1", "a"), Target("local", "http://x/v1", "b"))


def _plan(concurrency: int, repeats: int, warmup: int, mode: str = "parallel") -> RunPlan:
    return RunPlan(
        targets=TARGETS,
        prompt_lengths=(256, 1024),
        concurrency_levels=(concurrency,),
        repeats=repeats,
        warmup=warmup,
        mode=mode,  # type: ignore[arg-type]
    )


@given(
    concurrency=st.integers(1, 256),
    repeats=st.integers(1, 600),
    warmup=st.integers(0, 9),
    workers=st.integers(1, 64),
)
def test_shares_cover_every_planned_request_once(
    concurrency: int, repeats: int, warmup: int, workers: int
) -> None:
    plan = _plan(concurrency, repeats, warmup)
    shards = split(plan, workers)
    assert len(shards) == min(workers, concurrency) == shard_count(plan, workers)
    assert sum(s.plan.concurrency_levels[0] for s in shards) == concurrency
    assert all(s.plan.concurrency_levels[0] >= 1 and not s.plan.calibrate for s in shards)
    keys = [key for s in shards for key in planned(s)]
    assert len(keys) == len(set(keys))  # no repeat number is given out twice
    per_cell = plan.requests_at(concurrency) + warmup
    assert len(keys) == per_cell * len(TARGETS) * len(plan.prompt_lengths) == plan.total_requests
    measured = sorted({k[4] for k in keys if k[3] == "measured"})
    assert measured == list(range(plan.requests_at(concurrency)))


def test_a_route_comparison_with_several_levels_stays_in_one_process() -> None:
    plan = RunPlan(targets=TARGETS, prompt_lengths=(256,), concurrency_levels=(1, 8, 32))
    assert shard_count(plan, 8) == 1


def test_rounds_wait_for_each_length_and_for_each_model_in_sequence() -> None:
    parallel = list(rounds(_plan(4, 4, 0)))
    assert [(r.prompt_lengths, len(r.targets)) for r in parallel] == [((256,), 2), ((1024,), 2)]
    sequential = list(rounds(_plan(4, 4, 0, "sequential")))
    assert [(r.prompt_lengths[0], r.targets[0].model) for r in sequential] == [
        (256, "a"),
        (256, "b"),
        (1024, "a"),
        (1024, "b"),
    ]
