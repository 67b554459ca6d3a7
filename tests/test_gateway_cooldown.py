"""LiteLLM's answers for a broken route, as LiteLLM 1.108.7 gives them (the real ones meet
tests/test_litellm_conformance.py): the upstream's 404 wrapped in its exception, then its own
429 while the route is in cooldown. The real `workbench bench` against loopback imitations, so
these run even where LiteLLM is not installed."""

from __future__ import annotations

from pathlib import Path

from tests.support.gateway_imitation import Imitation, Refusal
from tests.support.litellm_gateway import KEY_VARIABLE, CliRun, cli
from tests.support.loopback import serving_in_thread
from workbench.core.foundation.error_messages import (
    GATEWAY_COOLDOWN_CAUSE,
    GATEWAY_COOLDOWN_FIX,
    GATEWAY_ROUTE_CAUSE,
    GATEWAY_ROUTE_FIX,
    cause_and_fix,
)
from workbench.core.foundation.results import ErrorClass

KEY = "sk-gateway-test-key-0123456789"

LITELLM_COOLDOWN = Refusal(
    429,
    {
        "error": {
            "message": "No deployments available for selected model, Try again in 5 seconds. "
            "All deployments for selected model are in cooldown. Passed model=gw-model. "
            "pre-call-checks=False, cooldown_list=['fa2a471f442dca83b30b985beb0cd4c6']",
            "type": "all_deployments_in_cooldown",
            "param": None,
            "code": "429",
        }
    },
    {"retry-after": "5"},
)
LITELLM_WRAPPED_404 = Refusal(
    404,
    {
        "error": {
            "message": "litellm.NotFoundError: NotFoundError: OpenAIException - The model "
            "`wrong-upstream-id` does not exist. Available models: sim-70b-gqa.\n\nLiteLLM: model "
            "group 'gw-model' failed with the error above. No fallback was attempted.",
            "type": "invalid_request_error",
            "param": None,
            "code": "404",
        }
    },
)
PLAIN_429 = Refusal(429, {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}})
PLAIN_404 = Refusal(404, {"error": {"message": "The model 'gw-model' does not exist"}})


def _bench(refusal: Refusal, tmp_path: Path) -> CliRun:
    csv_path = tmp_path / "r.csv"
    with serving_in_thread(Imitation(["gw-model"], [], refuse_chat=refusal).app()) as url:
        return cli(KEY, "bench", "--base-url", url, "--api-key-env", KEY_VARIABLE, "--model",
                   "gw-model", "--prompt-tokens", "128", "--max-tokens", "4", "--csv",
                   str(csv_path), "--no-store", csv_path=csv_path,
                   in_process=True)  # fmt: skip


def test_litellm_cooldown_is_the_gateway_refusing_not_a_rate_limit(tmp_path: Path) -> None:
    run = _bench(LITELLM_COOLDOWN, tmp_path)
    assert run.returncode == 3
    (row,) = run.rows
    assert (row["http_status"], row["error_class"]) == ("429", ErrorClass.SERVER)
    assert f"Cause: {GATEWAY_COOLDOWN_CAUSE}. Fix: {GATEWAY_COOLDOWN_FIX}" in row["error_message"]
    assert "lower the concurrency" not in row["error_message"]


def test_a_plain_429_is_still_a_rate_limit(tmp_path: Path) -> None:
    (row,) = _bench(PLAIN_429, tmp_path).rows
    cause, fix = cause_and_fix(ErrorClass.RATE_LIMIT)
    assert row["error_class"] == ErrorClass.RATE_LIMIT
    assert f"Cause: {cause}. Fix: {fix}" in row["error_message"]


def test_litellm_wrapped_404_points_at_the_route_not_the_model_list(tmp_path: Path) -> None:
    run = _bench(LITELLM_WRAPPED_404, tmp_path)
    # the calibration meets the 404; the measured request is then not sent, saying the same
    (calibration,), (measured,) = run.calibration, run.rows
    assert (calibration["http_status"], calibration["error_class"]) == (
        "404",
        ErrorClass.MODEL_NOT_FOUND,
    )
    assert measured["error_message"].startswith("not sent (measured)")
    for row in (calibration, measured):
        assert "`wrong-upstream-id` does not exist" in row["error_message"]
        assert f"Cause: {GATEWAY_ROUTE_CAUSE}. Fix: {GATEWAY_ROUTE_FIX}" in row["error_message"]
        assert "workbench models" not in row["error_message"]


def test_a_plain_404_naming_the_model_still_suggests_the_model_list(tmp_path: Path) -> None:
    (row,) = _bench(PLAIN_404, tmp_path).calibration
    cause, fix = cause_and_fix(ErrorClass.MODEL_NOT_FOUND)
    assert row["error_class"] == ErrorClass.MODEL_NOT_FOUND
    assert f"Cause: {cause}. Fix: {fix}" in row["error_message"]
