"""The window's HTTP clients for its runs: one pool for the session, and before each run every
saved provider's connection (base URL, key, headers, proxy, TLS) through the core's one path,
`provider_connection.connect`, as `workbench bench --provider` makes it.

A provider whose key or header cannot be used refuses the run before anything is sent
(`ProviderUnusable`, the CLI's policy too); the window says why in its status bar.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

# the HTTP client, the keys and the error texts load at the first run, not before the paint
if TYPE_CHECKING:
    from workbench.core.access.providers import Provider
    from workbench.core.foundation.results import Target
    from workbench.core.planning.run_plan import RunPlan
    from workbench.core.transport.clients import ClientPool


class RunClients:
    """Made once per window; `prepare` before each run, `aclose` when the window closes."""

    def __init__(self) -> None:
        self._pool: ClientPool | None = None
        self._keys: dict[str, str | None] = {}  # provider name -> key, for this run

    def prepare(self, plan: RunPlan, providers: Mapping[str, Provider]) -> ClientPool:
        """The pool with each saved provider of `plan` connected; raises ProviderUnusable
        (nothing sent) for the first whose key or headers cannot be used."""
        from workbench.core.transport.clients import ClientPool
        from workbench.core.transport.provider_connection import connect

        connections = {
            name: connect(providers[name])
            for name in sorted({t.provider for t in plan.targets})
            if name in providers  # the built-in provider: no key, no options
        }
        if self._pool is None:
            self._pool = ClientPool()
        for connection in connections.values():
            self._pool.configure(connection.base_url, connection.options)
        self._keys = {name: c.api_key for name, c in connections.items()}
        return self._pool

    def key(self, target: Target) -> str | None:
        """The key of a target's provider, as `prepare` resolved it (the runner asks)."""
        return self._keys.get(target.provider)

    async def aclose(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
