"""`workbench import PATH`: providers from configs already on disk (Cline, CC Switch, Claude
Code, and the benchmark JSON and TOML client configs of setup guides). Shows what it found and
what it will save, then saves (unless --dry-run). Keys are shown redacted and go to the OS
keyring or stay env references."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from workbench.core.access.providers import ModelEntry, Provider
from workbench.core.foundation.redaction import redact, redact_values
from workbench.core.foundation.terminal import escape_quoted, printable, printable_lines
from workbench.core.foundation.token_counts import tokens_label
from workbench.core.importers import (
    KIND_TITLES,
    ConfigImportError,
    FoundKey,
    ImportResult,
    SavePlan,
    apply_save,
    import_path,
    plan_save,
)
from workbench.core.models.catalog import Catalog, load_catalog


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "import",
        help="import providers from Cline, CC Switch, Claude Code, or benchmark JSON and TOML "
        "client configs",
        description="Read providers from a config file or a home folder (~ with .cline, "
        ".cc-switch, .claude), show what was found and what will be saved, then save "
        "them. Keys are never written to a file: they go to the OS keyring or stay "
        "environment-variable references.",
    )
    p.add_argument("path", metavar="PATH", help="a config file, or a home folder")
    p.add_argument("--dry-run", action="store_true", help="show what would be saved; save nothing")
    p.add_argument("--json", action="store_true", help="print what was found as JSON")
    p.set_defaults(func=run)


def _err(message: str) -> None:
    print(f"error: {printable_lines(redact(message))}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from workbench.core.access.keys import keyring_status
    from workbench.core.saved.provider_store import load_providers

    try:
        result = import_path(Path(args.path))
    except ConfigImportError as exc:
        _err(str(exc))
        return 2
    existing = load_providers()
    keyring_ok, keyring_why = keyring_status()
    plan = plan_save(result, existing.providers, keyring_ok)
    catalog = load_catalog()
    saved_to: Path | None = None
    save_error: str | None = None
    notices: list[str] = []
    if not args.dry_run and plan.changes:
        try:
            saved_to = apply_save(plan, existing.path, notices)
        except Exception as exc:  # keyring refused, file not writable: say so, no traceback
            save_error = f"nothing saved to the providers file: {exc}"
    for notice in notices:  # a broken providers file kept aside before it was replaced
        print(f"warning: {printable_lines(redact(notice))}", file=sys.stderr)
    if args.json:
        doc = _as_json(result, plan, catalog, args.dry_run, saved_to, save_error, keyring_why)
        doc["existing_warning"] = existing.warning
        # JSON escapes C0 controls itself; escape_quoted does DEL, C1 and bidi characters
        print(escape_quoted(json.dumps(redact_values(doc), indent=2, ensure_ascii=False)))
    else:
        if existing.warning:
            print(f"warning: {printable_lines(redact(existing.warning))}", file=sys.stderr)
        _print_text(result, plan, catalog, keyring_why)
        target = existing.path
        if args.dry_run:
            print(f"\nDry run: nothing saved (providers file: {target}).")
        elif save_error is None and saved_to is not None:
            print(f"\nSaved {len(plan.providers)} provider(s) to {saved_to}.")
        elif save_error is None:
            print(f"\nNothing to save: {target} already has these providers.")
    if save_error is not None:
        _err(save_error)
        return 1
    return 0


# ---- text ----


def _print(line: str = "") -> None:
    """A line built from what the imported file says: redacted, no control characters."""
    print(printable(redact(line).rstrip()))


def _print_text(result: ImportResult, plan: SavePlan, catalog: Catalog, keyring: str) -> None:
    title = KIND_TITLES.get(result.kind, result.kind)
    _print(f"Found: {title} at {result.source}")
    if len(result.parts) > 1 or result.kind == "home":
        for kind, file in result.parts:
            _print(f"  read {file} ({KIND_TITLES.get(kind, kind)})")
    for planned in plan.providers:
        provider = next(p for p in result.providers if p.name == planned.imported_as)
        found = result.keys.get(provider.name, FoundKey.missing())
        _print()
        _print(f"Provider {planned.name}  [{planned.action}] {_note(planned.note)}")
        _print(f"  base URL   {provider.base_url}")
        for note in result.url_notes.get(provider.name, ()):
            _print(f"             note: {note}")
        if provider.models:
            for i, model in enumerate(provider.models):
                _print(f"  {'models' if i == 0 else '':<10} {_model_line(model, catalog)}")
        else:
            _print("  models     (none in the file)")
        if provider.headers:
            _print(f"  headers    {', '.join(provider.headers)}")
        if provider.total_timeout_s is not None:
            _print(
                f"  timeouts   first token {provider.first_token_timeout_s:g} s, stall "
                f"{provider.stall_timeout_s:g} s, total {provider.total_timeout_s:g} s"
            )
        _print(f"  key        from {found.describe()}")
        key_plan = plan.key_for(planned.name)
        if key_plan is not None:
            _print(f"             → {key_plan.message}")
    if any(k.action in ("keyring", "unsaved") for k in plan.keys):
        _print()
        _print(f"Keyring: {keyring}")
    if result.warnings:
        _print()
        _print("Warnings:")
        for warning in result.warnings:
            _print(f"  - {warning}")


def _note(note: str) -> str:
    return "" if note in ("", "new") else note


def _model_line(model: ModelEntry, catalog: Catalog) -> str:
    info = catalog.get(model.id)
    attention = model.attention or (info.attention if info else None) or "?"
    context = model.context_window or (info.context_window if info else None)
    prices = model.prices or (info.prices if info else None)
    parts = [f"{model.id:<22}", f"{attention:<5}"]
    parts.append(f"{tokens_label(context):>6} ctx" if context else f"{'':>10}")
    if prices is not None and (prices.input or prices.output):
        parts.append(f"${prices.input:g}/${prices.output:g} per M tokens")
    if info is None:
        parts.append("(not in the catalog)")
    elif model.attention and model.attention != info.attention:
        parts.append(f"(the catalog says {info.attention})")
    return "  ".join(parts).rstrip()


# ---- JSON ----


def _as_json(
    result: ImportResult,
    plan: SavePlan,
    catalog: Catalog,
    dry_run: bool,
    saved_to: Path | None,
    save_error: str | None,
    keyring: str,
) -> dict[str, Any]:
    providers = []
    for planned in plan.providers:
        provider: Provider = next(p for p in result.providers if p.name == planned.imported_as)
        found = result.keys.get(provider.name, FoundKey.missing())
        key_plan = plan.key_for(planned.name)
        models = []
        for m in provider.models:
            info = catalog.get(m.id)
            prices = m.prices or (info.prices if info else None)
            models.append(
                {
                    "id": m.id,
                    "attention": m.attention or (info.attention if info else None),
                    "context_window": m.context_window or (info.context_window if info else None),
                    "prices": None
                    if prices is None
                    else {"input": prices.input, "output": prices.output},
                    "in_catalog": info is not None,
                }
            )
        providers.append(
            {
                "name": planned.name,
                "imported_as": planned.imported_as,
                "action": planned.action,
                "note": planned.note,
                "base_url": provider.base_url,
                "url_notes": [str(n) for n in result.url_notes.get(provider.name, ())],
                "models": models,
                "headers": sorted(provider.headers),
                "timeouts": {
                    "first_token_s": provider.first_token_timeout_s,
                    "stall_s": provider.stall_timeout_s,
                    "total_s": provider.total_timeout_s,
                },
                "key": {
                    "kind": found.kind,
                    "where": found.where,
                    "shown": found.redacted,
                    "env_var": found.env_var or None,
                    "saved_as": None if key_plan is None else key_plan.action,
                    "plan": None if key_plan is None else key_plan.message,
                },
                "source": provider.source,
            }
        )
    return {
        "kind": result.kind,
        "source": result.source,
        "read": [{"kind": k, "file": f} for k, f in result.parts],
        "providers": providers,
        "warnings": result.warnings,
        "keyring": keyring,
        "dry_run": dry_run,
        "saved_to": None if saved_to is None else str(saved_to),
        "error": save_error,
    }
