"""What a deployment's device time costs: the devices a model with a catalog deployment runs on
and their price per device-hour (resources/hardware.toml's list price, or the user's own).

A capacity search turns it into a cost per 1,000 requests at the load that held
(core/load/capacity_report.py); a model without a deployment (a user's API) keeps its token
prices. docs/metrics.md, "Capacity".
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase
from workbench.core.models.catalog import Catalog
from workbench.core.planning.memory_fit import deployed

MAX_DEVICE_COST = 1000.0  # USD per device-hour: far above any list price, so more is a typo
OWN_PRICE = "the user's own price"  # the price_source of a price the user gave
CONTEXT = "Capacity"  # the translation context of the refusals, as of the capacity sentence


class DeviceCostError(ValueError):
    """A price per device-hour that cannot be used: str() is the English `bench --device-cost`
    prints, `phrase` the same words for the app's Device price field to say in its language."""

    def __init__(self, message: Phrase) -> None:
        self.phrase = message
        super().__init__(str(message))


def parse_device_cost(text: str) -> float:
    """`2.5`, `2.5/h` or `$2.5/h` -> USD per device-hour; DeviceCostError naming the fix. The
    one reading of a price, for the CLI's --device-cost and the app's Device price field."""
    said = text.strip().removeprefix("$").removesuffix("/h").strip()
    try:
        value = float(said)
    except ValueError:
        raise DeviceCostError(
            phrase(
                QT_TRANSLATE_NOOP(
                    "Capacity",
                    "'{text}' is not a price per device-hour; write USD per device-hour, "
                    "e.g. 2.5 or 2.5/h",
                ),
                context=CONTEXT,
                text=text,
            )
        ) from None
    if not (math.isfinite(value) and 0 < value <= MAX_DEVICE_COST):
        raise DeviceCostError(
            phrase(
                QT_TRANSLATE_NOOP(
                    "Capacity",
                    "'{text}': a price per device-hour must be above 0 and at most {most} USD, "
                    "e.g. 2.5/h",
                ),
                context=CONTEXT,
                text=text,
                most=f"{MAX_DEVICE_COST:g}",
            )
        )
    return value


def price_words(usd_per_hour: float) -> str:
    """A price per device-hour as the user may type it back: `$3.99/h`."""
    return f"${usd_per_hour:.2f}/h"


def list_price(catalog: Catalog, models: Iterable[str]) -> float | None:
    """The one list price of the deployments these models run on (models without one left
    out); None when they have none, or several that differ."""
    prices = {d["usd_per_hour"] for d in device_costs(catalog, models).values()}
    return prices.pop() if len(prices) == 1 else None


def device_costs(
    catalog: Catalog,
    models: Iterable[str],
    gpu: str | None = None,
    tensor_parallel: int | None = None,
    own_price: float | None = None,
) -> dict[str, dict[str, Any]]:
    """Per model with a deployment in the catalog: its `devices` (tensor x pipeline x data
    parallel, after the built-in provider's --gpu/--tp overrides given here), their `gpu` and
    `usd_per_hour` (`own_price`, else the hardware list price; None when the part has none),
    with its `price_source`. Models without a deployment are left out (token prices)."""
    out: dict[str, dict[str, Any]] = {}
    for model_id in models:
        model = catalog.get(model_id)
        if model is None or model.deployment is None:
            continue
        deployment = deployed(model.deployment, gpu, tensor_parallel)
        profile = deployment.profile
        price, source = (own_price, OWN_PRICE) if own_price is not None else (
            profile.usd_per_hour, profile.price_source
        )  # fmt: skip
        out[model_id] = {
            "devices": deployment.devices,
            "gpu": profile.key,
            "usd_per_hour": price,
            "price_source": source,
        }
    return out
