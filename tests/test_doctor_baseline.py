"""The doctor's baseline check measures as a run does (core/run/baseline.py): on the chat path, with
`GET /models` only when no model answered; its evidence names the method."""

from __future__ import annotations

from tests.support.gateway_imitation import Refusal
from tests.support.loopback import serving
from tests.support.usage_gateway import UsageGateway
from workbench.core.doctor import Check, diagnose
from workbench.core.run.baseline import BASELINE_SAMPLES


def _check(checks: list[Check], name: str) -> Check:
    return next(c for c in checks if c.name == name)


async def test_baseline_is_timed_on_the_chat_path(no_proxy_env) -> None:
    gateway = UsageGateway()
    async with serving(gateway.app()) as url:
        checks = await diagnose(url, None, "gw-model")
    baseline = _check(checks, "baseline")
    assert baseline.ok and "method: chat" in baseline.evidence, baseline.evidence
    assert "streamed requests to 'gw-model'" in baseline.evidence
    # after the stream check's 16 tokens: one opening request, then the timed ones, 1 token each
    asked = [n for n in gateway.max_tokens_asked if n]
    assert asked == [16] + [1] * (BASELINE_SAMPLES + 1)


async def test_baseline_falls_back_to_models_when_no_model_answers(no_proxy_env) -> None:
    gateway = UsageGateway(then=Refusal(503, {"error": {"message": "upstream is down"}}))
    async with serving(gateway.app()) as url:
        checks = await diagnose(url, None, "gw-model")
    assert not _check(checks, "stream").ok
    baseline = _check(checks, "baseline")
    assert baseline.ok and "GET /models" in baseline.evidence
    assert "method: models; no model answered" in baseline.evidence
    assert [n for n in gateway.max_tokens_asked if n] == [16]  # no chat request was timed
