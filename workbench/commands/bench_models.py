"""Whether the server serves a model `bench` was asked for, and the ids to offer instead."""

from __future__ import annotations

import sys

from workbench.commands.common import LOCAL_PROVIDER, Endpoint, fail
from workbench.core.doctor import suggest_models
from workbench.core.foundation.terminal import printable, shown_id
from workbench.core.models.catalog import Catalog


def suggestions(model: str, endpoint: Endpoint, catalog: Catalog) -> list[str]:
    """Ids to offer for a model the server does not list: the closest of the server's own ids;
    only when it lists nothing, the catalog's, and never a simulated one for another server."""
    listed = sorted(endpoint.models or ())
    if listed:
        return [m for m in suggest_models(model, listed) if m != model]
    simulated = endpoint.provider == LOCAL_PROVIDER
    return [m for m in catalog.suggest(model, n=3, simulated=simulated) if m != model]


def check_model(endpoint: Endpoint, model: str, catalog: Catalog) -> bool:
    """False (after saying so) when the built-in provider does not serve `model`; a real
    server's unlisted id is tried anyway, with a warning."""
    if endpoint.serves(model):
        return True
    hints = ", ".join(shown_id(h) for h in suggestions(model, endpoint, catalog))
    mean = f" Did you mean: {hints}?" if hints else ""
    if endpoint.provider == LOCAL_PROVIDER:  # the built-in serves exactly what it lists
        fail(
            f"model '{shown_id(model)}' is not served at {endpoint.base_url}.{mean} "
            "(`workbench models` lists them)"
        )
        return False
    listed = sorted(endpoint.models or ())
    shown = ", ".join(shown_id(m) for m in listed[:8]) + (" …" if len(listed) > 8 else "")
    print(
        printable(
            f"warning: model '{shown_id(model)}' is not on the list of {endpoint.base_url} "
            f"(it lists {len(listed)}: {shown or 'nothing'}); trying it anyway, since some "
            f"servers list only the models they have loaded.{mean}"
        ),
        file=sys.stderr,
    )
    return True
