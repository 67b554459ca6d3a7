"""`workbench doctor (PROVIDER | --base-url URL)`: why a connection fails, check by check.

Exit code 0 only when every check that ran passed (skipped checks are not failures), 3 when one
failed, 2 for bad input (no target, both targets, an unknown provider). The checks speak the
target's protocol (--protocol, else the saved provider's, else chat), and each line that sent a
request names the protocol and path it tested.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

from workbench.commands.common import LOCAL_PROVIDER, add_protocol_arg, fail
from workbench.core.access.providers import AuthScheme, Protocol, ProxyChoice
from workbench.core.doctor import Check, diagnose, passed
from workbench.core.foundation.redaction import redact, redact_values, register_secret
from workbench.core.foundation.terminal import fits, json_text, printable
from workbench.core.protocols.base_url import UrlCredentials, normalize_base_url

MARKS = {"ok": ("✓", "OK"), "fail": ("✗", "FAIL"), "skip": ("–", "-")}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "doctor",
        help="diagnose a connection: proxy, DNS, TCP, TLS, /v1, key, model, stream, 429, HTML",
        description="Run the connection checks against a saved provider, the built-in one "
        f"('{LOCAL_PROVIDER}'), or --base-url, and say for each failure its cause and fix. "
        "Exit code 0 only when every check that ran passed.",
    )
    p.add_argument(
        "provider",
        nargs="?",
        metavar="PROVIDER",
        help=f"a saved provider's name; '{LOCAL_PROVIDER}' starts the built-in provider",
    )
    p.add_argument("--base-url", metavar="URL", help="an endpoint instead of a saved provider")
    p.add_argument("--model", metavar="M", help="the model id to check and ask for one token")
    p.add_argument(
        "--api-key-env", metavar="VAR", help="environment variable that holds the API key"
    )
    add_protocol_arg(p)
    p.add_argument("--json", action="store_true", help="print the checks as a JSON list")
    p.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds to wait for each step (default 10)",
    )
    p.set_defaults(func=run)


@dataclass
class _Target:
    base_url: str
    api_key: str | None = None
    model: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    proxy: ProxyChoice | None = None
    verify_tls: bool = True
    key_source: str = ""
    warnings: list[str] = field(default_factory=list)
    # the wire protocol (--protocol, else the saved provider's) and how the key is sent (None:
    # the protocol's own), for the checks
    protocol: Protocol = "chat"
    auth: AuthScheme | None = None


class _BadInput(Exception):
    """Bad command-line input: printed, exit code 2."""


def run(args: argparse.Namespace) -> int:
    if bool(args.provider) == bool(args.base_url):
        fail("give either a PROVIDER name or --base-url URL (exactly one)")
        return 2
    if args.timeout is not None and args.timeout <= 0:
        fail("--timeout must be a positive number of seconds")
        return 2
    try:
        return asyncio.run(_run(args))
    except _BadInput as exc:
        fail(str(exc))
        return 2


async def _run(args: argparse.Namespace) -> int:
    async with AsyncExitStack() as stack:
        target = await _resolve(args, stack)
        checks = await diagnose(
            target.base_url,
            target.api_key,
            args.model or target.model,
            headers=target.headers,
            proxy=target.proxy,
            verify_tls=target.verify_tls,
            timeout_s=args.timeout,
            key_source=target.key_source,
            protocol=target.protocol,
            auth=target.auth,
        )
    if args.json:  # JSON escapes C0 controls; escape_quoted the C1 and bidi characters
        print(json_text(redact_values([c.to_json() for c in checks])))
    else:
        _print_human(target, args.model or target.model, checks)
    # a failed check is a finished diagnosis with some failures: exit 3, as a run's failed rows
    return 0 if passed(checks) else 3


def _key_from_env(var: str) -> tuple[str | None, str]:
    if not var.isidentifier():
        raise _BadInput(f"--api-key-env takes a variable name like TAOTOKEN_API_KEY, not '{var}'")
    value = os.environ.get(var)
    register_secret(value)
    if value is None:
        return None, f"environment variable ${var}, which is not set in this shell"
    if not value.strip():
        return None, f"environment variable ${var}, which is empty"
    return value, f"environment variable ${var}"


async def _resolve(args: argparse.Namespace, stack: AsyncExitStack) -> _Target:
    target = await _resolve_endpoint(args, stack)
    target.protocol = args.protocol or target.protocol
    return target


async def _resolve_endpoint(args: argparse.Namespace, stack: AsyncExitStack) -> _Target:
    if args.base_url:
        _refuse_credentials(args.base_url)
        target = _Target(args.base_url)
        if args.api_key_env:
            target.api_key, target.key_source = _key_from_env(args.api_key_env)
        return target
    if args.provider == LOCAL_PROVIDER:
        from workbench.local.server import LocalServer

        server = LocalServer()
        await server.start()
        stack.push_async_callback(server.stop)
        target = _Target(server.base_url)
        if args.api_key_env:
            target.api_key, target.key_source = _key_from_env(args.api_key_env)
        return target
    return _saved_provider(args)


def _refuse_credentials(url: str) -> None:
    """A URL with user:password@ is bad input (never sent, never shown); any other oddity of
    its shape is the doctor's to diagnose."""
    try:
        normalize_base_url(url)
    except UrlCredentials as exc:
        raise _BadInput(str(exc)) from None
    except ValueError:
        pass


def _saved_provider(args: argparse.Namespace) -> _Target:
    try:
        from workbench.core.saved import provider_store
    except ImportError:
        raise _BadInput(
            f"saved providers are not available in this build; use --base-url URL "
            f"(or '{LOCAL_PROVIDER}' for the built-in provider)"
        ) from None
    try:
        provider: Any = provider_store.get_provider(args.provider)
    except LookupError:
        provider = None
    except (OSError, ValueError) as exc:  # a broken providers file names file and line
        raise _BadInput(str(exc)) from None
    if provider is None:
        raise _BadInput(
            f"no saved provider named '{args.provider}'; see `workbench import` or use "
            f"--base-url URL"
        )
    target = _Target(
        provider.base_url,
        model=provider.models[0].id if getattr(provider, "models", ()) else None,
        headers=dict(getattr(provider, "headers", {}) or {}),
        proxy=getattr(provider, "proxy", None),
        verify_tls=bool(getattr(provider, "verify_tls", True)),
        protocol=getattr(provider, "protocol", "chat"),
        auth=getattr(provider, "auth", None),
    )
    warnings = getattr(provider, "warnings", None)
    if callable(warnings):
        target.warnings = list(warnings())
    if args.api_key_env:
        target.api_key, target.key_source = _key_from_env(args.api_key_env)
        return target
    from workbench.core.access import keys

    try:
        target.headers = keys.resolve_headers(provider)
    except keys.KeyUnavailable as exc:  # a ${VAR} in a header that is not set
        target.warnings.append(str(exc))
    describe = getattr(getattr(provider, "key", None), "describe", None)
    target.key_source = describe() if callable(describe) else ""
    try:
        target.api_key = keys.resolve_key(provider)
    except keys.KeyUnavailable as exc:
        target.api_key, target.key_source = None, str(keys.unavailable(target.key_source, exc))
    return target


def _print_human(target: _Target, model: str | None, checks: list[Check]) -> None:
    head = f"Connection doctor: {target.base_url}" + (f" (model {model})" if model else "")
    head += f"; protocol {target.protocol}"
    _out(head)
    for warning in target.warnings:
        _out(f"WARNING: {warning}")
    for check in checks:
        mark = fits(*MARKS["skip" if check.skipped else "ok" if check.ok else "fail"])
        tested = f" ({check.tested})" if check.tested else ""  # the protocol and path it tried
        _out(f"{mark} {check.name}{tested}: {check.evidence}")
        if not check.ok and not check.skipped:
            _out(f"    cause: {check.cause}")
            _out(f"    fix: {check.fix}")
    ran = [c for c in checks if not c.skipped]
    failed = sum(1 for c in ran if not c.ok)
    skipped = len(checks) - len(ran)
    verdict = "all checks passed" if not failed else f"{failed} check(s) failed"
    _out(f"{verdict} ({len(ran) - failed} passed, {skipped} skipped)")
    sys.stdout.flush()


def _out(line: str) -> None:
    """A line that may quote the server (model ids, error text): redacted, and no control or
    bidi character reaches the terminal."""
    print(printable(redact(line)))
