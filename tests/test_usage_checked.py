"""Calibration never learns from suspect usage: a calibration answer whose completion_tokens is
below its text events (usage made up by a gateway) is not stored, believable usage is."""

from __future__ import annotations

import pytest
from scripted_server import ScriptedServer, Step, chunk

from workbench.core.foundation.results import Target
from workbench.core.history.csv_export import row_for
from workbench.core.planning.run_events import RunFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.runner import Runner
from workbench.core.transport.clients import ClientPool


def _script(completion_tokens: int) -> list[Step]:
    usage = {"prompt_tokens": 700, "completion_tokens": completion_tokens, "total_tokens": 703}
    return [
        (0, chunk("a")),
        (0, chunk(" b")),
        (0, chunk(" c", finish="length")),
        (0, chunk(usage=usage)),
        (0, "[DONE]"),
    ]


@pytest.mark.parametrize(("completion", "learned"), [(1, False), (3, True)])
async def test_calibration_learns_only_from_believable_usage(
    completion: int, learned: bool
) -> None:
    async with ScriptedServer(_script(completion)) as server:
        target = Target("gw", server.base_url, "m")
        plan = RunPlan(targets=(target,), prompt_lengths=(512,), max_tokens=3, calibrate=True)
        pool = ClientPool()
        runner = Runner(pool)
        final = None
        try:
            async for event in runner.run(plan):
                if isinstance(event, RunFinished):
                    final = event
        finally:
            await pool.aclose()
    assert final is not None and final.results
    # the measured row is judged by the learned calibration (and this script's fixed prompt
    # count is then far off): only the calibration row is about this test
    calibration = [r for r in final.results if r.phase == "calibration"]
    assert len(calibration) == 1 and calibration[0].usage_suspect is not learned
    assert row_for(calibration[0])["usage_suspect"] == str(not learned).lower()
    ratio = runner.calibration.ratio(Runner._calibration_key(target), "en")
    assert (ratio is not None) is learned
