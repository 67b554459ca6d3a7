"""The client's protocol registry (core/protocols/): a protocol added through it alone is sent,
measured by `workbench bench` and checked by `workbench doctor`; and each protocol's base-URL
convention holds against a real server (an Anthropic base URL with or without /v1).

The toy protocol is what docs/architecture.md's "Adding a protocol" shows: one ClientProtocol
(its path, body, stream reader and error table) and one `register` call; nothing else in the
app names it. Its server is a tiny aiohttp app on 127.0.0.1 that speaks it.
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.support.cli_inprocess import run_cli
from tests.support.loopback import ThreadedLoop, serving_in_thread
from workbench.cli import main
from workbench.core.foundation.results import ErrorClass, RequestResult
from workbench.core.planning.run_events import TextDelta
from workbench.core.protocols.post import PostedProtocol
from workbench.core.protocols.registry import protocol_names, register, unregister
from workbench.core.saved.provider_schema import ProviderConfigError
from workbench.core.saved.provider_store import parse_providers_toml
from workbench.core.transport.stream_values import event_object, take_counts, text_of
from workbench.core.transport.streaming import RequestSpec, StreamError, StreamReader
from workbench.local.process import ServerProcess

TOY_MODEL = "toy-1"
FIRST_PIECE_S = 0.060  # the toy server's time to its first piece: the TTFT bench must see
PIECE_S = 0.004
TOY_STATUS = {"toy_overloaded": 529}


class ToyStream(StreamReader):
    """`data: {"piece": "..."}` per token, then `data: {"done": true, "usage": {...}}`."""

    END = "no done event"

    def complete(self) -> bool:
        return self.done

    def _handle(self, data: bytes) -> bool:
        now = self.arrived()
        event = event_object(data)
        if "piece" in event:
            self.delta(text_of(event, "piece", "piece"), "", now)
            return False
        if "failure" in event:
            from workbench.core.transport.protocol_errors import stream_error

            raise StreamError(*stream_error(event["failure"], TOY_STATUS, self.result.model))
        if event.get("done") is True:
            usage = event.get("usage") or {}
            take_counts(
                self.result,
                {"prompt_tokens": usage.get("in"), "completion_tokens": usage.get("out")},
            )
            self.result.finish_reason = "done"
            if self.result.t_first_token is not None:
                self.result.t_last_token = now
            return True
        return False


class ToyProtocol(PostedProtocol):
    name = "toy"
    label = "Toy protocol"
    path = "/toy/generate"
    status = TOY_STATUS

    def body(self, model: str, spec: RequestSpec) -> dict[str, Any]:
        prompt = "\n".join(str(m.get("content", "")) for m in spec.messages)
        return {"engine": model, "prompt": prompt, "max_new": spec.max_tokens}

    def reader(
        self, result: RequestResult, spec: RequestSpec, on_text: Callable[[TextDelta], None] | None
    ) -> StreamReader:
        return ToyStream(result, spec, on_text)


def toy_app() -> web.Application:
    """A server that speaks only the toy protocol (and lists its one model)."""

    async def models(_request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": TOY_MODEL}]})

    async def generate(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if not isinstance(body, dict) or body.get("engine") != TOY_MODEL:
            return web.json_response({"error": {"message": "engine must be toy-1"}}, status=400)
        answer = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await answer.prepare(request)
        await asyncio.sleep(FIRST_PIECE_S)
        n = int(body.get("max_new", 8))
        for i in range(n):
            await answer.write(f"data: {json.dumps({'piece': f'w{i} '})}\n\n".encode())
            await asyncio.sleep(PIECE_S)
        words = len(str(body.get("prompt", "")).split())
        done = {"done": True, "usage": {"in": words, "out": n}}
        await answer.write(f"data: {json.dumps(done)}\n\n".encode())
        await answer.write_eof()
        return answer

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/toy/generate", generate)
    return app


@pytest.fixture
def toy() -> Iterator[str]:
    """The toy protocol registered for the test, and its server's /v1 URL."""
    register(ToyProtocol())
    try:
        with serving_in_thread(toy_app()) as url:
            yield url
    finally:
        unregister("toy")


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f) if r["phase"] == "measured"]


def test_a_toy_protocol_added_through_the_registry_is_measured_by_bench(
    toy: str, tmp_path: Path, no_proxy: None
) -> None:
    assert "toy" in protocol_names()
    out = tmp_path / "run.csv"
    code = main(
        ["bench", "--base-url", toy, "--protocol", "toy", "--model", TOY_MODEL,
         "--max-tokens", "12", "--repeats", "2", "--prompt-tokens", "256", "--csv", str(out)]
    )  # fmt: skip
    assert code == 0
    rows = _rows(out)
    assert len(rows) == 2
    for row in rows:
        assert row["protocol"] == "toy" and row["error_class"] == "", row
        assert int(row["completion_tokens"]) == 12 and row["usage_estimated"] == "false"
        # the server waits FIRST_PIECE_S before its first piece: TTFT is that, not less
        assert float(row["ttft_ms"]) >= FIRST_PIECE_S * 1e3, row
        assert float(row["ttft_ms"]) < FIRST_PIECE_S * 1e3 + 500
        assert float(row["decode_tps"]) > 0
    # the baseline was timed on the toy path itself, the method naming the protocol
    assert {r["baseline_method"] for r in rows} == {"toy"}


def test_the_doctor_checks_a_toy_protocol_through_its_path(
    toy: str, capsys: pytest.CaptureFixture[str], no_proxy: None
) -> None:
    code = main(["doctor", "--base-url", toy, "--protocol", "toy", "--model", TOY_MODEL, "--json"])
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)}
    assert code == 0, checks
    for name in ("models_path", "model", "stream", "baseline"):
        assert checks[name]["ok"] and not checks[name]["skipped"], checks[name]
    assert (checks["stream"]["protocol"], checks["stream"]["endpoint"]) == (
        "toy",
        "/v1/toy/generate",
    )


def test_a_protocol_name_is_checked_against_the_registry(tmp_path: Path) -> None:
    text = '[providers.gw]\nbase_url = "http://127.0.0.1:9/v1"\nprotocol = "toy"\n'
    with pytest.raises(ProviderConfigError, match="unknown protocol 'toy'; use one of chat"):
        parse_providers_toml(text)
    register(ToyProtocol())
    try:
        (provider,) = parse_providers_toml(text)
        assert provider.protocol == "toy"
    finally:
        unregister("toy")


# --- the Anthropic base URL, with and without /v1, against serve-local serving /v1 only ---


@pytest.fixture(scope="module")
def v1_only() -> Iterator[str]:
    """`workbench serve-local --v1-only`: /v1/messages answers, /messages is a 404."""
    with ThreadedLoop() as background:
        server = ServerProcess(time_scale=0.05, extra=("--v1-only",))
        url = background.run(server.start())
        try:
            yield url
        finally:
            background.run(server.stop())


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return run_cli(args, env)  # in this process: a start cost ~0.3 s CPU, the command far less


@pytest.mark.slow  # serve-local and the CLI as subprocesses, seconds each
@pytest.mark.parametrize("with_v1", [False, True], ids=["without-v1", "with-v1"])
def test_an_anthropic_base_url_works_with_or_without_v1(
    v1_only: str, tmp_path: Path, with_v1: bool
) -> None:
    base = v1_only if with_v1 else v1_only.removesuffix("/v1")
    out = tmp_path / "run.csv"
    done = _cli("bench", "--base-url", base, "--protocol", "anthropic",
                "--model", "sim-llama-2-7b", "--max-tokens", "8", "--prompt-tokens", "256",
                "--csv", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    (row,) = _rows(out)
    assert row["protocol"] == "anthropic" and row["error_class"] == "", row
    assert int(row["completion_tokens"]) == 8
    doctor = _cli("doctor", "--base-url", base, "--protocol", "anthropic",
                  "--model", "sim-llama-2-7b", "--json")  # fmt: skip
    checks = {c["name"]: c for c in json.loads(doctor.stdout)}
    assert doctor.returncode == 0, checks
    for name in ("models_path", "model", "stream"):
        assert checks[name]["ok"] and not checks[name]["skipped"], checks[name]
    assert checks["stream"]["endpoint"] == "/v1/messages"


# --- a hint probes before it names another protocol ---


def _answers(routes: dict[str, tuple[int, dict[str, Any]]]) -> web.Application:
    """Each path's fixed JSON answer; every other path a FastAPI-like 404."""

    async def handle(request: web.Request) -> web.Response:
        status, body = routes.get(request.path, (404, {"detail": "Not Found"}))
        return web.json_response(body, status=status)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    return app


async def _anthropic_request(base_url: str) -> RequestResult:
    from workbench.core.protocols.wire import stream_request
    from workbench.core.transport.clients import make_client

    client = make_client(base_url, "k")
    try:
        spec = RequestSpec(messages=[{"role": "user", "content": "hi"}], max_tokens=4,
                           protocol="anthropic", auth="x-api-key")  # fmt: skip
        return await stream_request(client, RequestResult(model="m"), spec)
    finally:
        await client.close()


@pytest.mark.parametrize("chat_answers", [True, False], ids=["chat-answers", "nothing-answers"])
def test_a_missing_messages_path_names_chat_only_when_a_probe_finds_it(
    chat_answers: bool, no_proxy: None
) -> None:
    missing = {"error": {"message": "model is required", "type": "invalid_request_error"}}
    routes = {"/v1/chat/completions": (400, missing)} if chat_answers else {}
    with serving_in_thread(_answers(routes)) as url:
        result = asyncio.run(_anthropic_request(url))
    assert (result.error_class, result.http_status) == (ErrorClass.NOT_FOUND, 404)
    message = result.error_message or ""
    cause, fix = message.split("Cause:")[1].split("Fix:")
    assert "does not speak the Anthropic Messages API" in cause
    assert "likely" not in message  # no guess at what the server is
    if chat_answers:  # the probe of /v1/chat/completions found it
        assert "chat/completions answers at this base URL: use --protocol chat" in fix
    else:  # nothing found: the doctor, which probes every path, is the fix
        assert "workbench doctor --base-url URL --protocol anthropic" in fix


def test_the_protocols_and_the_wire_import_no_circle() -> None:
    """wire.py once imported the Anthropic and Responses readers, which imported it back."""
    import grimp

    graph = grimp.build_graph("workbench")
    ours = [m for m in graph.modules if m.startswith("workbench.core.protocols")]
    ours += ["workbench.core.protocols.wire", "workbench.core.protocols.stream_anthropic"]
    ours += ["workbench.core.protocols.stream_responses", "workbench.core.transport.streaming"]
    circles = [
        (module, imported)
        for module in ours
        for imported in graph.find_modules_directly_imported_by(module)
        if graph.chain_exists(imported, module)
    ]
    assert circles == []
