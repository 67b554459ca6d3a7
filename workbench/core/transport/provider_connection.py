"""A saved provider turned into what its requests need: the base URL, the key and the client
options (expanded headers, proxy, TLS). The one path for both faces: `workbench bench
--provider`, the window's runs and its model list all call `connect`.

The policy on a key or header that cannot be used (its `${VAR}` not set, or a value HTTP cannot
carry): refuse, before anything is sent, with a message naming the provider, the header and the
fix. Nothing is sent without it. A header the user configured is part of what they asked to
measure (a gateway's team or route header, a second credential): sending without it measures
another route, or fails later with a 401 or a 404 that hides the cause.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.access.keys import KeyUnavailable, resolve_headers, resolve_key
from workbench.core.access.providers import Provider
from workbench.core.foundation.errors import UnsendableHeader
from workbench.core.foundation.i18n import Phrase, data

if TYPE_CHECKING:  # the transport loads with the first connection, not with the window
    from workbench.core.transport.clients import ClientOptions


class ProviderUnusable(ValueError):
    """A provider whose key or headers cannot be used; the message says which and the fix, and
    never holds the value. `phrase` is the message for the window to say in its language."""

    def __init__(self, message: str | Phrase) -> None:
        self.phrase = message if isinstance(message, Phrase) else data(message)
        super().__init__(str(self.phrase))


@dataclass(frozen=True)
class Connection:
    """How to reach one saved provider: hand `base_url`, `api_key` and `options` to a client."""

    base_url: str
    api_key: str | None
    options: ClientOptions


def connect(provider: Provider, api_key: str | None = None) -> Connection:
    """The provider's connection; `api_key`: a key given for this command (the CLI's
    --api-key-env) instead of the provider's own. Raises ProviderUnusable (see the docstring)."""
    from workbench.core.transport.clients import ClientOptions, check_headers

    try:
        key = resolve_key(provider) if api_key is None else api_key.strip()
        headers = resolve_headers(provider)
        check_headers(key, headers)
    except KeyUnavailable as exc:
        raise ProviderUnusable(exc.phrase) from None
    except UnsendableHeader as exc:
        raise ProviderUnusable(
            f"provider '{provider.name}': {exc}, which HTTP headers cannot carry; retype it "
            f"in the Providers tab or providers.toml"
        ) from None
    options = ClientOptions.create(headers, provider.proxy, provider.verify_tls)
    return Connection(provider.base_url, key, options)
