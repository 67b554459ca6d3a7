"""Which `Target` a pane key names ('provider|model', or with '|protocol' after it): on the
built-in provider with the catalog's facts, or on a saved provider with its own (run/plan.py)."""

from __future__ import annotations

from collections.abc import Mapping

from workbench.core.access.providers import Provider
from workbench.core.foundation.results import Target
from workbench.core.models.catalog import Catalog
from workbench.core.run.plan import LOCAL_PROVIDER, local_target, saved_target
from workbench.ui.panes_model import split_pane_key


def target_for(
    key: str, catalog: Catalog, providers: Mapping[str, Provider], local_base_url: str | None
) -> Target | None:
    """The pane key's Target; None when its saved provider is unknown. A protocol left out is
    the provider's own (chat completions on the built-in provider, which speaks all three)."""
    provider, model, protocol = split_pane_key(key)
    if provider == LOCAL_PROVIDER:
        return local_target(catalog, local_base_url, model, protocol)
    entry = providers.get(provider)
    return None if entry is None else saved_target(catalog, entry, model, protocol)
