"""Rewriting providers.toml in place, so that the user's comments, order and layout survive.

The file is hand-editable, so a save edits the file's own document (tomlkit) rather than
writing a new one: a provider whose table already loads as the provider being saved is left
exactly as written (its comments, a `key = "${VAR}"` shorthand, its spacing); a changed one has
only its changed values replaced; a removed one goes; a new one is added at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import Table

from workbench.core.access.providers import Provider


def unchanged_names(on_disk: list[Provider], wanted: list[Provider]) -> set[str]:
    """Providers whose table in the file already loads as the one to save, with nothing left
    out on loading (a table that lost a URL password must be rewritten without it)."""
    had = {p.name: p for p in on_disk}
    return {
        p.name
        for p in wanted
        if (old := had.get(p.name)) is not None and not old.load_notes and old == p
    }


# a field the user may spell another way, and the field it stands for
_ALIASES = {"api_key_env": "key"}
# a field provider_to_dict leaves out at this value: written by hand, it stays as written
_DEFAULTS = {"protocol": "chat"}


def update_document(
    text: str,
    tables: Mapping[str, dict[str, Any]],
    keep: set[str],
    before: Mapping[str, dict[str, Any]],
) -> str:
    """`text` with its [providers.NAME] tables made `tables`, leaving those in `keep` alone.

    `before` holds each provider's table as it loads from `text`, in the form `tables` uses:
    a field equal there is left as the user wrote it, even when spelled another way."""
    doc = tomlkit.parse(text)
    providers = doc.get("providers")
    if providers is None:
        providers = tomlkit.table(is_super_table=True)
        doc["providers"] = providers
    elif not isinstance(providers, Table):  # `providers = { ... }` on one line
        raise ValueError("the providers are an inline table: written afresh")
    for name in [n for n in providers if n not in tables]:
        del providers[name]
    for name, table in tables.items():
        if name in keep:
            continue
        current = providers.get(name)
        if isinstance(current, Table):
            _merge_provider(current, table, before.get(name, {}))
        else:
            providers[name] = table
    if list(providers) != list(tables):  # the caller's order (the GUI inserts in place)
        items = {name: providers[name] for name in providers}
        for name in items:
            del providers[name]
        for name in tables:
            providers[name] = items[name]
    if not tables:  # an empty super-table writes nothing; an empty file still says [providers]
        doc["providers"] = tomlkit.table()
    return tomlkit.dumps(doc)


def _merge_provider(table: Table, new: dict[str, Any], before: dict[str, Any]) -> None:
    """Replace only the provider fields whose loaded value changes."""
    for key in [k for k in table if k not in new]:
        if key in _DEFAULTS and _plain(table[key]) == _DEFAULTS[key]:
            continue
        field = _ALIASES.get(key)
        if field is None or before.get(field) != new.get(field):
            del table[key]
    for key, value in new.items():
        if before.get(key) == value:
            continue  # unchanged, perhaps spelled another way or left to its default
        old = table.get(key)
        if isinstance(value, dict) and isinstance(old, Table):
            _merge(old, value)
        else:
            table[key] = value


def _merge(container: Table | Container, new: dict[str, Any]) -> None:
    """Make `container` hold `new`, touching only the values that differ (a value kept keeps
    its comment)."""
    for key in [k for k in container if k not in new]:
        del container[key]
    for key, value in new.items():
        old = container.get(key)
        if isinstance(value, dict) and isinstance(old, Table):
            _merge(old, value)
        elif _plain(old) != value:
            container[key] = value


def _plain(value: object) -> object:
    """A tomlkit item as plain Python values (300 == 300.0, so a whole number stays as typed)."""
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value
