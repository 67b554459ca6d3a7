"""Which importer a file or a home folder needs, and importing it (several stores merged).

Telling the kind of a file is walked by hand, not through a shape: it asks which keys a file
has before anything is known of its shape, and it must never fail on a value a shape would
refuse (the reader chosen then checks the file through its shape, `_shapes.read_shape`, and
names the bad field).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from workbench.core.access.providers import Provider
from workbench.core.foundation.i18n import (
    QT_TRANSLATE_NOOP,
    Phrase,
    PhrasedText,
    phrase,
    phrased,
    together,
)
from workbench.core.foundation.redaction import redact
from workbench.core.importers._base import (
    ConfigImportError,
    FoundKey,
    ImportResult,
    NothingToImport,
    Source,
    merge_models,
    parse_json_text,
    parse_toml_text,
    read_text,
    unique_name,
    warn,
)
from workbench.core.importers._files import CONTEXT
from workbench.core.importers.benchmark import read_benchmark_config
from workbench.core.importers.ccswitch import (
    read_ccswitch_db,
    read_ccswitch_legacy,
    read_codex_toml,
)
from workbench.core.importers.ccswitch_toml import read_ccswitch_toml
from workbench.core.importers.claude import read_claude_settings
from workbench.core.importers.cline import read_cline_legacy, read_cline_providers
from workbench.core.importers.toml_client import read_toml_client
from workbench.core.importers.vscode import read_vscode_settings
from workbench.core.system.bounded_read import NotARegularFile, open_regular

log = logging.getLogger(__name__)

HOME = "home"
SKIPPED = QT_TRANSLATE_NOOP("ConfigImport", "skipped {file}: {why}")
MERGED = QT_TRANSLATE_NOOP(
    "ConfigImport", "{name} ({file}) has the same base URL and key as {into}: merged into it"
)

READERS: dict[str, Callable[[Path], ImportResult]] = {
    "benchmark_json": read_benchmark_config,
    "toml_client": read_toml_client,
    "vscode_cline_settings": read_vscode_settings,
    "ccswitch_toml": read_ccswitch_toml,
    "claude_settings": read_claude_settings,
    "cline_providers": read_cline_providers,
    "cline_legacy": read_cline_legacy,
    "ccswitch_db": read_ccswitch_db,
    "ccswitch_legacy": read_ccswitch_legacy,
    "codex_toml": read_codex_toml,
}

KIND_TITLES = {
    "benchmark_json": "benchmark config (JSON, api_key_env)",
    "toml_client": "TOML client config ([provider] + [models.*])",
    "vscode_cline_settings": "VS Code settings.json with cline.openAi* settings",
    "ccswitch_toml": "provider switcher TOML ([provider.NAME])",
    "claude_settings": "Claude Code settings.json",
    "cline_providers": "Cline provider store (providers.json + models.json)",
    "cline_legacy": "Cline legacy store (globalState.json + secrets.json)",
    "ccswitch_db": "CC Switch database (cc-switch.db, read-only)",
    "ccswitch_legacy": "CC Switch legacy config.json",
    "codex_toml": "Codex config.toml",
    HOME: "home folder",
}

# What a home folder may hold, in the order they are read.
HOME_STORES: tuple[tuple[str, str], ...] = (
    (".cline/data/settings/providers.json", "cline_providers"),
    (".cline/data/globalState.json", "cline_legacy"),
    (".cc-switch/cc-switch.db", "ccswitch_db"),
    (".cc-switch/config.json", "ccswitch_legacy"),
    (".claude/settings.json", "claude_settings"),
)

_SQLITE_MAGIC = b"SQLite format 3\x00"


def find_sources(folder: Path) -> list[tuple[str, Path]]:
    """The known stores under a home folder (or under the tool's own dot-folder)."""
    found: list[tuple[str, Path]] = []
    for rel, kind in HOME_STORES:
        first, _, rest = rel.partition("/")
        for candidate in (folder / rel, folder / rest if folder.name == first else None):
            if candidate is not None and candidate.is_file():
                found.append((kind, candidate))
                break
    return found


def detect(path: Path | str) -> str:
    """The kind of config at `path`: a file (by name and content) or a home folder ("home").

    Raises ConfigImportError when the file is broken or of no known kind.
    """
    p = Path(path).expanduser()
    if p.is_dir():
        if find_sources(p):
            return HOME
        looked = ", ".join(rel for rel, _ in HOME_STORES)
        unknown = QT_TRANSLATE_NOOP(
            "ConfigImport", "{path}: no known config in this folder (looked for {looked})"
        )
        raise ConfigImportError(phrase(unknown, context=CONTEXT, path=p, looked=looked))
    if not p.exists():
        missing = QT_TRANSLATE_NOOP("ConfigImport", "{path}: no such file or folder")
        raise ConfigImportError(phrase(missing, context=CONTEXT, path=p))
    name = p.name.lower()
    try:
        with open_regular(p) as f:  # a FIFO or a device is refused before it can block
            head = f.read(16)
    except NotARegularFile as exc:
        special = QT_TRANSLATE_NOOP(
            "ConfigImport", "{why}; give the path of the config file itself"
        )
        raise ConfigImportError(phrase(special, context=CONTEXT, why=exc)) from None
    except OSError as exc:
        unread = QT_TRANSLATE_NOOP("ConfigImport", "{name}: cannot read it ({why})")
        why = exc.strerror or exc
        raise ConfigImportError(phrase(unread, context=CONTEXT, name=p.name, why=why)) from None
    if head.startswith(_SQLITE_MAGIC) or name.endswith((".db", ".sqlite", ".sqlite3")):
        return "ccswitch_db"
    if name in ("providers.json", "models.json"):
        return "cline_providers"
    if name in ("globalstate.json", "secrets.json"):
        return "cline_legacy"
    src = read_text(p)
    if name.endswith(".toml"):
        return _sniff_toml(src, parse_toml_text(src, src.text))
    if name.endswith((".json", ".jsonc")):
        return _sniff_json(src, parse_json_text(src, src.text))
    try:
        data = parse_json_text(src, src.text)
    except ConfigImportError:
        try:
            data = parse_toml_text(src, src.text)
        except ConfigImportError:
            raise src.error("neither JSON nor TOML") from None
        return _sniff_toml(src, data)
    return _sniff_json(src, data)


def _sniff_toml(src: Source, data: dict[str, Any]) -> str:
    provider = data.get("provider")
    if isinstance(provider, dict):
        if "base_url" in provider or not provider:
            return "toml_client"
        if all(isinstance(v, dict) for v in provider.values()):
            return "ccswitch_toml"
        return "toml_client"
    if isinstance(data.get("model_providers"), dict):
        return "codex_toml"
    raise src.error(
        "not a TOML config the workbench knows (looked for [provider], [provider.NAME] or "
        "[model_providers.NAME])"
    )


def _sniff_json(src: Source, data: dict[str, Any]) -> str:
    keys = set(data)
    parent = src.path.parent.name
    if any(
        isinstance(data.get(app), dict) and "providers" in data[app]
        for app in ("claude", "codex", "gemini")
    ):
        return "ccswitch_legacy"
    if parent == ".cc-switch" and src.path.name == "config.json":
        return "ccswitch_legacy"
    if any(isinstance(k, str) and k.startswith("cline.") for k in keys):
        return "vscode_cline_settings"
    if isinstance(data.get("providers"), dict) and "openai-compatible" in data["providers"]:
        return "cline_providers"
    if keys & {"actModeApiProvider", "planModeApiProvider", "openAiBaseUrl"}:
        return "cline_legacy"
    env = data.get("env")
    if "api_base" in keys or (
        isinstance(env, dict) and any(str(k).startswith("ANTHROPIC_") for k in env)
    ):
        return "claude_settings"
    if parent == ".claude":
        return "claude_settings"
    if "api_key_env" in keys or "base_url" in keys:
        return "benchmark_json"
    raise src.error(
        "not a config the workbench knows (looked for base_url, cline.openAiBaseUrl, "
        "env.ANTHROPIC_BASE_URL, api_base, providers.openai-compatible, openAiBaseUrl, "
        "claude/codex providers)"
    )


def import_path(path: Path | str) -> ImportResult:
    """Read every provider at `path` (a file, or a home folder with several stores), merged:
    providers with the same base URL and key become one, and names are unique.

    Raises ConfigImportError (nothing is half-imported: any broken store fails the import).
    """
    p = Path(path).expanduser()
    kind = detect(p)
    skipped: list[PhrasedText] = []
    if kind == HOME:
        results = []
        for store_kind, file in find_sources(p):
            try:
                results.append(READERS[store_kind](file))
            except NothingToImport as exc:
                skipped.append(phrased(phrase(SKIPPED, context=CONTEXT, file=file, why=exc.phrase)))
        if not results:
            nothing = QT_TRANSLATE_NOOP("ConfigImport", "{path}: nothing to import ({skipped})")
            why = together([s.phrase for s in skipped])
            said = phrase(nothing, context=CONTEXT, path=p, skipped=why)
            raise ConfigImportError(said)
    else:
        results = [READERS[kind](p)]
    merged = merge(results, source=str(p), kind=kind)
    merged.warnings[:0] = skipped
    log.info(redact(f"read {len(merged.providers)} provider(s) from {p} ({kind})"))
    return merged


def merge(results: list[ImportResult], *, source: str, kind: str) -> ImportResult:
    """One result from several: de-duplicated by (base URL, protocol, key), names made unique
    (the same URL and key through two protocols are two ways to measure)."""
    providers: list[Provider] = []
    keys: dict[str, FoundKey] = {}
    notes: dict[str, tuple[Phrase, ...]] = {}
    warnings: list[str] = []
    parts: list[tuple[str, str]] = []
    seen: dict[tuple[str, str, tuple[str, str]], int] = {}
    for result in results:
        warnings.extend(result.warnings)
        parts.extend(result.parts)
        for provider in result.providers:
            key = result.keys.get(provider.name, FoundKey.missing())
            ident = (provider.base_url, provider.protocol, key.identity())
            if ident in seen:
                index = seen[ident]
                have = providers[index]
                providers[index] = replace(
                    have,
                    models=merge_models(have.models, provider.models),
                    headers={**provider.headers, **have.headers},
                )
                file = Path(provider.source.split(" (")[0]).name
                warnings.append(warn(MERGED, name=provider.name, file=file, into=have.name))
                continue
            name = unique_name(provider.name, (p.name for p in providers))
            seen[ident] = len(providers)
            providers.append(replace(provider, name=name))
            keys[name] = key
            if provider.name in result.url_notes:
                notes[name] = result.url_notes[provider.name]
    return ImportResult(
        providers=providers,
        keys=keys,
        warnings=list(dict.fromkeys(warnings)),
        source=source,
        kind=kind,
        url_notes=notes,
        parts=parts,
    )
