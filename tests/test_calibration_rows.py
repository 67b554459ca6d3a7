"""A calibration request is a row of its own, and its failure keeps its whole cause: the real
`workbench bench` against a loopback gateway that fails the calibration request, then answers
as LiteLLM does once it has put the deployment in cooldown."""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from gateway_imitation import Refusal
from loopback import serving_in_thread
from usage_gateway import UsageGateway

from workbench.cli import main
from workbench.core.foundation.errors import SERVER_MESSAGE_CHARS, classify_status
from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history import SCHEMA_VERSION, RunStore

# LiteLLM, an alias whose upstream model id is wrong: the upstream's 404 wrapped, with the
# proxy's own notes after it. Over 300 characters: the cause is in its second half.
LONG_404 = {
    "error": {
        "message": "litellm.NotFoundError: NotFoundError: OpenAIException - Error code: 404 - "
        "{'error': {'message': 'The model `wrong-upstream-id` does not exist or you do not have "
        "access to it.', 'type': 'invalid_request_error', 'param': None, 'code': "
        "'model_not_found'}}. Received Model Group=gw-model\nAvailable Model Group "
        "Fallbacks=None LiteLLM Retried: 2 times, LiteLLM Max Retries: 2. The upstream "
        "deployment azure/wrong-upstream-id answered for api_base "
        "https://upstream.example/openai; its deployment id is not the model's name",
        "type": None,
        "param": None,
        "code": "404",
    }
}
UPSTREAM_500 = {
    "error": {
        "message": "litellm.InternalServerError: OpenAIException - Connection error.. Received "
        "Model Group=gw-model",
        "type": None,
        "param": None,
        "code": "500",
    }
}
# LiteLLM's router after a deployment failed: every request to the group is refused until the
# cooldown ends
COOLDOWN_429 = {
    "error": {
        "message": "No deployments available for selected model, Try again in 5 seconds. Passed "
        "model=gw-model. pre-call-checks=False, cooldown_list=[('3b1f2a', {'exception_received': "
        "'litellm.InternalServerError', 'status_code': '500'})]",
        "type": "None",
        "param": "None",
        "code": "429",
    }
}


def _bench(url: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", "bench", "--base-url", url, "--model", "gw-model",
         "--prompt-tokens", "1K", "--max-tokens", "8", "--csv", str(out), *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_calibration_refused_as_model_not_found_keeps_its_cause_and_stops_its_cell(
    tmp_path: Path,
) -> None:
    gateway = UsageGateway(refusals=[Refusal(404, LONG_404)], then=Refusal(429, COOLDOWN_429))
    out = tmp_path / "run.csv"
    with serving_in_thread(gateway.app()) as url:
        run = _bench(url, out, "--repeats", "3", "--prompt-tokens", "1K,2K")
    assert run.returncode == 3, run.stderr
    # nothing more is sent: no repeat and no other prompt length fixes a wrong model id
    assert len(gateway.max_tokens_asked) == 1
    rows = _rows(out)
    assert [r["phase"] for r in rows] == ["calibration"] + ["measured"] * 6
    assert [r["prompt_tokens_target"] for r in rows[1:]] == ["1024"] * 3 + ["2048"] * 3
    calibration = rows[0]
    assert calibration["error_class"] == "model_not_found"
    upstream = LONG_404["error"]["message"]
    assert upstream in calibration["error_message"]  # whole, not cut at 300 characters
    # the gateway lists the alias: its upstream refuses it, so the fix is the route, not the id
    assert "check the gateway's route for this model" in calibration["error_message"]
    assert "pick an id from `workbench models" not in calibration["error_message"]
    for row in rows[1:]:
        assert row["error_class"] == "model_not_found" and row["http_status"] == ""
        assert row["error_message"].startswith("not sent (measured): the calibration request")
        assert "wrong-upstream-id` does not exist" in row["error_message"]
    lines = run.stderr.splitlines()
    labelled = [line for line in lines if line.startswith("  calibration: gw-model: HTTP 404")]
    assert len(labelled) == 1
    assert "its deployment id is not the model's name" in labelled[0]  # the end of it too
    assert "rate_limit" not in run.stderr and "lower the concurrency" not in run.stderr
    assert run.stderr.count("gw-model: not sent (measured)") == 1  # six rows, said once


def test_cooldown_429s_after_a_failed_calibration_name_it_and_do_not_blame_the_concurrency(
    tmp_path: Path,
) -> None:
    gateway = UsageGateway(refusals=[Refusal(500, UPSTREAM_500)], then=Refusal(429, COOLDOWN_429))
    out = tmp_path / "run.csv"
    with serving_in_thread(gateway.app()) as url:
        run = _bench(url, out, "--repeats", "2")
    assert run.returncode == 3, run.stderr
    rows = _rows(out)
    assert [(r["phase"], r["error_class"]) for r in rows] == [
        ("calibration", "server_error"),
        # LiteLLM's cooldown refusal is the gateway's own state, not the user's rate
        ("measured", "server_error"),
        ("measured", "server_error"),
    ]
    for row in rows[1:]:
        message = row["error_message"]
        assert "No deployments available" in message
        assert (
            "after the calibration request failed: server_error: HTTP 500: "
            "litellm.InternalServerError: OpenAIException - Connection error" in message
        )
        assert "cooldown" in message.split(". Cause: ")[1]
        assert "lower the concurrency" not in message
    assert "  calibration: gw-model: HTTP 500: litellm.InternalServerError" in run.stderr
    assert "lower the concurrency" not in run.stderr


def test_a_long_server_message_is_cut_at_a_word_with_an_ellipsis() -> None:
    words = " ".join(f"word{i:04d}" for i in range(400))  # 3,599 characters
    body = json.dumps({"error": {"message": words}})
    what = classify_status(400, body, "application/json", "m").what
    shown = what.removeprefix("HTTP 400: ")
    assert shown.endswith("…") and len(shown) <= SERVER_MESSAGE_CHARS + 1
    kept = shown.removesuffix("…")
    assert words.startswith(kept) and words[len(kept)] == " "  # ends after a whole word
    assert len(kept) > SERVER_MESSAGE_CHARS - 10
    whole = " ".join(words.split()[:60])  # 599 characters: kept as it is
    body = json.dumps({"error": {"message": whole}})
    assert classify_status(400, body, "application/json", "m").what == f"HTTP 400: {whole}"


def test_an_old_history_gets_each_requests_phase(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    with RunStore(db) as store:
        run_id = store.start_run("comparison", {})
        for request_id, warmup, task in (
            ("cal", True, "calibration"),
            ("warm", True, "summary"),
            ("measured", False, "summary"),
        ):
            store.record(
                RequestResult(model="m", run_id=run_id, request_id=request_id, warmup=warmup,
                              task=task)
            )  # fmt: skip
    conn = sqlite3.connect(db)  # as the app before phases left it: schema 1, no such column
    conn.execute("ALTER TABLE requests DROP COLUMN phase")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    with RunStore(db) as store:
        phases = {r.request_id: r.phase for r in store.results(run_id)}
        assert store.query("PRAGMA user_version")[0][0] == SCHEMA_VERSION == 3
    assert phases == {"cal": "calibration", "warm": "warmup", "measured": "measured"}


def test_retry_budget_help_names_the_headers_it_honours(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["bench", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    budget = text[text.rindex("--retry-budget S") :]  # the option, not the usage line
    for header in ("Retry-After", "retry-after-ms", "llm_provider-retry-after"):
        assert header in budget[:500], header


def test_a_sweep_from_a_short_prompt_calibrates_at_its_longest(tmp_path: Path) -> None:
    # a ratio learned from the first, 128-token prompt sized the 32K prompts 7-20 % short
    out = tmp_path / "sweep.csv"
    code = main(["bench", "--model", "sim-70b-gqa", "--prompt-tokens", "128,32K", "--max-tokens",
                 "4", "--time-scale", "0.01", "--language", "zh", "--task", "needle",
                 "--csv", str(out), "--no-store"])  # fmt: skip
    assert code == 0
    rows = _rows(out)
    (calibration,) = [r for r in rows if r["phase"] == "calibration"]
    assert calibration["prompt_tokens_target"] == "8192"
    for row in rows:
        if row["phase"] == "measured":
            asked, got = int(row["prompt_tokens_target"]), int(row["prompt_tokens"])
            assert abs(got - asked) <= max(0.03 * asked, 32), (asked, got)
