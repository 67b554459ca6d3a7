"""`workbench providers`: list, show, add, remove and export the saved providers."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from workbench.commands.common import fail
from workbench.core.access.keys import is_env_var_name, parse_env_reference
from workbench.core.access.provider_files import write_private
from workbench.core.access.providers import (
    DEFAULT_FIRST_TOKEN_TIMEOUT_S,
    DEFAULT_STALL_TIMEOUT_S,
    KeyRef,
    ModelEntry,
    Provider,
    ProxyChoice,
)
from workbench.core.foundation.redaction import redact, redact_values
from workbench.core.foundation.terminal import json_text, printable, printable_lines
from workbench.core.protocols.base_url import normalize_base_url
from workbench.core.saved.provider_store import (
    ProviderConfigError,
    ProviderSet,
    check_proxy_url,
    export_providers_toml,
    load_providers,
    save_providers,
)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "providers",
        help="list, show, add, remove and export saved providers",
        description="Saved OpenAI-compatible providers (a TOML file in the user config "
        "directory; $WORKBENCH_CONFIG_DIR overrides it). Keys are never stored in it: only "
        "where each key lives (an environment variable, the OS keyring, or typed per session).",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION")

    ls = actions.add_parser("list", help="name, base URL, where the key comes from, models")
    ls.add_argument(
        "--json",
        action="store_true",
        help="print them as JSON: {path, providers: [{name, base_url, key, models, proxy, "
        "warnings}]} (the key as where it comes from, never its value)",
    )
    ls.set_defaults(func=_list)

    show = actions.add_parser("show", help="everything saved about one provider")
    show.add_argument("name")
    show.set_defaults(func=_show)

    rm = actions.add_parser("remove", help="forget a provider (its keyring entry stays)")
    rm.add_argument("name")
    rm.set_defaults(func=_remove)

    _add_add_parser(actions)

    export = actions.add_parser("export", help="the provider set as TOML without secrets")
    export.add_argument("path", nargs="?", help="file to write (default: print)")
    export.set_defaults(func=_export)

    p.set_defaults(func=_list)


def _add_add_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`providers add`: the provider's address, where its key lives, and its own limits."""
    add = actions.add_parser(
        "add",
        help="save a provider (the URL is normalised and the changes printed)",
        description="Save a provider. The key is a reference, never text: --api-key-env VAR "
        "(or $VAR / ${VAR}), or --keyring ACCOUNT for a key already in the OS keyring.",
    )
    add.add_argument("name")
    add.add_argument(
        "--base-url", required=True, metavar="URL", help="the OpenAI-compatible API's base URL"
    )
    key = add.add_mutually_exclusive_group()
    key.add_argument("--api-key-env", metavar="VAR", help="environment variable with the key")
    key.add_argument("--keyring", metavar="ACCOUNT", help="OS keyring account with the key")
    key.add_argument(
        "--session-key",
        action="store_true",
        help="the key is typed into the app each session and never saved",
    )
    add.add_argument("--model", action="append", default=[], metavar="ID", help="repeatable")
    add.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra header; a credential must be a reference: 'X-Api-Key=${VAR}'",
    )
    add.add_argument(
        "--proxy",
        default="system",
        metavar="system|none|URL",
        help="system: the *_PROXY environment (loopback always direct); none: direct; "
        "or a proxy URL for this provider only",
    )
    add.add_argument(
        "--proxy-password-env",
        metavar="VAR",
        help="environment variable with the proxy's password (never put it in the URL)",
    )
    add.add_argument(
        "--insecure",
        action="store_true",
        help="turn TLS certificate verification off for this provider (shown as a warning)",
    )
    add.add_argument(
        "--first-token-timeout", type=float, metavar="S", help="this provider's wait for a token"
    )
    add.add_argument(
        "--stall-timeout", type=float, metavar="S", help="its longest gap between tokens"
    )
    add.add_argument(
        "--total-timeout", type=float, metavar="S", help="its limit for a whole request"
    )
    add.add_argument("--replace", action="store_true", help="overwrite a provider of that name")
    add.set_defaults(func=_add)


def _out(line: str = "") -> None:
    """One line to stdout: redacted, and with no control or bidi character (the file is
    hand-editable, so any text in it may be hostile)."""
    print(printable(redact(line)))


def _warn(message: str) -> None:
    print(f"warning: {printable_lines(redact(message))}", file=sys.stderr)


def _load() -> ProviderSet:
    found = load_providers()
    if found.warning:
        _warn(found.warning)
    return found


def _describe_proxy(provider: Provider) -> str:
    return provider.proxy.describe()


def _list(args: argparse.Namespace) -> int:
    found = _load()
    if getattr(args, "json", False):
        doc = {
            "path": str(found.path),
            "providers": [
                {
                    "name": p.name,
                    "base_url": p.base_url,
                    "key": p.key.describe(),
                    "models": [m.id for m in p.models],
                    "proxy": p.proxy.describe(),
                    "warnings": list(p.warnings()),
                }
                for p in found.providers
            ],
        }
        print(json_text(redact_values(doc)))
        return 0
    if not found.providers:
        _out(f"No saved providers in {found.path}.")
        _out("Add one: workbench providers add NAME --base-url URL --api-key-env VAR")
        return 0
    _out(f"{len(found.providers)} provider(s) in {found.path}")
    for provider in found.providers:
        models = ", ".join(m.id for m in provider.models) or "(none saved)"
        _out(f"  {provider.name}")
        _out(f"    base URL: {provider.base_url}")
        _out(f"    key:      {provider.key.describe()}")
        _out(f"    models:   {models}")
        if provider.proxy.mode != "system":
            _out(f"    proxy:    {_describe_proxy(provider)}")
        for warning in provider.warnings():
            _out(f"    WARNING:  {warning}")
    return 0


def _find(found: ProviderSet, name: str) -> Provider | None:
    provider = found.get(name)
    if provider is None:
        names = ", ".join(found.names()) or "none saved"
        fail(f"no provider named '{name}' in {found.path} (saved: {names})")
    return provider


def _show(args: argparse.Namespace) -> int:
    provider = _find(_load(), args.name)
    if provider is None:
        return 2
    _out(f"{provider.name}")
    _out(f"  base URL:      {provider.base_url}")
    _out(f"  key:           {provider.key.describe()}")
    for header, value in provider.headers.items():
        _out(f"  header:        {header}: {redact(value)}")
    total = (
        f"{provider.total_timeout_s:g} s"
        if provider.total_timeout_s
        else "default (first-token + stall + 1 s per max_tokens)"
    )
    _out(
        f"  timeouts:      first token {provider.first_token_timeout_s:g} s, "
        f"stall {provider.stall_timeout_s:g} s, total {total}"
    )
    _out(f"  proxy:         {_describe_proxy(provider)}")
    _out(f"  TLS verify:    {'on' if provider.verify_tls else 'OFF'}")
    if provider.source:
        _out(f"  imported from: {provider.source}")
    for warning in provider.warnings():
        _out(f"  WARNING: {warning}")
    if not provider.models:
        _out("  models:        (none saved; `workbench models --provider NAME` lists the server's)")
    for m in provider.models:
        facts = [
            x
            for x in (
                m.display_name,
                m.attention,
                f"{m.context_window} ctx" if m.context_window else None,
                f"${m.prices.input:g}/${m.prices.output:g} per M tokens" if m.prices else None,
            )
            if x
        ]
        _out(f"  model:         {m.id}" + (f"  ({', '.join(facts)})" if facts else ""))
    return 0


def _remove(args: argparse.Namespace) -> int:
    found = _load()
    if found.from_backup:
        fail(
            f"{found.path} is broken (see the warning); fix it first, so that removing "
            f"'{args.name}' does not also replace your edits"
        )
        return 2
    if _find(found, args.name) is None:
        return 2
    notices: list[str] = []
    try:
        save_providers([p for p in found.providers if p.name != args.name], found.path, notices)
    except ProviderConfigError as exc:
        fail(str(exc))
        return 2
    for notice in notices:
        _warn(notice)
    _out(f"Removed '{args.name}' from {found.path}")
    return 0


def _key_ref(args: argparse.Namespace) -> KeyRef | None:
    if args.api_key_env:
        var = parse_env_reference(args.api_key_env) or args.api_key_env.strip()
        if not is_env_var_name(var):
            # never echo it: a pasted key is the usual reason
            fail(
                "--api-key-env takes the NAME of an environment variable (like MY_API_KEY), "
                "not the key itself; export MY_API_KEY=<key> and pass --api-key-env MY_API_KEY"
            )
            return None
        return KeyRef("env", var)
    if args.keyring:
        return KeyRef("keyring", args.keyring)
    if args.session_key:
        return KeyRef("session")
    return KeyRef("none")


def _add(args: argparse.Namespace) -> int:
    found = _load()
    if found.from_backup:
        fail(f"{found.path} is broken (see the warning); fix it before adding providers")
        return 2
    if found.get(args.name) is not None and not args.replace:
        fail(f"a provider named '{args.name}' exists; pass --replace to overwrite it")
        return 2
    try:
        normalized = normalize_base_url(args.base_url)
    except ValueError as exc:
        fail(str(exc))
        return 2
    for note in normalized.notes:
        _out(f"base URL: {note} -> {normalized.url}")
    key = _key_ref(args)
    if key is None:
        return 2
    headers: dict[str, str] = {}
    for item in args.header:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            fail(f"--header takes NAME=VALUE, got '{redact(item)}'")
            return 2
        headers[name.strip()] = value.strip()
    proxy = _proxy_choice(args)
    if proxy is None:
        return 2
    provider = Provider(
        name=args.name,
        base_url=normalized.url,
        key=key,
        headers=headers,
        first_token_timeout_s=args.first_token_timeout or DEFAULT_FIRST_TOKEN_TIMEOUT_S,
        stall_timeout_s=args.stall_timeout or DEFAULT_STALL_TIMEOUT_S,
        total_timeout_s=args.total_timeout,
        proxy=proxy,
        verify_tls=not args.insecure,
        models=tuple(ModelEntry(m) for m in dict.fromkeys(args.model)),
    )
    notices: list[str] = []
    try:
        if proxy.mode == "url":
            check_proxy_url(args.name, proxy.url)
        others = [p for p in found.providers if p.name != args.name]
        existing = found.get(args.name)
        if existing is not None:  # keep its place in the file
            index = found.providers.index(existing)
            others.insert(index, replace(provider))
            path = save_providers(others, found.path, notices)
        else:
            path = save_providers([*others, provider], found.path, notices)
    except ProviderConfigError as exc:
        fail(str(exc))
        return 2
    for notice in notices:
        _warn(notice)
    _out(f"Saved '{provider.name}' ({provider.base_url}) to {path}")
    _out(f"  key: {provider.key.describe()}")
    for warning in provider.warnings():
        _out(f"  WARNING: {warning}")
    return 0


def _proxy_choice(args: argparse.Namespace) -> ProxyChoice | None:
    """--proxy and --proxy-password-env as a ProxyChoice; None after saying what is wrong."""
    var = (args.proxy_password_env or "").strip()
    var = parse_env_reference(var) or var
    if args.proxy in ("system", "none"):
        if var:
            fail("--proxy-password-env goes with --proxy URL (a proxy of this provider's own)")
            return None
        return ProxyChoice(args.proxy)
    if var and not is_env_var_name(var):
        fail(
            "--proxy-password-env takes the NAME of an environment variable (like "
            "PROXY_PASSWORD), not the password; export PROXY_PASSWORD=<password> first"
        )
        return None
    return ProxyChoice("url", args.proxy.strip(), var)


def _export(args: argparse.Namespace) -> int:
    found = _load()
    try:
        text = export_providers_toml(found.providers)
    except ProviderConfigError as exc:
        fail(str(exc))
        return 2
    if args.path:
        target = Path(args.path)
        try:
            write_private(target, text)  # 0600: it names hosts, accounts and variables
        except OSError as exc:
            fail(f"cannot write {target}: {exc.strerror or exc}; choose a writable file path")
            return 2
        _out(f"Exported {len(found.providers)} provider(s) to {target} (no keys inside)")
    else:
        sys.stdout.write(text)  # C1 and bidi characters are escaped by the writer
    return 0
