"""Usage a gateway makes up is caught: fewer completion tokens than text events, or a prompt
count far from what the calibration learned. The runner and the doctor against a loopback
gateway that counts with a tokenizer of its own (tests/usage_gateway.py)."""

from __future__ import annotations

import pytest
from gateway_imitation import Refusal
from loopback import serving
from scripted_server import ScriptedServer, chunk
from usage_gateway import UsageGateway

from workbench.core.doctor import Check, diagnose
from workbench.core.foundation.results import RequestResult, Target
from workbench.core.history.csv_export import row_for
from workbench.core.load.prompts import PromptBuilder
from workbench.core.planning.run_events import RunFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.calibration_checks import CALIBRATION_OUTPUT_TOKENS
from workbench.core.run.runner import Runner
from workbench.core.transport.clients import ClientPool


async def _run(
    gateway: UsageGateway,
    lengths: tuple[int, ...],
    max_tokens: int = 8,
    builder: PromptBuilder | None = None,
) -> tuple[Runner, list]:
    async with serving(gateway.app()) as url:
        target = Target("gw", url, "gw-model")
        plan = RunPlan(targets=(target,), prompt_lengths=lengths, repeats=2, max_tokens=max_tokens)
        pool = ClientPool()
        runner = Runner(pool, builder=builder)
        final = None
        try:
            async for event in runner.run(plan):
                if isinstance(event, RunFinished):
                    final = event
        finally:
            await pool.aclose()
    assert final is not None and final.status == "finished"
    return runner, list(final.results)


def _learned(runner: Runner) -> bool:
    return runner.calibration.ratio("gw/gw-model", "en") is not None


def _phase(results: list[RequestResult], phase: str) -> list[RequestResult]:
    return [r for r in results if r.phase == phase]


async def test_calibration_asks_for_several_tokens_and_never_learns_made_up_counts() -> None:
    # from its first answer on, the gateway reports half the tokens it streamed
    gateway = UsageGateway(honest=0, completion_factor=0.5)
    runner, results = await _run(gateway, (2048,), max_tokens=256)
    assert gateway.max_tokens_asked[0] == CALIBRATION_OUTPUT_TOKENS == 16
    [calibration] = _phase(results, "calibration")
    assert calibration.ok and len(calibration.event_times) == 16
    assert calibration.completion_tokens == 8 and calibration.usage_suspect
    assert row_for(calibration)["usage_suspect"] == "true"
    assert not _learned(runner)  # its prompt count is not believed either
    measured = _phase(results, "measured")
    assert len(measured) == 2 and all(r.ok and r.usage_suspect for r in measured)


async def test_calibration_never_learns_from_estimated_usage() -> None:
    gateway = UsageGateway(usage=False)
    runner, results = await _run(gateway, (2048,))
    [calibration] = _phase(results, "calibration")
    assert calibration.ok and calibration.usage_estimated and calibration.prompt_tokens
    assert not _learned(runner)  # the estimate is the builder's own: nothing to learn
    assert not any(r.usage_suspect for r in _phase(results, "measured"))  # nothing to judge


@pytest.mark.parametrize(("factor", "suspect"), [(1.09, True), (1.0, False)])
async def test_a_prompt_count_nine_percent_off_the_calibration_is_suspect(
    factor: float, suspect: bool
) -> None:
    # the calibration request is answered with true counts; later answers count the prompt
    # with another tokenizer (9 % more), the completion correctly
    gateway = UsageGateway(honest=1, prompt_factor=factor)
    runner, results = await _run(gateway, (2048,))
    [calibration] = _phase(results, "calibration")
    assert not calibration.usage_suspect and _learned(runner)
    measured = _phase(results, "measured")
    assert len(measured) == 2 and all(r.ok for r in measured)
    assert all(r.completion_tokens == len(r.event_times) == 8 for r in measured)
    assert [r.usage_suspect for r in measured] == [suspect, suspect]
    assert {row_for(r)["usage_suspect"] for r in measured} == {str(suspect).lower()}


async def test_a_prompt_longer_than_a_short_calibration_is_not_judged() -> None:
    # a run of short prompts calibrates on a 128-token prompt, which says too little about long
    # ones to judge them; a later run of the same window (the builder kept) has long prompts
    gateway = UsageGateway(honest=1, prompt_factor=1.09)
    builder = PromptBuilder()
    runner, results = await _run(gateway, (128,), builder=builder)
    [calibration] = _phase(results, "calibration")
    assert calibration.prompt_tokens_target == 128 and _learned(runner)
    runner, results = await _run(gateway, (4096,), builder=builder)
    assert _phase(results, "calibration") == []  # the ratio learned at 128 tokens serves
    long = _phase(results, "measured")
    assert len(long) == 2 and not any(r.usage_suspect for r in long)


def _stream_check(checks: list[Check]) -> Check:
    return next(c for c in checks if c.name == "stream")


@pytest.mark.parametrize(
    ("factor", "said"),
    [(0.5, "usage: present but made up by the gateway"), (1.0, "usage: present (")],
)
async def test_the_doctor_says_when_usage_is_made_up_by_the_gateway(
    factor: float, said: str
) -> None:
    gateway = UsageGateway(honest=0, completion_factor=factor)
    async with serving(gateway.app()) as url:
        checks = await diagnose(url, None, "gw-model")
    stream = _stream_check(checks)
    assert stream.ok and said in stream.evidence
    # the stream check asks enough tokens for an undercount to show; the baseline's chat-path
    # requests after it ask 1 each
    assert next(n for n in gateway.max_tokens_asked if n) == 16
    if factor < 1:
        assert "completion 8, yet 16 text events came" in stream.evidence


@pytest.mark.parametrize(
    ("headers", "shown", "wait"),
    [
        ({"llm_provider-retry-after": "7"}, "llm_provider-retry-after: 7", "wait 7 s"),
        ({"retry-after-ms": "1500"}, "retry-after-ms: 1500", "wait 1.5 s"),
        ({"Retry-After": "2"}, "Retry-After: 2", "wait 2 s"),
    ],
)
async def test_the_doctor_reads_the_wait_from_every_retry_header(
    headers: dict[str, str], shown: str, wait: str
) -> None:
    body = {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}
    gateway = UsageGateway(then=Refusal(429, body, headers))
    async with serving(gateway.app()) as url:
        checks = await diagnose(url, None, "gw-model")
    rate = next(c for c in checks if c.name == "rate_limit")
    assert not rate.ok and shown in rate.evidence
    assert "no Retry-After header" not in rate.evidence
    assert rate.fix.startswith(wait)


async def test_the_doctor_reads_tokens_without_visible_text_as_such() -> None:
    usage = {"prompt_tokens": 12, "completion_tokens": 16, "total_tokens": 28}
    script = [
        (0, chunk(role="assistant")),
        (0, chunk("")),  # special tokens the server does not decode: empty deltas
        (0, chunk("", finish="length")),
        (0, chunk(usage=usage)),
        (0, "[DONE]"),
    ]
    async with ScriptedServer(script) as server:
        checks = await diagnose(server.base_url, None, "m")
    stream = _stream_check(checks)
    assert not stream.ok and "no visible text" in stream.evidence
    assert "completion_tokens 16, finish_reason length" in stream.cause
    assert "special tokens" in stream.cause and "The model id is fine" in stream.cause
    assert stream.fix.startswith("raise max_tokens") and "chat template" in stream.fix
    assert "model id" not in stream.fix
