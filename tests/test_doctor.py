"""The connection doctor against the real built-in provider on 127.0.0.1 and its fault modes."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2
import pytest

from workbench.cli import main
from workbench.core.access.providers import ProxyChoice
from workbench.core.doctor import (
    CHECK_NAMES,
    PROXY_VARIABLES,
    TROUBLESHOOTING_ERRORS,
    Check,
    diagnose,
    passed,
)
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer

KEY = "sk-doctor-test-key-0123456789"
WRONG_KEY = "sk-doctor-wrong-key-9876543210"
MODEL = "sim-70b-gqa"
FAST = SimSettings(time_scale=0.01)
# the errors a gateway setup guide's troubleshooting section lists (see data/README.md)
TROUBLESHOOTING_FILE = Path(__file__).parent / "data" / "troubleshooting_errors.txt"


pytestmark = pytest.mark.usefixtures("no_proxy_env")


@pytest.fixture
async def server() -> AsyncIterator[LocalServer]:
    async with LocalServer(settings=FAST) as srv:
        yield srv


@pytest.fixture
async def keyed_server() -> AsyncIterator[LocalServer]:
    async with LocalServer(settings=FAST, api_key=KEY) as srv:
        yield srv


def _by_name(checks: list[Check]) -> dict[str, Check]:
    assert [c.name for c in checks] == list(CHECK_NAMES)
    return {c.name: c for c in checks}


def _failed(checks: list[Check]) -> set[str]:
    return {c.name for c in checks if not c.ok and not c.skipped}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _no_key_text(checks: list[Check], *keys: str) -> None:
    for check in checks:
        text = json.dumps(check.to_json())
        for key in keys:
            assert key.strip() not in text, check


async def test_healthy_local_provider_passes_every_check(server: LocalServer) -> None:
    checks = await diagnose(server.base_url, None, MODEL)
    c = _by_name(checks)
    assert passed(checks), [x for x in checks if not x.ok and not x.skipped]
    assert all(x.ok for x in checks)  # a check that does not apply (TLS on http) is ok
    assert _failed(checks) == set()
    assert c["tls"].skipped and "plain http" in c["tls"].evidence
    assert {n for n, x in c.items() if x.skipped} == {"tls"}
    assert "TTFT" in c["stream"].evidence and "usage: present" in c["stream"].evidence
    assert "role-only: yes" in c["stream"].evidence
    assert "ms" in c["baseline"].evidence
    assert all(x.cause == "" and x.fix == "" for x in checks if x.ok)


async def test_missing_v1_is_named_with_the_right_base_url() -> None:
    async with LocalServer(settings=FAST, allow_no_v1=False) as srv:
        root = f"http://127.0.0.1:{srv.port}"
        checks = await diagnose(root, None, MODEL)
    c = _by_name(checks)
    assert _failed(checks) == {"models_path"}
    assert "lacks /v1" in c["models_path"].cause
    assert c["models_path"].fix == f"the base URL should be {root}/v1"
    assert c["stream"].ok  # the checks below ran against the URL that answers


async def test_server_route_prefixes_mount_the_routes_there_only() -> None:
    async with LocalServer(settings=FAST, route_prefixes=("/api",)) as srv:
        assert srv.base_url == f"http://127.0.0.1:{srv.port}/api"
        async with httpx2.AsyncClient(trust_env=False) as http:
            root = f"http://127.0.0.1:{srv.port}"
            assert (await http.get(f"{root}/api/models")).status_code == 200
            for path in ("/api/v1/models", "/v1/models", "/models"):
                answer = await http.get(root + path)
                assert answer.status_code == 404
                assert "/api/" in answer.json()["error"]["message"]


async def test_extra_v1_is_named_with_the_right_base_url() -> None:
    async with LocalServer(settings=FAST, route_prefixes=("/api",)) as srv:
        root = f"http://127.0.0.1:{srv.port}/api"
        checks = await diagnose(root + "/v1", None, MODEL)
    c = _by_name(checks)
    assert _failed(checks) == {"models_path"}
    assert "extra /v1" in c["models_path"].cause
    assert c["models_path"].fix == f"the base URL should be {root}"


async def test_wrong_key_is_named_rejected(keyed_server: LocalServer) -> None:
    checks = await diagnose(keyed_server.base_url, WRONG_KEY, MODEL)
    c = _by_name(checks)
    assert not c["auth"].ok and not c["auth"].skipped
    assert "rejected" in c["auth"].cause and "401" in c["auth"].evidence
    assert c["stream"].skipped and c["model"].skipped  # meaningless without a good key
    assert not passed(checks)
    _no_key_text(checks, WRONG_KEY, KEY)


async def test_missing_key_is_named(keyed_server: LocalServer) -> None:
    checks = await diagnose(
        keyed_server.base_url, None, MODEL, key_source="environment variable $X, not set"
    )
    c = _by_name(checks)
    assert "no key was sent" in c["auth"].cause
    assert "$X" in c["auth"].cause


@pytest.mark.parametrize(
    ("raw", "word"),
    [(KEY + " ", "trailing spaces"), (KEY + "\n", "trailing newline"), (f'"{KEY}"', "quotes")],
)
async def test_key_with_whitespace_or_quotes_is_named(
    keyed_server: LocalServer, raw: str, word: str
) -> None:
    checks = await diagnose(keyed_server.base_url, raw, MODEL)
    c = _by_name(checks)
    assert _failed(checks) == {"auth"}
    assert word in c["auth"].cause
    assert "bare key" in c["auth"].fix
    assert c["stream"].ok  # checked with the clean key, so the rest still tells its story
    _no_key_text(checks, raw, KEY)


async def test_unknown_model_gets_a_close_match(server: LocalServer) -> None:
    checks = await diagnose(server.base_url, None, "sim-70b-gqq")
    c = _by_name(checks)
    # the unlisted id is asked anyway (issue 13: servers that list only loaded models)
    assert _failed(checks) == {"model", "stream"}
    assert "sim-70b-gqq" in c["model"].cause
    assert c["model"].fix.startswith("use 'sim-70b-gqa'")
    assert not c["stream"].skipped and "sim-70b-gqq" in c["stream"].evidence


async def test_proxy_variable_pointing_nowhere_is_named(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("HTTPS_PROXY", dead)
    monkeypatch.setenv("HTTP_PROXY", dead)
    checks = await diagnose(server.base_url, None, MODEL)
    c = _by_name(checks)
    assert _failed(checks) == {"proxy"}
    assert "local proxy failed" in c["proxy"].cause
    assert "HTTPS_PROXY" in c["proxy"].evidence and "loopback" in c["proxy"].evidence
    assert "unset it or fix it" in c["proxy"].fix
    assert "a local server is reached directly" in c["proxy"].fix
    assert c["stream"].ok  # the loopback server itself is still reached directly


async def test_dead_proxy_for_a_remote_host_skips_what_it_carries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{_closed_port()}")
    checks = await diagnose("https://api.example.invalid/v1", None, MODEL, timeout_s=3)
    c = _by_name(checks)
    assert "requests to this host go through" in c["proxy"].cause
    assert all(c[n].skipped for n in ("dns", "tcp", "tls", "models_path", "auth", "stream"))


async def test_provider_proxy_none_ignores_the_environment(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:1")
    checks = await diagnose(server.base_url, None, MODEL, proxy=ProxyChoice("none"))
    assert "ignored for this provider" in _by_name(checks)["proxy"].evidence


async def test_html_error_page_is_named(server: LocalServer) -> None:
    checks = await diagnose(server.base_url, None, MODEL, headers={"X-Sim-Fault": "html"})
    c = _by_name(checks)
    assert not c["html"].ok and not c["html"].skipped
    assert "HTML" in c["html"].cause and "502" in c["html"].cause
    assert "502 Bad Gateway" in c["html"].evidence
    assert "html" in _failed(checks) and not passed(checks)


async def test_html_200_web_page_is_named_as_the_web_site(server: LocalServer) -> None:
    checks = await diagnose(server.base_url, None, MODEL, headers={"X-Sim-Fault": "html200"})
    assert "web site" in _by_name(checks)["html"].cause


async def test_429_is_named_with_retry_after(server: LocalServer) -> None:
    checks = await diagnose(server.base_url, None, MODEL, headers={"X-Sim-Fault": "429"})
    c = _by_name(checks)
    assert not c["rate_limit"].ok and not c["rate_limit"].skipped
    assert "Retry-After: 1" in c["rate_limit"].evidence
    assert "rate-limiting" in c["rate_limit"].cause
    assert c["rate_limit"].fix.startswith("wait 1 s")
    assert c["html"].ok


async def test_nothing_listening_skips_the_http_checks() -> None:
    checks = await diagnose(f"http://127.0.0.1:{_closed_port()}/v1", None, MODEL)
    c = _by_name(checks)
    assert not c["tcp"].ok and "nothing listens" in c["tcp"].cause
    assert all(c[n].skipped for n in ("models_path", "auth", "model", "stream", "baseline"))
    assert not any(c[n].ok for n in ("models_path", "auth", "model", "stream", "baseline"))


async def test_pasted_endpoint_url_is_named(server: LocalServer) -> None:
    checks = await diagnose(server.base_url + "/chat/completions", None, MODEL)
    c = _by_name(checks)
    assert _failed(checks) == {"base_url"}
    assert c["base_url"].fix == f"the base URL should be {server.base_url}"


def _troubleshooting_phrases() -> list[str]:
    lines = TROUBLESHOOTING_FILE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_troubleshooting_errors_map_to_checks() -> None:
    phrases = _troubleshooting_phrases()
    assert len(phrases) == len(set(phrases)), "a phrase is listed twice"
    # every error the guide's troubleshooting section lists has an entry, and nothing else does
    assert set(phrases) == set(TROUBLESHOOTING_ERRORS)
    for phrase in phrases:
        checks = TROUBLESHOOTING_ERRORS[phrase]
        assert checks, f"{phrase!r} names no doctor check"
        assert set(checks) <= set(CHECK_NAMES), f"{phrase!r} names an unknown check"
    # the errors users report most, in any of the guide's wordings, are among them
    listed = [
        "401",
        "404",
        "/v1",
        "429",
        "local proxy failed",
        "reading choices",
        "OAuth",
        "model not found",
        "模型名不识别",
        "timeout",
        "超时",
        "截断",
        "insufficient quota",
        "余额",
        "空格",
        "引号",
        "不生效",
        "限流",
        "/chat/completions",
    ]
    for error in listed:
        assert any(error in phrase for phrase in phrases), error


async def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
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


async def test_cli_json_exit_codes_and_no_key_text(keyed_server: LocalServer) -> None:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env["DOCTOR_GOOD"], env["DOCTOR_BAD"] = KEY, WRONG_KEY
    url = keyed_server.base_url
    code, out, err = await _cli(
        "--base-url", url, "--model", MODEL, "--api-key-env", "DOCTOR_GOOD", "--json", env=env
    )
    assert code == 0, out + err
    checks = json.loads(out)
    assert [c["name"] for c in checks] == list(CHECK_NAMES)
    assert all({"name", "ok", "evidence", "cause", "fix", "skipped"} <= c.keys() for c in checks)
    code, out, err = await _cli(
        "--base-url", url, "--model", MODEL, "--api-key-env", "DOCTOR_BAD", "--json", env=env
    )
    assert code == 3
    auth = next(c for c in json.loads(out) if c["name"] == "auth")
    assert not auth["ok"] and "rejected" in auth["cause"]
    for text in (out, err):
        assert KEY not in text and WRONG_KEY not in text


async def test_cli_human_output(
    keyed_server: LocalServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCTOR_SPACEY", KEY + "\n")
    code = await asyncio.to_thread(
        main,
        [
            "doctor",
            "--base-url",
            keyed_server.base_url,
            "--model",
            MODEL,
            "--api-key-env",
            "DOCTOR_SPACEY",
        ],
    )
    out = capsys.readouterr().out
    assert code == 3
    assert "✓ base_url:" in out and "– tls:" in out
    # a check that sent requests names the protocol and path it tested
    assert "✗ auth (chat /v1/models):" in out and "✓ stream (chat /v1/chat/completions):" in out
    assert "    cause: the key has a trailing newline" in out and "    fix: " in out
    assert KEY not in out


async def test_cli_unset_key_variable_is_diagnosed_not_refused(
    keyed_server: LocalServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = await asyncio.to_thread(
        main,
        [
            "doctor",
            "--base-url",
            keyed_server.base_url,
            "--api-key-env",
            "DOCTOR_NOT_SET_ANYWHERE",
            "--json",
        ],
    )
    auth = next(c for c in json.loads(capsys.readouterr().out) if c["name"] == "auth")
    assert code == 3
    assert "DOCTOR_NOT_SET_ANYWHERE" in auth["cause"] and "not set" in auth["cause"]


@pytest.mark.parametrize(
    "args",
    [
        ["doctor"],
        ["doctor", "someprovider", "--base-url", "http://127.0.0.1:1/v1"],
        ["doctor", "no-such-provider-saved"],
        ["doctor", "--base-url", "http://127.0.0.1:1/v1", "--api-key-env", "NOT-A-NAME"],
    ],
)
def test_cli_bad_input_exits_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    assert "error:" in capsys.readouterr().err


async def test_cli_saved_provider_resolves_its_key(
    keyed_server: LocalServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from workbench.core.access.providers import KeyRef, ModelEntry, Provider
    from workbench.core.saved.provider_store import save_providers

    save_providers(
        [
            Provider(
                "sim",
                keyed_server.base_url,
                KeyRef("env", "DOCTOR_PROVIDER_KEY"),
                models=(ModelEntry(MODEL),),
            )
        ]
    )
    monkeypatch.delenv("DOCTOR_PROVIDER_KEY", raising=False)
    code = await asyncio.to_thread(main, ["doctor", "sim", "--json"])
    auth = next(c for c in json.loads(capsys.readouterr().out) if c["name"] == "auth")
    assert code == 3 and "DOCTOR_PROVIDER_KEY" in auth["cause"]
    monkeypatch.setenv("DOCTOR_PROVIDER_KEY", KEY)
    code = await asyncio.to_thread(main, ["doctor", "sim", "--json"])
    out = capsys.readouterr().out
    checks = {c["name"]: c for c in json.loads(out)}
    assert code == 0, out
    assert MODEL in checks["model"]["evidence"]  # the provider's first model by default
    assert KEY not in out
