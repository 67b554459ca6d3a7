"""A recorded run made playable: its targets, a plan that only lays out the panes, and the
recorded events at the chosen speed (core/run/replay.py). A replay is its own run
("replay-of-<run id>"), never recorded: the history already holds these requests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from workbench.core.foundation.results import RequestResult, Target
from workbench.core.planning.run_events import RunEvent
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.replay import replay_events


def replay_run(
    results: Sequence[RequestResult], speed: float = 1.0
) -> tuple[RunPlan, AsyncIterator[RunEvent]]:
    """The plan (its targets in the order the rows name them, warm-ups left out) and the
    events of `results`, replayed `speed` times faster than recorded."""
    targets: list[Target] = []
    for r in results:
        t = Target(r.provider, r.base_url, r.model, r.attention, r.prices, protocol=r.protocol)
        if not r.warmup and t not in targets:
            targets.append(t)
    plan = RunPlan(
        targets=tuple(targets),
        prompt_lengths=tuple(dict.fromkeys(r.prompt_tokens_target or 1 for r in results)),
        kind="replay",
    )
    return plan, replay_events(results, speed=speed, run_id=f"replay-of-{results[0].run_id}")
