"""Saved providers: one hand-editable TOML file in the user config directory.

Layout (`providers.toml`)::

    [providers.deepseek]
    base_url = "https://api.deepseek.com/v1"
    first_token_timeout_s = 300.0
    stall_timeout_s = 60.0
    verify_tls = true
    headers = { "X-Title" = "bench", "X-Api-Key" = "${OTHER_KEY}" }   # ${VAR} expands from env

    [providers.deepseek.key]        # or, by hand: key = "${DEEPSEEK_API_KEY}"
    source = "env"                  # env | keyring | session | none
    name = "DEEPSEEK_API_KEY"       # the variable (env) or the keyring account

    [providers.deepseek.proxy]      # or, by hand: proxy = "none" | "system" | "http://p:3128"
    mode = "system"                 # system | none | url (with url = "...")
    # url = "http://me@proxy:3128"  # mode url: no password in it; the password, when the
    # password_env = "PROXY_PW"     # proxy wants one, comes from this environment variable

    [[providers.deepseek.models]]   # or, by hand: models = ["deepseek-chat", ...]
    id = "deepseek-chat"
    attention = "MLA"               # optional overrides of the catalog
    context_window = 65536
    prices = { input = 0.27, output = 1.1 }

A key's text is never written: a KeyRef says where it lives. A `session` key (typed into the app)
is saved as `source = "session"` with no text, so the app asks for it again next session. Header
values that carry a literal credential are refused; write `${VAR}` instead.

A password never sits in a URL here: a proxy's comes from an environment variable
(`proxy.password_env`), and a base URL with credentials is refused where it is entered. A file
written by hand or by an older version that has one still loads: the credentials are left out
(and out of every later save), and a warning on the provider says how to fix it.

A load that kept everything (the file parsed, every provider is valid, no URL credentials were
left out, and no provider of the last good copy is missing) refreshes
`providers.toml.last-good`. A broken file does not stop the app: `load_providers` returns the
last good copy with a warning naming file, line and problem; a file that lost providers (cut
short at a section boundary, it still parses) loads with a warning naming them, and the last
good copy keeps them. Saving over a file that cannot be loaded first keeps it as
`providers.toml.broken-<time>`. Every file is 0600 in a 0700 folder (`provider_files`).

A save edits the file as the user wrote it (`provider_layout`): comments, order and the
spelling of unchanged values survive; only what changed is rewritten, and when the edited text
would not load back as exactly the providers saved, the file is written afresh instead.
"""

from __future__ import annotations

import difflib
import logging
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from workbench.core.access.provider_files import APP_NAME as APP_NAME
from workbench.core.access.provider_files import BROKEN_SUFFIX as BROKEN_SUFFIX
from workbench.core.access.provider_files import CONFIG_DIR_ENV as CONFIG_DIR_ENV
from workbench.core.access.provider_files import LAST_GOOD_SUFFIX as LAST_GOOD_SUFFIX
from workbench.core.access.provider_files import PROVIDERS_FILENAME as PROVIDERS_FILENAME
from workbench.core.access.provider_files import default_config_dir as default_config_dir
from workbench.core.access.provider_files import default_providers_path as default_providers_path
from workbench.core.access.provider_files import (
    keep_broken_copy,
    write_last_good,
    write_private,
)
from workbench.core.access.provider_files import last_good_path as last_good_path
from workbench.core.access.provider_layout import unchanged_names, update_document
from workbench.core.access.providers import Provider
from workbench.core.foundation.terminal import escape_quoted
from workbench.core.foundation.validation import toml_line_of
from workbench.core.saved.provider_schema import ProviderConfigError as ProviderConfigError
from workbench.core.saved.provider_schema import check_headers as check_headers
from workbench.core.saved.provider_schema import check_proxy_url as check_proxy_url
from workbench.core.saved.provider_schema import provider_from_dict as provider_from_dict
from workbench.core.saved.provider_schema import provider_to_dict as provider_to_dict
from workbench.core.system.bounded_read import NotARegularFile, TooLarge, read_bounded
from workbench.core.system.private_files import private_dir

log = logging.getLogger(__name__)

MAX_PROVIDERS_BYTES = 16 * 1024 * 1024  # a providers file is a few KB; refuse rather than chew

_HEADER = """\
# Attention Workbench providers. Hand-editable; keys are never stored here, only where each
# key lives: key.source = "env" (name = the variable), "keyring" (name = the account),
# "session" (typed in each session) or "none". Header values may use ${VAR}.
# proxy.mode = "system" (the *_PROXY environment; loopback always direct), "none", or "url".
# No password ever goes in a URL: a proxy's comes from proxy.password_env (a variable name).
"""

_EXPORT_HEADER = """\
# Attention Workbench provider set, exported without secrets: each key is a reference
# (environment variable, keyring account, or typed in per session). Import it with the app or
# copy the tables into providers.toml.
"""


@dataclass
class ProviderSet:
    """What `load_providers` found. `warning` is set when the file was broken or unreadable,
    lost providers that its last good copy has (`lost`), or had credentials left out."""

    providers: list[Provider] = field(default_factory=list)
    path: Path | None = None
    warning: str | None = None
    from_backup: bool = False
    lost: tuple[str, ...] = ()

    def get(self, name: str) -> Provider | None:
        return next((p for p in self.providers if p.name == name), None)

    def names(self) -> list[str]:
        return [p.name for p in self.providers]


# ---- loading ----


def load_providers(path: Path | None = None) -> ProviderSet:
    """Read the providers file; never raises for a broken file (see `ProviderSet.warning`).

    The last-good copy is refreshed only by a load that kept everything (module docstring).
    """
    path = path or default_providers_path()
    if not path.exists() and not path.is_symlink():
        return ProviderSet([], path)
    text: str | None = None
    try:
        text = _read(path)
        providers = parse_providers_toml(text, path)
    except (ProviderConfigError, OSError, UnicodeDecodeError) as exc:
        problem = str(exc) if isinstance(exc, ProviderConfigError) else f"{path}: {exc}"
        return _fall_back(path, problem, text)
    warnings = [note for p in providers for note in p.load_notes]
    lost = _lost_names(path, providers)
    if lost:
        backup = last_good_path(path)
        warnings.append(
            f"{path} has {len(providers)} provider(s), but its last good copy {backup} also "
            f"has {_names(lost)}, missing from the file now (cut short, or removed by hand?). "
            f"The last good copy is kept as it is: copy their [providers.NAME] tables back "
            f"from it, or, if you removed them on purpose, delete {backup}"
        )
    if not warnings:
        write_last_good(path, text)
    return ProviderSet(providers, path, ". ".join(warnings) or None, lost=tuple(lost))


def _read(path: Path) -> str:
    """The file's text; OSError for anything but a regular file of sane size (a FIFO would
    block the read forever)."""
    try:
        data = read_bounded(path, MAX_PROVIDERS_BYTES, "a providers file")
    except NotARegularFile as error:
        raise OSError(f"{path} is not a regular file ({error})") from None
    except TooLarge:
        raise OSError(f"{path} is far too large for a providers file") from None
    return data.decode("utf-8")


def _names(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _fall_back(path: Path, problem: str, text: str | None) -> ProviderSet:
    """The last good copy, with a warning naming the problem, the copy and what it lacks."""
    backup = last_good_path(path)
    try:
        good = parse_providers_toml(_read(backup), backup)
    except (ProviderConfigError, OSError, UnicodeDecodeError):
        return ProviderSet(
            [], path, f"{problem}. No good copy to fall back on: no providers loaded.", False
        )
    have = {p.name for p in good}
    missing = [n for n in _section_names(text) if n not in have]
    lacking = f" Not in that copy, so not loaded: {_names(missing)}." if missing else ""
    return ProviderSet(
        good,
        path,
        f"{problem}. Loaded the last good copy ({backup}, {len(good)} provider(s)); fix the "
        f"file (saving from the app replaces it, keeping it as "
        f"{path.name}{BROKEN_SUFFIX}-<time>).{lacking}",
        True,
    )


def _section_names(text: str | None) -> list[str]:
    """The [providers.NAME] names in `text`, when it is TOML at all."""
    try:
        table = tomllib.loads(text or "").get("providers")
    except (tomllib.TOMLDecodeError, RecursionError):
        return []
    return [str(n) for n in table] if isinstance(table, dict) else []


def _lost_names(path: Path, providers: list[Provider]) -> list[str]:
    """Providers of the last good copy that the file no longer has."""
    try:
        good = parse_providers_toml(_read(last_good_path(path)), last_good_path(path))
    except (ProviderConfigError, OSError, UnicodeDecodeError):
        return []
    have = {p.name for p in providers}
    return [p.name for p in good if p.name not in have]


def get_provider(name: str, path: Path | None = None) -> Provider:
    """The saved provider called `name`; ProviderConfigError with close names when none is."""
    found = load_providers(path)
    provider = found.get(name)
    if provider is None:
        lowered = {p.name.lower(): p for p in found.providers}
        provider = lowered.get(name.lower())
    if provider is not None:
        return provider
    names = found.names()
    close = difflib.get_close_matches(name, names, n=3)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    saved = f"saved: {', '.join(names)}" if names else "none are saved yet"
    extra = f" ({found.warning})" if found.warning else ""
    raise ProviderConfigError(
        f"no provider named '{name}' in {found.path} ({saved}).{hint} "
        f"Add one with `workbench providers add NAME --base-url URL`.{extra}",
        path=found.path,
        provider=name,
    )


def parse_providers_toml(text: str, path: Path | None = None) -> list[Provider]:
    """Providers from TOML text; ProviderConfigError naming file, line, provider and field."""
    where = str(path) if path else "<providers>"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = _decode_error_line(exc)
        raise ProviderConfigError(
            f"{where}: line {line}: not valid TOML ({exc})" if line else f"{where}: {exc}",
            path=path,
            line=line,
        ) from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise ProviderConfigError(
            f"{where}: not a providers file: arrays or tables nested too deeply to read; "
            f"restore it from {last_good_path(path).name if path else 'a copy'} or remove "
            f"the nested value",
            path=path,
        ) from None
    providers_table = data.get("providers", {})
    if not isinstance(providers_table, dict):
        raise ProviderConfigError(
            f"{where}: 'providers' must be a table of [providers.NAME] sections", path=path
        )
    out: list[Provider] = []
    for name, table in providers_table.items():
        try:
            out.append(provider_from_dict(name, table))
        except ProviderConfigError as exc:
            line = toml_line_of(text, "providers", name, exc.field)
            at = f"line {line}: " if line else ""
            raise ProviderConfigError(
                f"{where}: {at}{exc}", path=path, line=line, provider=name, field=exc.field
            ) from None
    return out


def _decode_error_line(exc: tomllib.TOMLDecodeError) -> int | None:
    lineno = getattr(exc, "lineno", None)  # Python 3.14 adds it; the message has it before
    if isinstance(lineno, int):
        return lineno
    match = re.search(r"line (\d+)", str(exc))
    return int(match.group(1)) if match else None


# ---- saving ----


def _check_names(providers: list[Provider] | tuple[Provider, ...]) -> None:
    names = [p.name for p in providers]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ProviderConfigError(f"two providers are named '{dupes[0]}'; names must be unique")
    for name in names:
        if not name.strip():
            raise ProviderConfigError("a provider needs a name")


def dumps_providers(providers: list[Provider] | tuple[Provider, ...], header: str = _HEADER) -> str:
    _check_names(providers)
    body = tomlkit.dumps({"providers": {p.name: provider_to_dict(p) for p in providers}})
    text = header + "\n" + escape_quoted(body)  # no raw C1 or bidi character in the file
    parse_providers_toml(text)  # what we write must load back
    return text


def export_providers_toml(providers: list[Provider] | tuple[Provider, ...]) -> str:
    """A provider set as TOML without secrets (keys stay references), for sharing."""
    return dumps_providers(providers, _EXPORT_HEADER)


def save_providers(
    providers: list[Provider] | tuple[Provider, ...],
    path: Path | None = None,
    notices: list[str] | None = None,
) -> Path:
    """Write the providers atomically (0600, in a 0700 folder) and refresh the last-good copy.

    A current file that cannot be loaded is first kept as `providers.toml.broken-<time>`; what
    was kept is logged and added to `notices`. When that copy cannot be made, nothing is
    written and ProviderConfigError says why. The last-good copy is not refreshed while it
    holds providers that the current file lost and this save does not have either.
    """
    path = path or default_providers_path()
    _check_names(providers)
    private_dir(path.parent, own=path.parent == default_config_dir())
    current = _current(path)
    on_disk = None if current is None else [p.name for p in current[1]]
    text = None
    if current is not None and path.is_file():  # a file of comments alone keeps them too
        text = _keep_layout(*current, list(providers))
    text = text or dumps_providers(providers)  # a new file, or one that cannot be kept
    if on_disk is None:
        try:
            copy = keep_broken_copy(path)
        except OSError as exc:
            raise ProviderConfigError(
                f"{path} cannot be loaded, and it could not be copied aside ({exc}); nothing "
                f"was saved, so that it is not lost: move it away or fix it, then save again",
                path=path,
            ) from None
        message = f"{path} could not be loaded; kept it as {copy} before writing the new file"
        log.warning("%s", message)
        if notices is not None:
            notices.append(message)
    write_private(path, text)
    if not _drops_lost_providers(path, on_disk, providers):
        write_last_good(path, text)
    return path


def _keep_layout(current: str, on_disk: list[Provider], providers: list[Provider]) -> str | None:
    """The file's text `current` edited in place to hold `providers` (its comments and order
    kept); None when that cannot be done or would not load back as exactly `providers`."""
    try:
        before = {p.name: provider_to_dict(p) for p in on_disk if not p.load_notes}
        keep = unchanged_names(on_disk, providers)
        tables = {p.name: provider_to_dict(p) for p in providers}
        text = escape_quoted(update_document(current, tables, keep, before))
        loaded = {p.name: p for p in parse_providers_toml(text)}
    except (TOMLKitError, ValueError, KeyError, TypeError, RecursionError) as exc:
        log.debug("providers file rewritten from scratch: %s", exc)
        return None
    if loaded != {p.name: p for p in providers} or any(p.load_notes for p in loaded.values()):
        log.debug("providers file rewritten from scratch: an in-place edit would not load back")
        return None
    return text


def _current(path: Path) -> tuple[str, list[Provider]] | None:
    """The current file's text and providers; ("", []) when there is none, None when broken."""
    if not path.exists() and not path.is_symlink():
        return "", []
    try:
        text = _read(path)
        return text, parse_providers_toml(text, path)
    except (ProviderConfigError, OSError, UnicodeDecodeError):
        return None


def _drops_lost_providers(
    path: Path, on_disk: list[str] | None, providers: list[Provider] | tuple[Provider, ...]
) -> bool:
    """Whether refreshing the last-good copy would forget providers that only it still has."""
    if on_disk is None:
        return False  # the broken file was kept aside, and the set came from the last good copy
    backup = last_good_path(path)
    try:
        good = parse_providers_toml(_read(backup), backup)
    except (ProviderConfigError, OSError, UnicodeDecodeError):
        return False
    keep = set(on_disk) | {p.name for p in providers}
    return any(p.name not in keep for p in good)
