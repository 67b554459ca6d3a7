"""Per-provider proxy, headers and TLS choices, against the real local server on 127.0.0.1.

A global proxy variable that points at a closed port stands in for a broken corporate proxy:
loopback servers must still be reached directly; an explicit proxy that is down must fail with a
connect error that names the proxy.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from workbench.core.access.providers import KeyRef, Provider, ProxyChoice
from workbench.core.foundation.errors import classify_exception
from workbench.core.foundation.results import ErrorClass
from workbench.core.transport.clients import (
    ClientOptions,
    ClientPool,
    make_client,
    plan_route,
)
from workbench.core.transport.provider_connection import connect
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer

KEY = "sk-test-" + "pr0xy" * 6
TRANSPORTS = ["aiohttp", "httpx"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def dead_proxy(monkeypatch) -> str:
    """HTTP(S)_PROXY set to a port nothing listens on, as a broken global proxy would be."""
    url = f"http://127.0.0.1:{_closed_port()}"
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.setenv(var, url)
    for var in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(var, raising=False)
    return url


@pytest.fixture
async def server() -> AsyncIterator[LocalServer]:
    async with LocalServer(api_key=KEY, settings=SimSettings(time_scale=0.01)) as srv:
        yield srv


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_loopback_goes_direct_under_a_global_proxy(server, dead_proxy, transport) -> None:
    route = plan_route(server.base_url, ProxyChoice("system"), transport)
    assert route.proxy_url is None and "loopback" in route.note
    client = make_client(server.base_url, KEY, transport, proxy=ProxyChoice("system"))
    try:
        page = await client.models.list()
    finally:
        await client.close()
    assert "sim-70b-gqa" in {m.id for m in page.data}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_explicit_proxy_that_is_down_is_a_connect_error_naming_it(server, transport) -> None:
    proxy = f"http://127.0.0.1:{_closed_port()}"
    client = make_client(server.base_url, KEY, transport, proxy=ProxyChoice("url", proxy))
    try:
        with pytest.raises(Exception) as err:
            await client.models.list()
    finally:
        await client.close()
    diag = classify_exception(err.value, "", False)
    assert diag.error_class == ErrorClass.CONNECT
    assert "proxy" in diag.what and proxy in diag.what
    assert KEY not in diag.message


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_system_proxy_applies_to_remote_hosts(dead_proxy, transport) -> None:
    """A non-loopback host under `system` goes to the environment's proxy (here: down)."""
    base = "http://api.invalid.example/v1"
    route = plan_route(base, ProxyChoice("system"), transport)
    assert route.proxy_url == dead_proxy and dead_proxy in route.note
    client = make_client(base, KEY, transport, proxy=ProxyChoice("system"))
    try:
        with pytest.raises(Exception) as err:
            await client.models.list()
    finally:
        await client.close()
    diag = classify_exception(err.value, "", False)
    assert diag.error_class == ErrorClass.CONNECT and dead_proxy in diag.what


async def test_proxy_none_ignores_the_environment(dead_proxy) -> None:
    route = plan_route("https://api.example.com/v1", ProxyChoice("none"), "aiohttp")
    assert route.proxy_url is None and "direct" in route.note


def test_socks_proxy_uses_the_httpx_transport() -> None:
    route = plan_route(
        "https://api.example.com/v1", ProxyChoice("url", "socks5://p:1080"), "aiohttp"
    )
    assert route.transport == "httpx"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_headers_reach_the_server(transport) -> None:
    seen: list[str | None] = []

    async def models(request: web.Request) -> web.Response:
        seen.append(request.headers.get("X-Title"))
        return web.json_response({"object": "list", "data": []})

    app = web.Application()
    app.router.add_get("/v1/models", models)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        pool = ClientPool(transport)  # type: ignore[arg-type]
        base = f"http://127.0.0.1:{port}/v1"
        pool.configure(base, ClientOptions.create({"X-Title": "wb"}))
        await pool.get(base, None).models.list()  # how the runner asks
        await pool.aclose()
    finally:
        await runner.cleanup()
    assert seen == ["wb"]


async def test_pool_keys_clients_by_options(server) -> None:
    pool = ClientPool()
    plain = pool.get(server.base_url, KEY)
    assert pool.get(server.base_url, KEY) is plain
    pool.configure(server.base_url, ClientOptions.create(proxy=ProxyChoice("none")))
    direct = pool.get(server.base_url, KEY)
    assert direct is not plain
    insecure = pool.get(server.base_url, KEY, ClientOptions.create(verify_tls=False))
    assert insecure is not direct
    await pool.aclose()


async def test_a_providers_connection_resolves_its_key_and_reaches_the_server(
    server, monkeypatch
) -> None:
    monkeypatch.setenv("PROXY_TEST_KEY", KEY)
    provider = Provider("lab", server.base_url, KeyRef("env", "PROXY_TEST_KEY"))
    connection = connect(provider)
    pool = ClientPool()
    try:
        page = await pool.get(
            connection.base_url, connection.api_key, connection.options
        ).models.list()
    finally:
        await pool.aclose()
    assert page.data
