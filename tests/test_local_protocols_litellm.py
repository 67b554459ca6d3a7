"""serve-local's Anthropic Messages and OpenAI Responses wires read by a third party: LiteLLM's
Python SDK (its own venv, the version scripts/test.sh installs), in a subprocess against a
real LocalServer on 127.0.0.1, its readings checked against the server's emit log."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from tests.support.litellm_gateway import RecordingEmitLog, litellm_venv
from workbench.core.doctor import PROXY_VARIABLES
from workbench.local.costmodel import SimSettings
from workbench.local.faults import TOKENS_BEFORE_FAULT
from workbench.local.server import LocalServer
from workbench.local.tokenizer import count_tokens

CLIENT = Path(__file__).resolve().parent / "support" / "litellm_protocol_client.py"


async def run_client(root_url: str) -> dict[str, dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # no fetch from the internet
    python = litellm_venv() / "bin" / "python"
    process = await asyncio.create_subprocess_exec(
        str(python), str(CLIENT), root_url, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        out, err = await asyncio.wait_for(process.communicate(), 110)
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0, err.decode()[-3000:]
    lines = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    return {line.pop("case"): line for line in lines}


async def test_litellm_reads_serve_local_anthropic_and_responses_like_the_emit_log() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.001)) as srv:
        srv.emit_log = log = RecordingEmitLog()
        root = srv.base_url.removesuffix("/v1")
        cases = await run_client(root)
    records = {r.completion_id: r for r in log.in_order}
    by_protocol = [r.protocol for r in log.in_order]
    assert by_protocol == ["anthropic", "anthropic", "anthropic", "responses"]

    stream, error, whole, responses = (
        cases[name]
        for name in ("anthropic_stream", "anthropic_error", "anthropic_whole", "responses_stream")
    )
    first = log.in_order[0]
    assert stream["usage"]["completion_tokens"] == first.completion_tokens == 12
    assert stream["usage"]["prompt_tokens"] == first.prompt_tokens
    assert count_tokens(stream["text"]) == 12 and stream["finish"] == "length"

    assert "Overloaded" in error["error"]  # the mid-stream `event: error` reached LiteLLM
    assert count_tokens(error["text"]) == TOKENS_BEFORE_FAULT

    thinking = log.in_order[2]
    assert whole["usage"]["completion_tokens"] == thinking.completion_tokens == 16
    # Anthropic's usage has no reasoning count (LiteLLM estimates one with its own tokenizer):
    # the thinking block's text is what carries it
    assert count_tokens(whole["reasoning"]) == thinking.reasoning_tokens == 8
    assert count_tokens(whole["text"]) == 8

    record = records[responses["id"]]
    assert responses["status"] == "incomplete"
    assert responses["usage"] == {"input_tokens": record.prompt_tokens, "output_tokens": 20}
    # LiteLLM 1.108.7's SDK asked for this one unstreamed (one emit in the log) and replayed it
    # as events: it reads serve-local's response object; the openai SDK reads the stream
    # (test_local_protocols.py::test_responses_through_the_openai_sdk)
    assert count_tokens(responses["text"]) == 20 == record.completion_tokens
