"""The "Gateway overhead" preset's choice of panes: one model on two saved providers (the
upstream direct, and a gateway in front of it), found from the providers' own model lists.

Plain logic, no widgets: the main window shows the panes, or the message when no model fits.
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench.core.access.providers import Provider
from workbench.core.models.catalog import Catalog


def _canonical(model_id: str, catalog: Catalog) -> str:
    """One name per model: a gateway's catalog alias (deepseek-chat) meets the upstream's id."""
    info = catalog.get(model_id)
    return info.id if info else model_id


def route_pair(
    providers: Mapping[str, Provider], catalog: Catalog, prefer: str | None = None
) -> tuple[str, str] | None:
    """Two pane keys ("provider|model") for the same model on two providers, in the saved
    order (the first is taken as the direct route); `prefer` (a model id) wins when it fits.
    None when no model is held by two providers."""
    holders: dict[str, list[str]] = {}
    for name, provider in providers.items():
        for entry in provider.models:
            keys = holders.setdefault(_canonical(entry.id, catalog), [])
            if not any(k.startswith(f"{name}|") for k in keys):
                keys.append(f"{name}|{entry.id}")
    shared = {model: keys for model, keys in holders.items() if len(keys) >= 2}
    if not shared:
        return None
    wanted = _canonical(prefer, catalog) if prefer else None
    keys = shared.get(wanted or "") or next(iter(shared.values()))
    return keys[0], keys[1]
