"""Secrets that travel inside URLs and inside error text, as a user meets them through the CLI.

- A base URL with `user:password@` is refused where it is entered (exit 2, the fix named); a
  providers file that already has one loads without it, marked, and nothing shows it.
- A proxy password lives in an environment variable (`--proxy-password-env`), and a real
  loopback proxy that demands Proxy-Authorization lets the requests through.
- Error text is redacted before it is cut: a server that echoes the key so that the cut falls
  inside it leaves no piece of it in stderr, the CSV or the history database.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from aiohttp import web

from tests.support.cli_inprocess import run_cli
from tests.support.loopback import AuthProxy, ThreadedLoop
from tests.support.ports import refusing_port
from tests.support.serve_local import serve_local
from workbench.core.access.providers import KeyRef, Provider, ProxyChoice
from workbench.core.foundation.errors import SERVER_MESSAGE_CHARS, classify_exception
from workbench.core.foundation.redaction import redact_and_cut, register_secret
from workbench.core.foundation.results import ErrorClass
from workbench.core.importers import import_path
from workbench.core.protocols.base_url import normalize_base_url
from workbench.core.saved.provider_store import ProviderConfigError, check_proxy_url, load_providers
from workbench.core.transport.clients import ClientPool
from workbench.core.transport.provider_connection import connect
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer

WORKBENCH = [sys.executable, "-m", "workbench"]
PASSWORD = "Pw9-QuokkaLantern-73"  # a password users put in URLs: no key shape at all
PROXY_PASSWORD = "Px4-MarmotCanvas-51"
MODEL = "sim-70b-gqa"


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """The command in this process (a start cost ~0.3 s CPU): what it prints is the subject."""
    return run_cli(args, env)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    return {
        **clean,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
    }


@pytest.fixture
def local_server(env: dict[str, str]) -> Iterator[str]:
    """The built-in provider as its own process (keyless), as a user would run it."""
    with serve_local("--time-scale", "0.01", env=env) as server:
        yield server.base_url


# ---- base URLs with credentials ----


@pytest.mark.parametrize("command", ["providers-add", "bench", "models", "doctor"])
def test_a_base_url_with_a_password_is_refused_with_the_fix(env, tmp_path, command) -> None:
    url = f"http://bob:{PASSWORD}@127.0.0.1:9/v1"  # refused before any connection
    args = {
        "providers-add": ["providers", "add", "gw", "--base-url", url],
        "bench": ["bench", "--base-url", url, "--model", "m", "--csv", str(tmp_path / "r.csv")],
        "models": ["models", "--base-url", url],
        "doctor": ["doctor", "--base-url", url, "--json"],
    }[command]
    done = _run(args, env)
    assert done.returncode == 2, done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    assert "--api-key-env" in done.stderr and "bob:***@" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "config" / "providers.toml").exists()


@pytest.mark.parametrize(
    "template",
    [
        "https://bob:{pw}@gw.example/v1",
        "https://:{pw}@gw.example/v1",
        "bob:{pw}@gw.example/v1",  # no scheme: https:// is added, then the same rule
        " 'http://bob:{pw}@127.0.0.1:8000/v1/chat/completions' ",
    ],
)
def test_normalize_refuses_credentials_and_never_echoes_them(template: str) -> None:
    password = f"Pw-{abs(hash(template)) % 10**8:08d}-Otter"  # its own: never registered before
    with pytest.raises(ValueError) as err:
        normalize_base_url(template.format(pw=password))
    assert password not in str(err.value) and "user name or password" in str(err.value)
    with pytest.raises(ValueError, match="user name or password"):
        normalize_base_url("https://bob@gw.example/v1")


def test_a_password_with_a_slash_is_never_echoed() -> None:
    """Not a URL a parser splits correctly (userinfo must escape '/'); refused, not echoed."""
    password = "Pw/Heron-5521"
    with pytest.raises(ValueError) as err:
        normalize_base_url(f"https://bob:{password}@gw.example/v1")
    assert password not in str(err.value) and "Heron" not in str(err.value)


def test_a_file_with_url_passwords_loads_masked_and_says_how_to_fix(env, tmp_path) -> None:
    """A providers.toml written by hand (or by an older version): nothing shows the passwords,
    list marks the providers, the last-good copy never gets them, and the next save drops them."""
    config = tmp_path / "config"
    config.mkdir()
    path = config / "providers.toml"
    refusing = ExitStack()
    dead = f"127.0.0.1:{refusing.enter_context(refusing_port())}"  # the doctor: a fast refusal
    path.write_text(
        f'[providers.gw]\nbase_url = "http://bob:{PASSWORD}@{dead}/v1"\n'
        f'key = "${{GW_KEY}}"\nmodels = ["m1"]\n\n'
        f'[providers.px]\nbase_url = "http://{dead}/v1"\n'
        f'proxy = "http://carol:{PROXY_PASSWORD}@127.0.0.1:3128"\n',
        encoding="utf-8",
    )
    runs = {
        "list": _run(["providers", "list"], env),
        "show": _run(["providers", "show", "gw"], env),
        "show-px": _run(["providers", "show", "px"], env),
        "export": _run(["providers", "export"], env),
        "doctor": _run(["doctor", "gw", "--json", "--timeout", "3"], env),
        "models": _run(["models", "--provider", "gw"], env),
    }
    refusing.close()
    for name, done in runs.items():
        text = done.stdout + done.stderr
        assert PASSWORD not in text and PROXY_PASSWORD not in text, name
        assert "Traceback" not in text, name
    listed = runs["list"].stdout
    assert runs["list"].returncode == 0
    assert f"http://{dead}/v1" in listed and "carol:" not in runs["show-px"].stdout
    assert listed.count("WARNING") >= 2 and "GW_API_KEY" in listed and "PX_PROXY_PASSWORD" in listed
    exported = tomllib.loads(runs["export"].stdout)["providers"]
    assert exported["gw"]["base_url"] == f"http://{dead}/v1"
    assert exported["px"]["proxy"]["url"] == "http://carol@127.0.0.1:3128"
    assert json.loads(runs["doctor"].stdout)  # the checks ran, on the URL without credentials
    assert not (config / "providers.toml.last-good").exists()
    # the next save writes the file without them (the load warned that it would)
    added = _run(["providers", "add", "other", "--base-url", "https://other.example/v1"], env)
    assert added.returncode == 0, added.stderr
    for file in (path, config / "providers.toml.last-good"):
        text = file.read_text()
        assert PASSWORD not in text and PROXY_PASSWORD not in text and "gw" in text


def test_import_turns_a_url_password_into_the_key(tmp_path, memory_keyring) -> None:
    config = tmp_path / "benchmark_config.json"
    config.write_text(
        json.dumps({"base_url": f"https://bob:{PASSWORD}@gw.example/v1", "models": ["m1"]}),
        encoding="utf-8",
    )
    result = import_path(config)
    provider = result.providers[0]
    found = result.keys[provider.name]
    assert provider.base_url == "https://gw.example/v1"
    assert found.kind == "literal" and found.secret() == PASSWORD
    assert any("becomes this provider's key" in w for w in result.warnings)
    assert PASSWORD not in repr(result) and all(PASSWORD not in w for w in result.warnings)
    done = subprocess.run(
        [*WORKBENCH, "import", str(config), "--dry-run", "--json"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "WORKBENCH_CONFIG_DIR": str(tmp_path / "cfg")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    shown = json.loads(done.stdout)["providers"][0]
    assert shown["base_url"] == "https://gw.example/v1" and shown["key"]["kind"] == "literal"


# ---- proxy passwords ----


def test_a_proxy_url_with_a_password_is_refused_with_the_fix(env) -> None:
    with pytest.raises(ProviderConfigError) as err:
        check_proxy_url("gw", f"http://carol:{PROXY_PASSWORD}@proxy.corp:3128")
    assert PROXY_PASSWORD not in str(err.value) and "--proxy-password-env" in str(err.value)
    done = _run(
        ["providers", "add", "gw", "--base-url", "https://gw.example/v1",
         "--proxy", f"http://carol:{PROXY_PASSWORD}@proxy.corp:3128"],
        env,
    )  # fmt: skip
    assert done.returncode == 2 and PROXY_PASSWORD not in done.stdout + done.stderr
    assert "--proxy-password-env" in done.stderr


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
async def test_a_proxy_password_from_the_environment_gets_through(monkeypatch, transport) -> None:
    proxy = await AuthProxy("carol", PROXY_PASSWORD).start()
    try:
        async with LocalServer(settings=SimSettings(time_scale=0.01)) as server:
            provider = Provider(
                "px",
                server.base_url,
                KeyRef("none"),
                proxy=ProxyChoice("url", f"http://carol@127.0.0.1:{proxy.port}", "PX_PASSWORD"),
            )
            monkeypatch.setenv("PX_PASSWORD", PROXY_PASSWORD)
            pool = ClientPool(transport)
            try:
                connection = connect(provider)
                client = pool.get(connection.base_url, None, connection.options)
                page = await client.models.list()
            finally:
                await pool.aclose()
            assert MODEL in {m.id for m in page.data}
            assert proxy.allowed >= 1 and proxy.refused == 0
            # the variable unset: the proxy refuses, and the failure is classified, not internal
            monkeypatch.delenv("PX_PASSWORD")
            assert any("PX_PASSWORD" in w for w in provider.warnings())
            pool = ClientPool(transport)
            try:
                client = pool.get(provider.base_url, None, connect(provider).options)
                with pytest.raises(Exception) as err:
                    await client.models.list()
            finally:
                await pool.aclose()
            diag = classify_exception(err.value, "", False)
            assert diag.error_class is not ErrorClass.INTERNAL and "407" in diag.message
            assert proxy.refused >= 1
    finally:
        await proxy.stop()


def test_bench_through_a_proxy_that_wants_a_password(env, tmp_path, local_server) -> None:
    """The whole path as a user takes it: save the provider, bench through the proxy."""
    with ThreadedLoop() as background:
        proxy = background.run(AuthProxy("carol", PROXY_PASSWORD).start())
        try:
            added = _run(
                ["providers", "add", "px", "--base-url", local_server, "--model", MODEL,
                 "--proxy", f"http://carol@127.0.0.1:{proxy.port}",
                 "--proxy-password-env", "PX_PASSWORD"],
                env,
            )  # fmt: skip
            assert added.returncode == 0, added.stderr
            csv_path = tmp_path / "px.csv"
            done = _run(
                ["bench", "--provider", "px", "--model", MODEL, "--prompt-tokens", "128",
                 "--max-tokens", "8", "--csv", str(csv_path)],
                {**env, "PX_PASSWORD": PROXY_PASSWORD},
            )  # fmt: skip
        finally:
            background.run(proxy.stop())
    assert done.returncode == 0, done.stderr
    assert proxy.allowed >= 2 and proxy.refused == 0  # /models and the completion
    saved = (tmp_path / "config" / "providers.toml").read_text()
    assert 'password_env = "PX_PASSWORD"' in saved
    for text in (saved, done.stdout, done.stderr, added.stdout, csv_path.read_text()):
        assert PROXY_PASSWORD not in text
    shown = _run(["providers", "show", "px"], env).stdout
    assert "carol@127.0.0.1" in shown and "password from $PX_PASSWORD" in shown
    assert load_providers(tmp_path / "config" / "providers.toml").warning is None


# ---- redact first, then cut ----

KEY = "ZQ7PX2MW9RK4TB8NV5CJ"  # no key shape: only registering it lets redaction find it
CUT = SERVER_MESSAGE_CHARS  # where errors.py cuts a server's message


def _fragments(key: str) -> list[str]:
    return [key[i : i + 4] for i in range(len(key) - 3)]


def _echo_app() -> web.Application:
    """/v1/models lists "m"; a completion gets HTTP 400 with the Authorization header echoed
    so that the cut at CUT characters falls 6 characters into the key."""

    async def models(_request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "m", "object": "model"}]})

    async def chat(request: web.Request) -> web.Response:
        echoed = request.headers.get("Authorization", "")
        pad = "y" * (CUT - len("Bearer ") - 6)
        message = f"{pad}{echoed} was refused"
        return web.json_response({"error": {"message": message}}, status=400)

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    return app


def test_a_key_echoed_across_the_cut_leaves_no_piece_of_it(env, tmp_path) -> None:
    with ThreadedLoop() as background:
        runner = web.AppRunner(_echo_app())
        background.run(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        background.run(site.start())
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        try:
            csv_path = tmp_path / "echo.csv"
            done = _run(
                ["bench", "--base-url", f"http://127.0.0.1:{port}/v1", "--api-key-env",
                 "ECHO_KEY", "--model", "m", "--prompt-tokens", "128", "--max-tokens", "8",
                 "--csv", str(csv_path)],
                {**env, "ECHO_KEY": KEY},
            )  # fmt: skip
        finally:
            background.run(runner.cleanup())
    assert done.returncode == 3, done.stderr
    rows = csv_path.read_text()
    assert "bad_request" in rows and "yyyy" in rows  # the server's message is there, cut
    database = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file())
    assert b"yyyy" in database
    for fragment in _fragments(KEY):
        assert fragment not in done.stderr and fragment not in done.stdout, fragment
        assert fragment not in rows and fragment.encode() not in database, fragment


def test_redact_and_cut_leaves_no_fragment_at_any_cut() -> None:
    key = "KQ3VX8ZP2WM7RT5NB4"
    register_secret(key)
    text = f"error: Authorization: Bearer {key} rejected for {key}."
    for limit in range(len(text) + 2):
        shown = redact_and_cut(text, limit, ellipsis="…")
        assert len(shown) <= limit + 1
        assert all(f not in shown for f in _fragments(key)), (limit, shown)
    # a hostile body: the key repeated until redaction shrinks it far below the window
    hostile = (key + " ") * 5000
    shown = redact_and_cut(hostile, 300)
    assert all(f not in shown for f in _fragments(key)) and shown.startswith("*** ")
