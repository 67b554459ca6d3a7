"""Gateways that refuse a key without a 401, and routes that a gateway lists but cannot serve:
the real `workbench doctor`, `bench` and `models` against loopback imitations of their answers.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli_inprocess import run_cli
from tests.support.gateway_imitation import (
    LITELLM_BROKEN_ROUTE,
    LITELLM_NO_DB,
    LITELLM_UPSTREAM_DOWN,
    Imitation,
    Refusal,
)
from tests.support.loopback import serving_in_thread
from workbench.core.doctor import PROXY_VARIABLES

WRONG_KEY = "sk-wrong-gateway-key-0123456789"
GATEWAY_FIX = "check the key for this gateway"


def _serve(imitation: Imitation) -> Iterator[str]:
    with serving_in_thread(imitation.app()) as base_url:
        yield base_url


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env["GW_KEY"] = WRONG_KEY
    return run_cli(args, env)  # in this process: a start cost ~0.5 s CPU, the command far less


def _doctor(url: str, *extra: str) -> tuple[int, list[dict[str, object]]]:
    run = _cli("doctor", "--base-url", url, "--api-key-env", "GW_KEY", "--json", *extra)
    assert WRONG_KEY not in run.stdout + run.stderr
    return run.returncode, json.loads(run.stdout)


def _first_failed(checks: list[dict[str, object]]) -> dict[str, object]:
    return next(c for c in checks if not c["ok"] and not c["skipped"])


@pytest.fixture
def litellm_no_db() -> Iterator[str]:
    refusal = Refusal(400, LITELLM_NO_DB)
    imitation = Imitation(["gw-model"], ["gw-model"], refusal, refusal)
    yield from _serve(imitation)


def test_doctor_names_a_litellm_wrong_key_as_auth_first(litellm_no_db: str) -> None:
    code, checks = _doctor(litellm_no_db, "--model", "gw-model")
    assert code != 0
    first = _first_failed(checks)
    assert first["name"] == "auth"
    assert GATEWAY_FIX in str(first["fix"])
    assert "a LiteLLM proxy" in str(first["evidence"])
    assert "No connected db" in str(first["evidence"])
    stream = next(c for c in checks if c["name"] == "stream")
    assert stream["skipped"] and "context window" not in str(stream["fix"])


def test_bench_and_models_name_a_litellm_wrong_key_as_auth(
    litellm_no_db: str, tmp_path: Path
) -> None:
    csv_path = str(tmp_path / "r.csv")
    bench = _cli(
        "bench", "--base-url", litellm_no_db, "--api-key-env", "GW_KEY",
        "--model", "gw-model", "--prompt-tokens", "128", "--max-tokens", "4", "--csv", csv_path,
    )  # fmt: skip
    models = _cli("models", "--base-url", litellm_no_db, "--api-key-env", "GW_KEY")
    for run in (bench, models):
        assert run.returncode == 2, run.stderr
        assert GATEWAY_FIX in run.stderr and "No connected db" in run.stderr
        assert "context window" not in run.stderr
        assert WRONG_KEY not in run.stdout + run.stderr


@pytest.mark.parametrize(
    ("models_refusal", "chat_refusal", "gateway"),
    [
        # New API: an invalid token, said in Chinese, as a 400
        (
            Refusal(400, {"error": {"message": "无效的令牌", "type": "new_api_error"}}),
            Refusal(400, {"error": {"message": "无效的令牌", "type": "new_api_error"}}),
            "a New API gateway",
        ),
        # a gateway behind Azure API Management: the model list refused with a 422, no words
        (
            Refusal(422, {"error": {"message": "request refused"}}, {"apim-request-id": "r-1"}),
            Refusal(400, {"error": {"message": "Invalid API key provided"}}),
            "Azure (API Management)",
        ),
    ],
)
def test_doctor_reads_a_key_refusal_by_its_words_and_names_the_gateway(
    models_refusal: Refusal, chat_refusal: Refusal, gateway: str
) -> None:
    for url in _serve(Imitation(["m"], ["m"], models_refusal, chat_refusal)):
        code, checks = _doctor(url, "--model", "m")
        first = _first_failed(checks)
        assert code != 0 and first["name"] == "auth"
        assert GATEWAY_FIX in str(first["fix"]) and gateway in str(first["evidence"])


def test_a_good_key_with_a_400_to_an_empty_chat_request_passes_auth() -> None:
    # the doctor's probe POSTs {} to /chat/completions: a 400 about the missing model is no refusal
    for url in _serve(Imitation(["m"], ["m"])):
        code, checks = _doctor(url, "--model", "m")
        assert code == 0, checks
        assert next(c for c in checks if c["name"] == "auth")["ok"]


@pytest.mark.parametrize(
    ("refusal", "upstream_words"),
    [
        (Refusal(404, LITELLM_BROKEN_ROUTE), "wrong-upstream-id"),
        (Refusal(500, LITELLM_UPSTREAM_DOWN), "Connection error"),
    ],
)
def test_doctor_reads_a_broken_gateway_route_as_one(refusal: Refusal, upstream_words: str) -> None:
    # the listed alias answers with its upstream's refusal, as LiteLLM wraps it
    imitation = Imitation(["gw-model"], [], refuse_chat=refusal)
    for url in _serve(imitation):
        code, checks = _doctor(url, "--model", "gw-model")
    by_name = {c["name"]: c for c in checks}
    assert code != 0
    assert by_name["model"]["ok"]
    stream = by_name["stream"]
    assert not stream["ok"]
    assert "the gateway lists this model, but its upstream refuses it" in str(stream["cause"])
    assert upstream_words in str(stream["cause"])
    assert "workbench models" not in str(stream["fix"])


def test_a_plain_server_error_of_a_listed_model_is_no_broken_route() -> None:
    # a 5xx whose words name no upstream stays the server's own failure
    refusal = Refusal(500, {"error": {"message": "worker process died", "type": "server_error"}})
    for url in _serve(Imitation(["m"], [], refuse_chat=refusal)):
        code, checks = _doctor(url, "--model", "m")
    stream = next(c for c in checks if c["name"] == "stream")
    assert code != 0 and not stream["ok"]
    assert "upstream" not in str(stream["cause"]) and "server failed" in str(stream["cause"])
