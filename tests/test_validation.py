"""The one validation kit: a bad value is named by its field as the user writes it, with the cause
and what is expected, and its line is found in TOML and JSON text."""

from __future__ import annotations

import json

import pytest
from pydantic import Field

from workbench.core.foundation.validation import (
    Count,
    Invalid,
    PricesTable,
    Schema,
    Seconds,
    array_line_of,
    key_line_of,
    toml_line_of,
    validate,
)


class Model(Schema):
    id: str = Field(description="the model's id as text")
    context_window: Count | None = Field(None, description="a whole number of tokens >= 1")
    prices: PricesTable = PricesTable()


class Gateway(Schema):
    timeout_s: Seconds = Field(60.0, description="seconds (a number)")
    models: list[Model] = Field([])


@pytest.mark.parametrize(
    ("data", "field", "cause"),
    [
        ({"timeout_s": "60"}, "timeout_s", "expected seconds (a number), got text"),
        ({"timeout_s": 0}, "timeout_s", "must be more than 0 seconds, got 0"),
        ({"models": [{"id": "m", "prices": {"inptu": 1}}]}, "models[0].prices.inptu",
         "unknown field (did you mean 'input'?); known: cached_input, input, output"),
        ({"models": [{}]}, "models[0].id", "missing; it needs the model's id as text"),
        ({"models": [{"id": "m", "context_window": True}]}, "models[0].context_window",
         "expected a whole number of tokens >= 1, got true/false"),
        ({"models": [{"id": "m", "context_window": 0.5}]}, "models[0].context_window",
         "expected a whole number of tokens >= 1, got a number"),
        ({"models": [{"id": "m", "prices": {"output": -2}}]}, "models[0].prices.output",
         "must be a price >= 0 (USD per million tokens), got -2.0"),
        ({"models": ["m"]}, "models[0]", "expected a table, got text"),
    ],
)  # fmt: skip
def test_a_bad_value_is_named_by_its_field_with_cause_and_fix(data, field, cause) -> None:
    with pytest.raises(Invalid) as err:
        validate(Gateway, data)
    assert (err.value.field, err.value.cause) == (field, cause)
    assert str(err.value) == f"field '{field}': {cause}"


def test_whole_floats_count_and_good_values_pass() -> None:
    checked = validate(Gateway, {"timeout_s": 5, "models": [{"id": "m", "context_window": 4e3}]})
    assert checked.timeout_s == 5.0 and checked.models[0].context_window == 4000


def test_lines_are_found_in_toml_tables_arrays_and_json() -> None:
    toml = (
        '[providers.a]\nbase_url = "x"\n\n[providers."b c"]\nbase_url = "y"\n'
        '[providers."b c".proxy]\nmode = "url"\nurl = 5\n'
    )
    assert toml_line_of(toml, "providers", "b c", "proxy.url") == 8
    assert toml_line_of(toml, "providers", "b c", "base_url") == 5
    assert toml_line_of(toml, "providers", "b c", None) == 4
    assert toml_line_of(toml, "providers", "nope", "base_url") is None
    models = '[[model]]\nid = "a"\n[[model]]\nid = "b"\ncolour = 1\n[model.shape]\nkind = "X"\n'
    assert array_line_of(models, "model", 2, "colour") == 5
    assert array_line_of(models, "model", 2, "shape.kind") == 6
    assert array_line_of(models, "model", 3, "id") is None
    text = json.dumps({"gateway": {"base_url": 3}}, indent=2)
    assert key_line_of(text, "base_url") == 3
