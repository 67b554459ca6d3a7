"""The schemas of the model catalog's tables and of a user's overrides (pydantic, through
`validation`): a file's error names the file, the line, the model and the field.

Apart from `catalog` so that reading the shipped catalog, which the test suite checks, does not
import pydantic before the window's first paint.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from workbench.core.foundation.validation import (
    Count,
    Invalid,
    Price,
    PricesTable,
    Schema,
    array_line_of,
    validate,
)


def _nonempty(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty")
    return text


Name = Annotated[str, AfterValidator(_nonempty)]


class OverrideTable(Schema):
    """A user's changes to one model: prices (flat or in a `prices` table) and context window."""

    input: Price | None = None
    output: Price | None = None
    cached_input: Price | None = None
    prices: PricesTable = PricesTable()
    context_window: Count | None = Field(None, description="a whole number of tokens >= 1")


class CatalogEntry(Schema):
    """A [[model]] table as written; the fields it may inherit through `like` are optional."""

    id: Name = Field(description="the model's id as text")
    display_name: str | None = None
    aliases: list[Name] = Field([], description="a list of names in quotes")
    like: str | None = Field(None, description="the id of another model in the file")
    shape: dict[str, Any] | None = Field(None, description="a [model.shape] table")
    total_params: Count | None = Field(None, description="the parameter count (>= 1)")
    active_params: Count | None = Field(None, description="the parameters active per token")
    context_window: Count | None = Field(None, description="the context window in tokens")
    prices: PricesTable = PricesTable()
    deployment: dict[str, Any] | None = Field(None, description="a [model.deployment] table")
    simulated: bool = Field(False, description="true or false")
    notes: str = Field("", description="text in quotes")


def check_entry(path: Path, text: str, index: int, raw: object) -> None:
    """A [[model]] table checked against its schema; ValueError naming file, line, model and
    field."""
    try:
        validate(CatalogEntry, raw)
    except Invalid as exc:
        model_id = raw.get("id") if isinstance(raw, dict) else None
        named = f" ({model_id})" if isinstance(model_id, str) else ""
        line = array_line_of(text, "model", index, exc.field)
        at = f"line {line}: " if line else ""
        raise ValueError(f"{path}: {at}model #{index}{named}: {exc}") from None


def checked_override(name: str, fields: Mapping[str, Any]) -> OverrideTable:
    """A user's override of one model, checked; ValueError naming the model and the field."""
    try:
        return validate(OverrideTable, dict(fields))
    except Invalid as exc:
        raise ValueError(f"override for {name!r}: {exc}") from None
