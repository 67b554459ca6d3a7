"""The importers' side of the one validation kit (`core/foundation/validation.py`): each format's
shape is a pydantic model, checked by `read_shape`, which words a bad value as the importers
always have ("providers.json, line 4: settings.baseUrl must be text in quotes, found a whole
number"), with the file, the line where the field is written, the field and what it must be.

Another tool's file holds many fields we never read, so a `Foreign` table ignores unknown
fields (providers.toml, our own file, forbids them). Types are strict: a number where text
belongs is an error, never quietly turned into text. A field marked `LENIENT` only describes a
model (a context window, a price, an attention type, a header): a bad value there is left out
with a warning, and the rest of the file is imported.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase, phrased
from workbench.core.foundation.validation import Invalid, fields_on, validate_each
from workbench.core.importers._files import CONTEXT, Source

# How a bad value is worded; {expected} and {got} are the marked words of the validation kit
# (context "Validation") or a field's description below, {field} and {value} data.
IS_MISSING = QT_TRANSLATE_NOOP("ConfigImport", "is missing")
MUST_BE_FOUND = QT_TRANSLATE_NOOP("ConfigImport", "must be {expected}, found {got}")
IGNORED_FIELD = QT_TRANSLATE_NOOP("ConfigImport", "{file}: ignored {field}: {problem}")
IS_EMPTY = QT_TRANSLATE_NOOP("Validation", "is empty")
MUST_BE_MODEL_ID = QT_TRANSLATE_NOOP("Validation", "must be a model id (text)")
NOT_ATTENTION = QT_TRANSLATE_NOOP("Validation", "not an attention type like GQA or MLA")
MUST_BE_WHOLE_FOUND = QT_TRANSLATE_NOOP("Validation", "must be a whole number >= 1, found {value}")
MUST_BE_AT_LEAST_FOUND = QT_TRANSLATE_NOOP(
    "Validation", "must be a number >= {minimum}, found {value}"
)


class Refused(ValueError):
    """A validator's refusal as a phrase (context "Validation"); str() is its English."""

    def __init__(self, template: str, **fields: object) -> None:
        self.phrase = phrase(template, context="Validation", **fields)
        super().__init__(str(self.phrase))


M = TypeVar("M", bound="Foreign")


class Foreign(BaseModel):
    """A table of another tool's config: types checked strictly, fields we do not read
    ignored; a field whose name is not a Python name is given as an alias."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, populate_by_name=True)


class _LenientMark:
    """Metadata of a field whose bad value is dropped with a warning, not an error."""


LENIENT = _LenientMark()


def _stripped(value: str) -> str | None:
    """Text as written, without the spaces around it; empty text counts as absent."""
    return value.strip() or None


def _filled(value: str) -> str:
    if not value.strip():
        raise Refused(IS_EMPTY)
    return value.strip()


def _model_id(value: str) -> str:
    if not value.strip():
        raise Refused(MUST_BE_MODEL_ID)
    return value.strip()


# Text a reader may find absent (None, or empty or blank text).
Text = Annotated[str | None, AfterValidator(lambda v: None if v is None else _stripped(v))]
# Text a reader needs: a base URL; empty is an error.
Filled = Annotated[
    str, AfterValidator(_filled), Field(description=QT_TRANSLATE_NOOP("Validation", "text"))
]
ModelId = Annotated[
    str,
    AfterValidator(_model_id),
    Field(description=QT_TRANSLATE_NOOP("Validation", "a model id (text)")),
]
# A key field: its text is classified by `classify_key` (env reference, literal, placeholder).
KeyText = Annotated[str | None, Field(description=QT_TRANSLATE_NOOP("Validation", "text"))]
# A field naming an environment variable (checked by `env_var_key`).
EnvName = Annotated[
    str | None,
    Field(description=QT_TRANSLATE_NOOP("Validation", "the name of an environment variable")),
]


def _number_text(value: object) -> object:
    """A number written as text ("128000") is read as that number; other text is left for the
    type check to refuse."""
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return value
    return value


def _at_least(minimum: float, whole: bool = False) -> AfterValidator:
    def check(value: float | None) -> float | None:
        if value is None:
            return None
        ok = math.isfinite(value) and minimum <= value <= 1e15
        if ok and whole and (value != int(value) or value < 1):
            ok = False
        if not ok and whole:
            raise Refused(MUST_BE_WHOLE_FOUND, value=f"{value:g}")
        if not ok:
            raise Refused(MUST_BE_AT_LEAST_FOUND, minimum=f"{minimum:g}", value=f"{value:g}")
        return value

    return AfterValidator(check)


# Descriptive numbers (a price, a context window, a timeout): a bad one is dropped with a
# warning. `Whole` is read as a float; `make_model` keeps it as an int.
Number = Annotated[
    float | None,
    BeforeValidator(_number_text),
    _at_least(0.0),
    Field(description=QT_TRANSLATE_NOOP("Validation", "a number >= 0")),
    LENIENT,
]
Positive = Annotated[  # seconds
    float | None,
    BeforeValidator(_number_text),
    _at_least(0.001),
    Field(description=QT_TRANSLATE_NOOP("Validation", "a number >= 0.001")),
    LENIENT,
]
PositiveMs = Annotated[  # milliseconds
    float | None,
    BeforeValidator(_number_text),
    _at_least(1.0),
    Field(description=QT_TRANSLATE_NOOP("Validation", "a number >= 1")),
    LENIENT,
]
Whole = Annotated[
    float | None,
    BeforeValidator(_number_text),
    _at_least(1.0, whole=True),
    Field(description=QT_TRANSLATE_NOOP("Validation", "a whole number >= 1")),
    LENIENT,
]

_ATTENTION = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,15}$")


def _attention(value: str) -> str:
    text = value.strip()
    if not _ATTENTION.match(text):
        raise Refused(NOT_ATTENTION)
    return "MoBA" if text.lower() == "moba" else text.upper()


Attention = Annotated[
    str | None,
    AfterValidator(lambda v: None if v is None else _attention(v)),
    Field(description=QT_TRANSLATE_NOOP("Validation", "an attention type like GQA or MLA")),
    LENIENT,
]


def _header_text(value: object) -> object:
    """A header's value as text: a number is written as text, anything else is refused."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


# HTTP headers, each value text; a bad one alone is dropped. See `_base.headers_from`.
Headers = Annotated[
    dict[str, Annotated[str, BeforeValidator(_header_text)]] | None,
    Field(description=QT_TRANSLATE_NOOP("Validation", "an object of headers")),
    LENIENT,
]


def models_table(value: object) -> object:
    """Models as other tools write them (one id, a list of ids or tables, a table of ids or
    tables by name) as one table: a list's entries by index, each entry a table with its id."""
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        value = dict(enumerate(value))
    if not isinstance(value, dict):
        return value  # refused by the shape's type check, which names it
    return {k: {"id": v} if isinstance(v, str) else v for k, v in value.items()}


def named_models(value: object) -> object:
    """`[models.NAME]` tables (or `NAME = "id"`): a table without an `id` is the model NAME."""
    if not isinstance(value, dict):
        return value
    return {
        k: ({"id": v} if isinstance(v, str) else {"id": k, **v} if isinstance(v, dict) else v)
        for k, v in value.items()
    }


def read_shape(
    src: Source, schema: type[M], data: object, warnings: list[str], where: str = ""
) -> M:
    """`data` read as `schema`. A bad `LENIENT` value is left out with a warning naming it; any
    other bad value is a ConfigImportError naming the file, the line, the field and the fix."""
    checked = validate_each(schema, data)
    if isinstance(checked, list):
        hard = [p for p in checked if not _lenient(schema, p)]
        if hard:
            raise _error(src, hard[0], where)
        for problem in checked:
            field = _where(where, problem.field)
            ignored = phrase(
                IGNORED_FIELD, context=CONTEXT, file=src.label, field=field, problem=_words(problem)
            )
            warnings.append(phrased(ignored))
            data = _without(data, problem.loc)
        # a value left out is absent, which every lenient field allows: this pass is clean
        checked = validate_each(schema, data)
        if isinstance(checked, list):
            raise _error(src, checked[0], where)
    return checked


def _lenient(schema: type[Foreign], problem: Invalid) -> bool:
    return any(LENIENT in info.metadata for info in fields_on(schema, problem.loc))


def _where(where: str, field: str) -> str:
    if not field:
        return where
    return f"{where}.{field}" if where and not field.startswith("[") else where + field


def _words(problem: Invalid) -> Phrase:
    """The problem as the importers word it: "is missing", "must be text, found a list"."""
    if problem.kind == "missing":
        return phrase(IS_MISSING, context=CONTEXT)
    if problem.kind == "type":  # a table in TOML is an object in JSON
        expected = "a table/object" if problem.expected == "a table" else problem.expected
        return phrase(
            MUST_BE_FOUND, context=CONTEXT, expected=_marked(expected), got=_marked(problem.got)
        )
    return problem.said or Phrase(problem.cause, context="Validation")


def _marked(words: str) -> Phrase:
    """The validation kit's words (marked in context "Validation"); other words stay as they
    are."""
    return Phrase(words, context="Validation")


def _error(src: Source, problem: Invalid, where: str) -> Exception:
    return src.field_error(_where(where, problem.field), _words(problem))


def _without(data: Any, loc: tuple[str | int, ...]) -> Any:
    """A copy of `data` without the value at `loc` (the tables on the way copied, not the
    rest)."""
    if not loc:
        return None
    head, rest = loc[0], loc[1:]
    if isinstance(data, dict):
        copy = dict(data)
        if rest:
            copy[head] = _without(copy.get(head), rest)
        else:
            copy.pop(head, None)
        return copy
    if isinstance(data, list) and isinstance(head, int) and 0 <= head < len(data):
        items = list(data)
        items[head] = _without(items[head], rest) if rest else None
        return items
    return data
