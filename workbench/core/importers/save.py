"""What an import will save, and saving it: providers into our providers file, literal keys
into the OS keyring (never into a file), env references kept as references."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from workbench.core.access.providers import KeyRef, Provider
from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase, together
from workbench.core.importers._base import FoundKey, ImportResult, merge_models, unique_name
from workbench.core.importers._files import CONTEXT

ProviderAction = Literal["new", "update", "unchanged"]
KeyAction = Literal["env", "keyring", "unsaved", "none", "kept"]

NO_KEYRING = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "cannot be saved: no OS keyring here; export it as an environment variable and re-import, "
    "or add the provider with --api-key-env",
)
# A key's plan, marked for the UI's translation files (the importers' context); {fields} are data
STAYS_ENV_SET = QT_TRANSLATE_NOOP("ConfigImport", "stays env reference ${var} (set in this shell)")
STAYS_ENV_NOT_SET = QT_TRANSLATE_NOOP(
    "ConfigImport", "stays env reference ${var} (not set in this shell)"
)
TO_KEYRING = QT_TRANSLATE_NOOP("ConfigImport", "goes to the OS keyring as account '{account}'")
NO_KEYRING_HINT = QT_TRANSLATE_NOOP(
    "ConfigImport",
    " (e.g. export {var}=... then `workbench providers add {name} --base-url URL "
    "--api-key-env {var}`)",
)
KEEPS_KEY_PLACEHOLDER = QT_TRANSLATE_NOOP(
    "ConfigImport", "keeps its saved key ({saved}); the file has only a placeholder"
)
KEEPS_KEY_NO_KEY = QT_TRANSLATE_NOOP(
    "ConfigImport", "keeps its saved key ({saved}); the file has no key"
)
NO_KEY_PLACEHOLDER = QT_TRANSLATE_NOOP(
    "ConfigImport",
    "no key saved: the file holds a placeholder ('{placeholder}'), not a key; export the real "
    "key as an environment variable and re-import, or use `workbench providers add {name} "
    "--api-key-env VAR`",
)
NO_KEY_IN_FILE = QT_TRANSLATE_NOOP("ConfigImport", "no key in the file: saved without a key")


# A planned provider's note, marked for the UI's translation files (the importers' context);
# "new" is the JSON's word for a provider with nothing to say, never shown.
UPDATES_SAME_URL = QT_TRANSLATE_NOOP(
    "ConfigImport", "updates the saved provider '{name}' (same base URL)"
)
UPDATES_SAME_URL_AND_KEY = QT_TRANSLATE_NOOP(
    "ConfigImport", "updates the saved provider '{name}' (same base URL and key)"
)
SAVED_AS = QT_TRANSLATE_NOOP(
    "ConfigImport", "saved as '{name}': '{imported}' already names a provider with another URL"
)
NEW = Phrase("new", context=CONTEXT)


@dataclass(frozen=True)
class PlannedProvider:
    name: str  # the name it is saved under
    imported_as: str  # its name in the ImportResult
    action: ProviderAction
    provider: Provider  # as it will be saved (the key is a reference)
    said: Phrase  # "new", "updates 'x' (same base URL)", "saved as 'x-2': 'x' has another URL"

    @property
    def note(self) -> str:
        """The note in English (the CLI's words, the JSON's `note`)."""
        return str(self.said)


@dataclass(frozen=True)
class PlannedKey:
    provider: str  # the saved name
    action: KeyAction
    said: Phrase  # "stays env reference $X", "goes to the OS keyring as account Y", …
    account: str = ""

    @property
    def message(self) -> str:
        """The plan in English (the CLI's words, the JSON's `plan`)."""
        return str(self.said)


@dataclass
class SavePlan:
    providers: list[PlannedProvider]
    keys: list[PlannedKey]
    all_providers: list[Provider]  # the whole set to write: existing ones merged with these
    keyring_available: bool
    _to_keyring: dict[str, FoundKey] = field(default_factory=dict, repr=False)

    @property
    def changes(self) -> bool:
        return bool(self._to_keyring) or any(p.action != "unchanged" for p in self.providers)

    def key_for(self, name: str) -> PlannedKey | None:
        return next((k for k in self.keys if k.provider == name), None)


def _env_hint(name: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_") + "_API_KEY"


def plan_save(result: ImportResult, existing: list[Provider], keyring_available: bool) -> SavePlan:
    """What saving `result` on top of `existing` does. Pure: nothing is written.

    A provider whose name is taken updates that provider when the base URL is the same, and
    gets a suffix (-2, -3…) when it is not; a provider with the same base URL and env key as
    a saved one under another name updates that one.
    """
    final = list(existing)
    planned: list[PlannedProvider] = []
    keys: list[PlannedKey] = []
    to_keyring: dict[str, FoundKey] = {}
    for imported in result.providers:
        found = result.keys.get(imported.name, FoundKey.missing())
        index, note = _match(imported, found, final)
        old = final[index] if index is not None else None
        name = old.name if old is not None else unique_name(imported.name, (p.name for p in final))
        if old is None and name != imported.name:
            note = phrase(SAVED_AS, context=CONTEXT, name=name, imported=imported.name)
        key_ref, key_plan = _key_plan(name, found, old, keyring_available)
        if key_plan.action == "keyring":
            to_keyring[key_plan.account] = found
        keys.append(key_plan)
        provider = replace(imported, name=name, key=key_ref)
        if old is not None:
            provider = replace(
                provider,
                headers={**old.headers, **imported.headers},
                proxy=old.proxy,
                verify_tls=old.verify_tls,
                models=merge_models(imported.models, old.models),
            )
            action: ProviderAction = (
                "unchanged" if provider == old and key_plan.action != "keyring" else "update"
            )
            final[index] = provider  # type: ignore[index]
        else:
            action = "new"
            final.append(provider)
        planned.append(PlannedProvider(name, imported.name, action, provider, note))
    return SavePlan(planned, keys, final, keyring_available, to_keyring)


def _match(imported: Provider, found: FoundKey, saved: list[Provider]) -> tuple[int | None, Phrase]:
    for i, p in enumerate(saved):
        if p.name == imported.name:
            if p.base_url == imported.base_url:
                return i, phrase(UPDATES_SAME_URL, context=CONTEXT, name=p.name)
            return None, NEW  # saved under another name: SAVED_AS says so
    if found.kind == "env":
        for i, p in enumerate(saved):
            if p.base_url == imported.base_url and p.key == found.ref:
                return i, phrase(UPDATES_SAME_URL_AND_KEY, context=CONTEXT, name=p.name)
    return None, NEW


def _key_plan(
    name: str, found: FoundKey, old: Provider | None, keyring_available: bool
) -> tuple[KeyRef, PlannedKey]:
    if found.kind == "env":
        is_set = os.environ.get(found.env_var, "").strip()
        stays = phrase(
            STAYS_ENV_SET if is_set else STAYS_ENV_NOT_SET, context=CONTEXT, var=found.env_var
        )
        return found.ref, PlannedKey(name, "env", stays)
    if found.kind == "literal":
        if keyring_available:
            account = old.key.name if old is not None and old.key.source == "keyring" else name
            account = account or name
            to_keyring = phrase(TO_KEYRING, context=CONTEXT, account=account)
            return KeyRef("keyring", account), PlannedKey(name, "keyring", to_keyring, account)
        hint = phrase(NO_KEYRING_HINT, context=CONTEXT, var=_env_hint(name), name=name)
        kept = old.key if old is not None else KeyRef("none")
        unsaved = together([phrase(NO_KEYRING, context=CONTEXT), hint], "")
        return kept, PlannedKey(name, "unsaved", unsaved)
    if old is not None and old.key.source != "none":
        keeps = KEEPS_KEY_PLACEHOLDER if found.kind == "placeholder" else KEEPS_KEY_NO_KEY
        return old.key, PlannedKey(
            name, "kept", phrase(keeps, context=CONTEXT, saved=old.key.describe())
        )
    if found.kind == "placeholder":
        no_key = phrase(
            NO_KEY_PLACEHOLDER, context=CONTEXT, placeholder=found.placeholder, name=name
        )
        return KeyRef("none"), PlannedKey(name, "none", no_key)
    return KeyRef("none"), PlannedKey(name, "none", phrase(NO_KEY_IN_FILE, context=CONTEXT))


def apply_save(plan: SavePlan, path: Path | None = None, notices: list[str] | None = None) -> Path:
    """Store literal keys in the OS keyring, then write the providers file; returns its path.

    Raises KeyringUnavailable before anything is written to the providers file when a key
    cannot be stored, so a provider never points at a keyring entry that does not exist.
    `notices` gets what the save had to keep aside (a broken providers file's copy).
    """
    from workbench.core.access.keys import store_in_keyring
    from workbench.core.saved.provider_store import save_providers

    for account, found in plan._to_keyring.items():
        secret = found.secret()
        if secret:
            store_in_keyring(account, secret)
    return save_providers(plan.all_providers, path, notices)
