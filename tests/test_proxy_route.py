"""The one proxy decision: what the doctor says is the route the client takes.

Each case of the matrix sets proxy variables and a provider setting, then
- asks the doctor (its `proxy` check's evidence names the route: "direct (...)" or "via ..."),
- sends `GET /models` with the app's client (both transports) and sees who received it: a tiny
  recording HTTP proxy on 127.0.0.1, or the target server on 127.0.0.1,
and checks that the doctor's words, the client's route and the case's expectation agree.

The targets have made-up names (api.example.com): the one stand-in is name resolution, which
maps those names to 127.0.0.1 (the internet's DNS cannot be reached here), so a direct request
reaches the loopback target and nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field

import pytest

from workbench.core.access.providers import ProxyChoice
from workbench.core.access.proxy_route import no_proxy_match, route_for
from workbench.core.doctor import PROXY_VARIABLES, diagnose
from workbench.core.transport.clients import ProxyUnsupported, make_client

TRANSPORTS = ["aiohttp", "httpx"]
MAX_HEAD = 64 << 10  # bytes a recording server reads of a request head
READ_TIMEOUT_S = 5.0


@dataclass
class Recorder:
    """A loopback server that records the first line (or the protocol) of what it receives and
    answers a model list naming itself; a CONNECT or a TLS/SOCKS greeting is recorded, then
    refused."""

    name: str
    seen: list[str] = field(default_factory=list)
    port: int = 0
    server: asyncio.Server | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(READ_TIMEOUT_S):
                first = await reader.read(1)
                if first in (b"\x16", b"\x05", b"\x04"):  # TLS ClientHello, SOCKS5, SOCKS4
                    self.seen.append({b"\x16": "TLS", b"\x05": "SOCKS5", b"\x04": "SOCKS4"}[first])
                    return
                head = first + await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            return
        finally:
            if self.seen and self.seen[-1] in ("TLS", "SOCKS5", "SOCKS4"):
                writer.close()
        line = head[:MAX_HEAD].split(b"\r\n", 1)[0].decode("latin-1")
        self.seen.append(line)
        if line.startswith("CONNECT "):
            writer.write(
                b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
        else:
            body = b'{"object": "list", "data": [{"id": "' + self.name.encode() + b'"}]}'
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
        await writer.drain()
        writer.close()

    async def __aenter__(self) -> Recorder:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0, limit=MAX_HEAD)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()


@pytest.fixture(autouse=True)
def _clean_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def example_names_resolve_here(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """example.com, example.org and the names under them resolve to 127.0.0.1; no other name
    resolves."""
    real = socket.getaddrinfo

    def resolve(host: object, *args: object, **kwargs: object) -> object:
        name = host.decode() if isinstance(host, bytes) else str(host)
        bare = name.rstrip(".")
        if any(bare == d or bare.endswith("." + d) for d in ("example.com", "example.org")):
            return real("127.0.0.1", *args, **kwargs)  # type: ignore[arg-type]
        if name.replace(".", "").isdigit() or ":" in name or name == "localhost":
            return real(host, *args, **kwargs)  # type: ignore[arg-type]
        raise socket.gaierror(socket.EAI_NONAME, f"{name} does not resolve in this test")

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    yield


@pytest.fixture
async def servers() -> AsyncIterator[tuple[Recorder, Recorder]]:
    async with Recorder("via-proxy") as proxy, Recorder("direct") as target:
        yield proxy, target


API = "http://api.example.com:{port}/v1"  # a made-up remote host: {port} is the target's
SECURE = "https://api.example.com:{port}/v1"
P = "{proxy}"  # the recording proxy's URL
SYSTEM, NONE = ProxyChoice(), ProxyChoice("none")
# (id, target URL, variables, provider setting, expected route)
CASES: list[tuple[str, str, dict[str, str], ProxyChoice, str]] = [
    ("http_proxy", API, {"HTTP_PROXY": P}, SYSTEM, "proxy"),
    ("lower_case", API, {"http_proxy": P}, SYSTEM, "proxy"),
    ("https_connect", SECURE, {"HTTPS_PROXY": P}, SYSTEM, "proxy"),
    ("https_only_for_http", API, {"HTTPS_PROXY": P}, SYSTEM, "direct"),
    ("all_proxy", API, {"ALL_PROXY": P}, SYSTEM, "proxy"),
    ("no_scheme", API, {"HTTP_PROXY": "{bare}"}, SYSTEM, "proxy"),
    ("no_proxy_suffix", API, {"HTTP_PROXY": P, "NO_PROXY": ".example.com"}, SYSTEM, "direct"),
    (
        "no_proxy_suffix_bare_domain",
        "http://example.com:{port}/v1",
        {"HTTP_PROXY": P, "NO_PROXY": ".example.com"},
        SYSTEM,
        "direct",
    ),
    ("no_proxy_domain", API, {"HTTP_PROXY": P, "NO_PROXY": "example.com"}, SYSTEM, "direct"),
    ("no_proxy_wildcard", API, {"HTTP_PROXY": P, "no_proxy": "*.example.com"}, SYSTEM, "direct"),
    (
        "no_proxy_others",
        API,
        {"HTTP_PROXY": P, "NO_PROXY": "example.org, ample.com"},
        SYSTEM,
        "proxy",
    ),
    ("no_proxy_star", SECURE, {"HTTPS_PROXY": P, "NO_PROXY": "*"}, SYSTEM, "direct"),
    (
        "no_proxy_port",
        API,
        {"HTTP_PROXY": P, "NO_PROXY": "api.example.com:{port}"},
        SYSTEM,
        "direct",
    ),
    (
        "no_proxy_other_port",
        API,
        {"HTTP_PROXY": P, "NO_PROXY": "api.example.com:1"},
        SYSTEM,
        "proxy",
    ),
    (
        "no_proxy_cidr_misses",
        "http://192.0.2.7:{port}/v1",
        {"HTTP_PROXY": P, "NO_PROXY": "10.0.0.0/8"},
        SYSTEM,
        "proxy",
    ),
    (
        "lower_no_proxy_wins",
        API,
        {"HTTP_PROXY": P, "no_proxy": "example.org", "NO_PROXY": "example.com"},
        SYSTEM,
        "proxy",
    ),
    ("loopback", "http://127.0.0.1:{port}/v1", {"HTTP_PROXY": P, "ALL_PROXY": P}, SYSTEM, "direct"),
    ("provider_none", API, {"HTTP_PROXY": P}, NONE, "direct"),
    ("provider_url", API, {"NO_PROXY": "*"}, ProxyChoice("url", P), "proxy"),
]


def _fill(text: str, proxy: Recorder, target: Recorder) -> str:
    bare = f"127.0.0.1:{proxy.port}"
    return text.format(port=target.port, proxy=f"http://{bare}", bare=bare)


async def _client_route(url: str, choice: ProxyChoice, transport: str, servers) -> str:
    """Who received the client's GET /models: 'proxy' or 'direct' (the target)."""
    proxy, target = servers
    proxy.seen.clear()
    target.seen.clear()
    client = make_client(url, "sk-route-test", transport, 3.0, proxy=choice)  # type: ignore[arg-type]
    try:
        async with asyncio.timeout(10):
            await client.models.list()
    except Exception:  # an https target or a refused CONNECT fails: who saw it is the answer
        pass
    finally:
        await client.close()
    assert bool(proxy.seen) != bool(target.seen), (proxy.seen, target.seen)
    return "proxy" if proxy.seen else "direct"


async def _doctor_words(url: str, choice: ProxyChoice) -> str:
    checks = await diagnose(url, None, "m", proxy=choice, timeout_s=3.0)
    evidence = next(c for c in checks if c.name == "proxy").evidence
    return evidence.split("for this host: ", 1)[1]


@pytest.mark.parametrize(
    ("case", "url", "env", "choice", "expected"), CASES, ids=[c[0] for c in CASES]
)
async def test_the_doctor_names_the_route_the_client_takes(
    case, url, env, choice, expected, servers, example_names_resolve_here, monkeypatch
) -> None:
    proxy, target = servers
    url = _fill(url, proxy, target)
    for name, value in env.items():
        monkeypatch.setenv(name, _fill(value, proxy, target))
    if choice.mode == "url":
        choice = ProxyChoice("url", _fill(choice.url, proxy, target))
    words = await _doctor_words(url, choice)
    if expected == "direct":
        assert words.startswith("direct (")
    else:
        assert words.startswith("via ") and f"http://127.0.0.1:{proxy.port}" in words
    for transport in TRANSPORTS:
        assert await _client_route(url, choice, transport, servers) == expected, transport
    if expected == "proxy":
        assert url.split("/v1")[0].split("://")[1] in " ".join(
            proxy.seen
        )  # it was asked for the target


async def test_no_proxy_suffix_goes_direct_for_doctor_and_client(
    servers, example_names_resolve_here, monkeypatch
) -> None:
    """The case that used to split: with NO_PROXY=.example.com the doctor said "direct" for
    example.com itself, while the client went through the proxy."""
    proxy, target = servers
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy.port}")
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
    monkeypatch.setenv("NO_PROXY", ".example.com")
    url = f"http://example.com:{target.port}/v1"
    words = await _doctor_words(url, ProxyChoice())
    assert words == "direct (NO_PROXY entry '.example.com' matches example.com)"
    for transport in TRANSPORTS:
        assert await _client_route(url, ProxyChoice(), transport, servers) == "direct"
        assert target.seen == ["GET /v1/models HTTP/1.1"] and proxy.seen == []


async def test_socks_proxy_is_the_route_or_a_named_refusal(
    servers, example_names_resolve_here, monkeypatch
) -> None:
    """ALL_PROXY=socks5://: the doctor says so, and the client either speaks SOCKS to it or
    refuses, naming the missing package; it never goes direct instead."""
    proxy, target = servers
    monkeypatch.setenv("ALL_PROXY", f"socks5://127.0.0.1:{proxy.port}")
    url = f"http://api.example.com:{target.port}/v1"
    words = await _doctor_words(url, ProxyChoice())
    assert words == f"via socks5://127.0.0.1:{proxy.port} (ALL_PROXY)"
    try:
        import socksio  # noqa: F401
    except ImportError:
        with pytest.raises(ProxyUnsupported, match="socksio"):
            make_client(url, None, "aiohttp", proxy=ProxyChoice())
        assert target.seen == [] and proxy.seen == []
        return
    assert await _client_route(url, ProxyChoice(), "aiohttp", servers) == "proxy"
    assert proxy.seen == ["SOCKS5"]


@pytest.mark.parametrize(
    ("host", "port", "no_proxy", "entry"),
    [
        ("api.example.com", 443, ".example.com", ".example.com"),
        ("example.com", 443, ".example.com", ".example.com"),
        ("notexample.com", 443, "example.com", None),
        ("api.example.com", 443, "*.example.com", "*.example.com"),
        ("API.Example.COM", 443, "example.com", "example.com"),
        ("api.example.com.", 443, "example.com", "example.com"),
        ("api.example.com", 8443, "api.example.com:443", None),
        ("api.example.com", 443, "foo.org, api.example.com:443", "api.example.com:443"),
        ("10.1.2.3", 80, "10.0.0.0/8", "10.0.0.0/8"),
        ("11.1.2.3", 80, "10.0.0.0/8", None),
        ("10.1.2.3", 80, "10.1.2.3", "10.1.2.3"),
        ("fd00::5", 443, "fd00::/8", "fd00::/8"),
        ("fd00::5", 443, "[fd00::5]:443", "[fd00::5]:443"),
        ("api.example.com", 443, "10.0.0.0/8", None),
        ("anything.test", 443, "*", "*"),
        ("api.example.com", 443, "", None),
    ],
)
def test_no_proxy_entries(host: str, port: int, no_proxy: str, entry: str | None) -> None:
    assert no_proxy_match(host, port, no_proxy) == entry


def test_the_route_names_the_variable_and_masks_a_password() -> None:
    env = {"HTTPS_PROXY": "http://u:secret@proxy.corp:3128", "https_proxy": "http://lower:3128"}
    route = route_for("https://api.example.com/v1", environ=env)
    assert route.proxy == "http://lower:3128" and route.source == "https_proxy"
    env = {"HTTPS_PROXY": "http://u:secret@proxy.corp:3128"}
    route = route_for("https://api.example.com/v1", environ=env)
    assert route.proxy == "http://u:secret@proxy.corp:3128"  # the client needs the password
    assert "secret" not in route.reason and "u:***@proxy.corp" in route.reason
