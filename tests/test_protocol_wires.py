"""The built-in provider's side of the protocol registry (local/wires.py): the server mounts
the wires registered, each at its protocol's path as the client's registry names it, so a
protocol's path is written once (issue 27); base-URL clean-up and the doctor's words come from
the same registry."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx2
import pytest
from aiohttp import web
from test_protocol_registry import ToyProtocol

from tests.support.loopback import serving_in_thread
from workbench.cli import main
from workbench.core.protocols.base_url import normalize_base_url
from workbench.core.protocols.registry import protocols, register, unregister
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer
from workbench.local.wire_chat import ChatWire
from workbench.local.wires import register_wire, unregister_wire, wires

MODEL = "sim-llama-2-7b"


class ToyWire(ChatWire):
    """The toy protocol served in chat's shape: a wire is its protocol's name and its answers."""

    protocol = "toy"


class ToyListed(ToyProtocol):
    name = "toy-listed"
    unlisted = ("the toy list is not a toy list", "ask the toy server for its toy list")


@pytest.fixture
def toy() -> Iterator[None]:
    register(ToyProtocol())
    try:
        yield
    finally:
        unregister("toy")


async def test_the_server_mounts_each_registered_wire_at_its_protocols_path(toy: None) -> None:
    assert [w.path for w in wires()] == [p.path for p in protocols() if p.name != "toy"]
    register_wire(ToyWire())
    try:
        async with LocalServer(settings=SimSettings(time_scale=0.005)) as server:
            body = {"model": MODEL, "max_tokens": 3, "stream": False,
                    "messages": [{"role": "user", "content": "hello"}]}  # fmt: skip
            async with httpx2.AsyncClient() as client:
                served = await client.post(f"{server.base_url}/toy/generate", json=body)
                unknown = await client.post(f"{server.base_url}/toy/other", json=body)
        assert served.status_code == 200, served.text
        assert served.json()["choices"][0]["message"]["content"]
        assert unknown.status_code == 404
    finally:
        unregister_wire("toy")


def test_a_wire_for_a_protocol_the_client_does_not_know_is_refused() -> None:
    class Stray(ChatWire):
        protocol = "stray"

    with pytest.raises(ValueError, match="unknown protocol 'stray'; use one of chat"):
        register_wire(Stray())


def test_a_pasted_endpoint_url_loses_any_registered_protocols_path(toy: None) -> None:
    for path in ("/messages", "/responses", "/chat/completions", "/toy/generate"):
        cleaned = normalize_base_url(f"https://gw.example/v1{path}")
        assert cleaned.url == "https://gw.example/v1", path
        assert any(f"removed '{path}'" in n for n in cleaned.notes), cleaned.notes


def test_the_doctor_words_a_wrong_model_list_as_the_protocol_says(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)

    async def listing(_request: web.Request) -> web.Response:
        return web.json_response({"models": "none here"})

    app = web.Application()
    app.router.add_get("/v1/models", listing)
    register(ToyListed())
    try:
        with serving_in_thread(app) as url:
            main(["doctor", "--base-url", url, "--protocol", "toy-listed", "--model", "m",
                  "--json"])  # fmt: skip
    finally:
        unregister("toy-listed")
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)}
    model = checks["model"]
    assert not model["ok"], model
    assert "the toy list is not a toy list" in json.dumps(model)
    assert "ask the toy server for its toy list" in json.dumps(model)
