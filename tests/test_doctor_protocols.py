"""The connection doctor speaks the target's protocol: serve-local (all three protocols) passes
every check as anthropic and as responses with each line naming what it tested; a server that
speaks only another protocol gets that protocol suggested; Anthropic's key header and version
header are named when they are the problem. Real servers on 127.0.0.1, the real CLI."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from tests.support.loopback import serving
from tests.support.protocol_server import (
    ANTHROPIC_MODELS,
    HTML_404,
    OPENAI_404,
    anthropic_error,
    sse_events,
)
from workbench.core.doctor import CHECK_NAMES, PROXY_VARIABLES, Check, diagnose
from workbench.local.process import ServerProcess

KEY = "sk-ant-doctor-key-0123456789"
WRONG_KEY = "sk-ant-doctor-wrong-9876543210"
SIM_MODEL = "sim-70b-gqa"
CLAUDE = "claude-sonnet-4-5"
# the checks that send HTTP requests, and so name the protocol and path they tested
SENDING = ("models_path", "auth", "model", "stream", "baseline")


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _by_name(checks: list[Check]) -> dict[str, Check]:
    assert [c.name for c in checks] == list(CHECK_NAMES)
    return {c.name: c for c in checks}


def _first_failure(checks: list[Check]) -> Check:
    return next(c for c in checks if not c.ok and not c.skipped)


async def _doctor_cli(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "workbench",
        "doctor",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    return {**env, **values}


class AnthropicOnly:
    """An Anthropic-only API, as api.anthropic.com answers: the key in x-api-key, the version
    header required, Anthropic's error shape everywhere (a 404 too), `{}` refused with a 400.
    `strip_version`: a gateway in front removes anthropic-version, so the API never sees it.
    `overloaded`: every message request is answered 529 overloaded_error. `models`: the list
    `GET /v1/models` answers."""

    def __init__(
        self,
        *,
        strip_version: bool = False,
        overloaded: bool = False,
        bearer: bool = False,
        models: dict[str, object] | None = None,
    ) -> None:
        self.strip_version = strip_version
        self.overloaded = overloaded
        self.bearer = bearer  # a gateway in front that takes the key as a Bearer token only
        self.models = models or ANTHROPIC_MODELS
        self.seen: list[tuple[str, str, dict[str, str]]] = []

    def _error(self, status: int, kind: str, message: str) -> web.Response:
        body = anthropic_error(kind, message)
        return web.Response(status=status, text=body, content_type="application/json")

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.seen.append((request.method, request.path, headers))
        if (request.method, request.path) not in (("GET", "/v1/models"), ("POST", "/v1/messages")):
            return self._error(404, "not_found_error", "Not Found")
        given = headers.get("authorization") if self.bearer else headers.get("x-api-key")
        if given != (f"Bearer {KEY}" if self.bearer else KEY):
            return self._error(401, "authentication_error", "invalid x-api-key")
        if self.strip_version or "anthropic-version" not in headers:
            return self._error(
                400, "invalid_request_error", "anthropic-version: header is required"
            )
        if request.method == "GET":
            return web.json_response(self.models)
        body = await request.json()
        if not isinstance(body, dict) or "model" not in body:
            return self._error(400, "invalid_request_error", "model: Field required")
        if self.overloaded:
            return self._error(529, "overloaded_error", "Overloaded")
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for event in sse_events("anthropic_text.sse"):
            await resp.write(event.encode())
        return resp

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._answer)
        return app


class OpenAIOnly:
    """An OpenAI-compatible server with chat completions only: Bearer keys, OpenAI's error
    shape, and for any other path a 404 in OpenAI's JSON or (`html_404`) a web server's page."""

    def __init__(self, *, html_404: bool = False) -> None:
        self.html_404 = html_404

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        if (request.method, request.path) == ("GET", "/v1/models"):
            return web.json_response(
                {"object": "list", "data": [{"id": "gpt-x", "object": "model"}]}
            )
        if (request.method, request.path) == ("POST", "/v1/chat/completions"):
            error = {"message": "model is required", "type": "invalid_request_error"}
            return web.json_response({"error": error}, status=400)
        if self.html_404:
            return web.Response(status=404, text=HTML_404, content_type="text/html")
        return web.Response(status=404, text=OPENAI_404, content_type="application/json")

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._answer)
        return app


@pytest.fixture
async def serve_local(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    """The real `workbench serve-local` process, with a key: all three protocols on one URL."""
    monkeypatch.setenv("WB_DOCTOR_SERVE_KEY", KEY)
    process = ServerProcess(time_scale=0.001, extra=("--api-key-env", "WB_DOCTOR_SERVE_KEY"))
    base_url = await process.start()
    try:
        yield base_url
    finally:
        await process.stop()


@pytest.mark.parametrize(
    ("protocol", "path", "finish"),
    [
        ("anthropic", "/v1/messages", "max_tokens"),
        ("responses", "/v1/responses", "max_output_tokens"),
    ],
)
async def test_serve_local_passes_every_check_in_each_protocol_and_lines_name_it(
    serve_local: str, protocol: str, path: str, finish: str
) -> None:
    env = _env(WB_DOCTOR_KEY=KEY)
    args = ("--base-url", serve_local, "--model", SIM_MODEL, "--api-key-env", "WB_DOCTOR_KEY")
    code, out, err = await _doctor_cli(*args, "--protocol", protocol, env=env)
    assert code == 0, out + err
    assert f"protocol {protocol}" in out.splitlines()[0]
    lines = {line.split(" ", 2)[1]: line for line in out.splitlines() if line[:1] in "✓–✗"}
    for name in ("models_path", "stream", "baseline"):
        assert lines[name].startswith(f"✓ {name} ({protocol} {path}): "), lines[name]
    assert lines["auth"].startswith(f"✓ auth ({protocol} /v1/models"), lines["auth"]
    assert f"'{SIM_MODEL}' is listed" in lines["model"]
    assert f"finish_reason: {finish} (expected with max_tokens=16" in lines["stream"]
    assert "usage: present" in lines["stream"] and f"method: {protocol}" in lines["baseline"]
    if protocol == "anthropic":
        assert "key sent in the x-api-key header (with anthropic-version: 2023-06-01)" in out
    code, out, err = await _doctor_cli(*args, "--protocol", protocol, "--json", env=env)
    assert code == 0, out + err
    checks = {c["name"]: c for c in json.loads(out)}
    for name in SENDING:
        assert checks[name]["protocol"] == protocol, checks[name]
    assert checks["stream"]["endpoint"] == path and checks["dns"]["protocol"] is None
    assert KEY not in out + err


async def test_anthropic_only_server_probed_as_chat_suggests_anthropic() -> None:
    server = AnthropicOnly()
    async with serving(server.app()) as url:
        env = _env(WB_DOCTOR_KEY=KEY)
        args = ("--base-url", url, "--model", CLAUDE, "--api-key-env", "WB_DOCTOR_KEY")
        code, out, err = await _doctor_cli(*args, "--json", env=env)
    assert code == 3, out + err
    checks = {c["name"]: c for c in json.loads(out)}
    path = checks["models_path"]
    assert not path["ok"] and path["protocol"] == "chat", path
    assert "speaks Anthropic Messages, not OpenAI chat completions" in path["cause"]
    assert "POST .../chat/completions is not there" in path["cause"]
    assert "--protocol anthropic" in path["fix"]
    assert f"{url}/messages → HTTP 400" in path["evidence"]
    # the key was not blamed for the other protocol's 401 on GET /models
    assert checks["auth"]["skipped"] and not checks["auth"]["ok"]
    # one probe of the other protocol, sent as that protocol sends: x-api-key and the version
    probes = [h for m, p, h in server.seen if (m, p) == ("POST", "/v1/messages")]
    assert len(probes) == 1 and probes[0]["x-api-key"] == KEY
    assert probes[0]["anthropic-version"] == "2023-06-01"
    assert KEY not in out + err


@pytest.mark.parametrize("html_404", [False, True], ids=["openai-404", "html-404"])
async def test_openai_only_server_probed_as_anthropic_suggests_chat(html_404: bool) -> None:
    async with serving(OpenAIOnly(html_404=html_404).app()) as url:
        checks = await diagnose(url, KEY, "gpt-x", protocol="anthropic")
    c = _by_name(checks)
    first = _first_failure(checks)
    assert first.name == "models_path" and first.tested == "anthropic /v1/messages"
    assert "this URL speaks OpenAI chat completions, not Anthropic" in first.cause
    assert "--protocol chat" in first.fix
    assert all(c[n].skipped for n in ("auth", "model", "stream", "baseline"))
    # the missing path's 404 page is explained by the protocol, not blamed on a proxy
    assert "/messages" not in c["html"].evidence


async def test_responses_on_a_chat_only_server_suggests_chat() -> None:
    async with serving(OpenAIOnly().app()) as url:
        checks = await diagnose(url, KEY, "gpt-x", protocol="responses")
    first = _first_failure(checks)
    assert first.name == "models_path" and first.tested == "responses /v1/responses"
    assert "speaks OpenAI chat completions, not OpenAI Responses" in first.cause
    assert "--protocol chat" in first.fix


async def test_a_server_speaking_the_chosen_protocol_gets_no_other_probe() -> None:
    server = AnthropicOnly()
    async with serving(server.app()) as url:
        checks = await diagnose(url, KEY, CLAUDE, protocol="anthropic")
    assert all(c.ok for c in checks), [c for c in checks if not c.ok]
    c = _by_name(checks)
    assert f"'{CLAUDE}' is listed (2 models)" in c["model"].evidence  # Anthropic's list shape
    assert "finish_reason: end_turn" in c["stream"].evidence
    assert not any(p.endswith(("/chat/completions", "/responses")) for _, p, _ in server.seen)
    # every request carried the key in x-api-key, never as a Bearer token, and the version
    assert all(h.get("x-api-key") == KEY and "authorization" not in h for _, _, h in server.seen)
    assert all(h.get("anthropic-version") == "2023-06-01" for _, _, h in server.seen)


async def test_wrong_key_on_anthropic_is_the_first_finding_and_names_x_api_key() -> None:
    async with serving(AnthropicOnly().app()) as url:
        checks = await diagnose(url, WRONG_KEY, CLAUDE, protocol="anthropic")
    first = _first_failure(checks)
    assert first.name == "auth", checks
    assert "key sent in the x-api-key header" in first.evidence
    assert "HTTP 401: invalid x-api-key" in first.evidence
    assert "rejected" in first.cause and "mentions the header" not in first.cause
    assert all(WRONG_KEY not in json.dumps(c.to_json()) for c in checks)


async def test_gateway_stripping_anthropic_version_gets_a_400_naming_the_header() -> None:
    server = AnthropicOnly(strip_version=True)
    async with serving(server.app()) as url:
        checks = await diagnose(url, KEY, CLAUDE, protocol="anthropic")
    stream = _by_name(checks)["stream"]
    assert not stream.ok and "HTTP 400" in stream.evidence
    assert "we sent anthropic-version: 2023-06-01" in stream.evidence
    assert "anthropic-version header" in stream.cause and "anthropic-version" in stream.fix
    # never our fault: every request we sent carried the header
    assert server.seen and all(h["anthropic-version"] == "2023-06-01" for _, _, h in server.seen)


async def test_baseline_fallback_lists_models_with_the_protocols_key_header() -> None:
    async with serving(AnthropicOnly(overloaded=True).app()) as url:
        checks = await diagnose(url, KEY, CLAUDE, protocol="anthropic")
    c = _by_name(checks)
    assert not c["stream"].ok and "529" in c["stream"].evidence
    # GET /models with x-api-key and the version: a Bearer-only list would be refused (401)
    assert c["baseline"].ok, c["baseline"]
    assert "method: models" in c["baseline"].evidence
    assert c["baseline"].tested == "anthropic /v1/models"


async def test_anthropic_gateway_wanting_a_bearer_token_is_told_to_set_auth_bearer() -> None:
    async with serving(AnthropicOnly(bearer=True).app()) as url:
        checks = await diagnose(url, KEY, CLAUDE, protocol="anthropic")
        fixed = await diagnose(url, KEY, CLAUDE, protocol="anthropic", auth="bearer")
    first = _first_failure(checks)
    assert first.name == "auth" and "key sent in the x-api-key header" in first.evidence
    assert "wants the key as 'Authorization: Bearer', not in the header 'x-api-key'" in first.cause
    assert 'set auth = "bearer"' in first.fix
    assert all(c.ok for c in fixed), [c for c in fixed if not c.ok]
    assert "key sent as a Bearer token" in _by_name(fixed)["auth"].evidence


async def test_a_model_beyond_anthropics_first_page_is_left_to_the_stream() -> None:
    first_page = {**ANTHROPIC_MODELS, "data": [{"id": "claude-haiku-4-5", "type": "model"}]}
    first_page["has_more"] = True
    async with serving(AnthropicOnly(models=first_page).app()) as url:
        checks = await diagnose(url, KEY, CLAUDE, protocol="anthropic")
    c = _by_name(checks)
    assert c["model"].skipped and c["model"].ok, c["model"]
    assert "the list has more" in c["model"].evidence
    assert c["stream"].ok and all(x.ok for x in checks)
