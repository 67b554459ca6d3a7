"""One validation kit for the TOML and JSON the app reads: providers.toml, the model catalog and
its overrides, and the config files the importers read.

A schema is a pydantic model (`Schema`: strict types, no unknown fields); `validate` turns the
first problem pydantic finds into `Invalid`, which names the field as the user writes it
(`models[0].prices.input`) and says the cause in plain words, with what is expected (a field's
`description`) as the fix. Each reader adds its file and line: `toml_line_of` and `key_line_of`
find the line, since neither tomllib nor json keeps positions of values.
"""

from __future__ import annotations

import difflib
import math
import re
import types
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase

S = TypeVar("S", bound=BaseModel)


class Schema(BaseModel):
    """A table of a config file: strict types (no "5" for 5, no true for 1), no unknown field."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class Invalid(ValueError):
    """A bad value: `field` as the user writes it, `cause` saying what is wrong and expected.

    For readers that word it their own way: `loc`, the path as pydantic gives it; `kind`,
    "missing", "type" (`expected` and `got` in words), "unknown" or "value" (`cause` alone;
    `said`, its phrase where the validator raised one: an exception with a `phrase`). The words
    of `expected` and `got` are marked below (context "Validation") for a reader to translate."""

    def __init__(
        self,
        field: str,
        cause: str,
        *,
        loc: tuple[str | int, ...] = (),
        kind: str = "value",
        expected: str = "",
        got: str = "",
        said: Phrase | None = None,
    ) -> None:
        super().__init__(f"field '{field}': {cause}" if field else cause)
        self.field = field
        self.cause = cause
        self.loc = loc
        self.kind = kind
        self.expected = expected
        self.got = got
        self.said = said


def type_words(value: object) -> str:
    """What a value is, in the words of a config file's reader."""
    if value is None:
        return "null"
    return {
        bool: QT_TRANSLATE_NOOP("Validation", "true/false"),
        int: QT_TRANSLATE_NOOP("Validation", "a whole number"),
        float: QT_TRANSLATE_NOOP("Validation", "a number"),
        str: QT_TRANSLATE_NOOP("Validation", "text"),
        list: QT_TRANSLATE_NOOP("Validation", "a list"),
        dict: QT_TRANSLATE_NOOP("Validation", "a table/object"),
    }.get(type(value), type(value).__name__)


def validate(schema: type[S], data: object) -> S:
    """`data` checked against `schema`; Invalid naming the first bad field otherwise."""
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        raise _invalid(schema, exc.errors(include_url=False)[0]) from None


def validate_each(schema: type[S], data: object) -> S | list[Invalid]:
    """`data` checked against `schema`, or every problem found, in the order of the data (for
    a reader that may drop some bad values and try again)."""
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        return [_invalid(schema, error) for error in exc.errors(include_url=False)]


def _invalid(schema: type[BaseModel], error: Any) -> Invalid:
    loc: tuple[str | int, ...] = error["loc"]
    value = error.get("input")
    kind = error["type"]
    if kind == "extra_forbidden":
        owner = _owner_of(schema, loc[:-1])
        known = sorted(owner.model_fields) if owner else []
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        cause = f"unknown field{hint}; known: {', '.join(known)}"
        return Invalid(_path(loc), cause, loc=loc, kind="unknown")
    info = _field_at(schema, loc) if loc and isinstance(loc[-1], str) else None
    # a field's description says what it expects; a value inside it (a list item, a
    # header) is described by its type alone
    expected = info.description if info and info.description else _TYPES.get(kind)
    if kind == "missing":
        cause = f"missing; it needs {expected}" if expected else "missing"
        return Invalid(_path(loc), cause, loc=loc, kind="missing", expected=expected or "")
    if kind in ("value_error", "assertion_error"):
        raised = error["ctx"]["error"]
        said = getattr(raised, "phrase", None)
        return Invalid(
            _path(loc), str(raised), loc=loc, said=said if isinstance(said, Phrase) else None
        )
    got = type_words(value) if kind.endswith("_type") else repr(value)
    expected = expected or _plain(error["msg"])
    return Invalid(
        _path(loc),
        f"expected {expected}, got {got}",
        loc=loc,
        kind="type",
        expected=expected,
        got=got,
    )


_TYPES = {
    "string_type": QT_TRANSLATE_NOOP("Validation", "text in quotes"),
    "int_type": QT_TRANSLATE_NOOP("Validation", "a whole number"),
    "float_type": QT_TRANSLATE_NOOP("Validation", "a number"),
    "bool_type": QT_TRANSLATE_NOOP("Validation", "true or false"),
    "dict_type": QT_TRANSLATE_NOOP("Validation", "a table"),
    "model_type": QT_TRANSLATE_NOOP("Validation", "a table"),
    "list_type": QT_TRANSLATE_NOOP("Validation", "a list"),
}


def _plain(message: str) -> str:
    """pydantic's "Input should be a valid integer" as "a valid integer"."""
    return re.sub(r"^Input should be ", "", message)


def _path(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _field_at(schema: type[BaseModel], loc: tuple[str | int, ...]) -> FieldInfo | None:
    """The info of the field `loc` names (list indexes skipped); None when no schema has it."""
    owner: type[BaseModel] | None = schema
    info: FieldInfo | None = None
    for part in loc:
        if isinstance(part, int):
            continue
        info = _named(owner, part)  # None at a table's key: what is under it has no field
        if info is not None:
            owner = _schema_in(info.annotation)
    return info


def fields_on(schema: type[BaseModel], loc: tuple[str | int, ...]) -> list[FieldInfo]:
    """The fields `loc` passes through, outermost first: a dict's keys and list indexes add
    none, and the walk stops where no schema describes the value."""
    owner: type[BaseModel] | None = schema
    found = []
    for part in loc:
        info = None if isinstance(part, int) else _named(owner, part)
        if info is not None:
            found.append(info)
            owner = _schema_in(info.annotation)
    return found


def _named(owner: type[BaseModel] | None, part: str) -> FieldInfo | None:
    """The field `part` names in `owner`, by its name or, as a file writes it, its alias."""
    if owner is None:
        return None
    info = owner.model_fields.get(part)
    if info is None:
        info = next((f for f in owner.model_fields.values() if f.alias == part), None)
    return info


def _owner_of(schema: type[BaseModel], loc: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The schema a table at `loc` must follow (for its list of known fields)."""
    owner: type[BaseModel] | None = schema
    for part in loc:
        if isinstance(part, int) or owner is None:
            continue
        info = _named(owner, part)
        owner = _schema_in(info.annotation) if info else None
    return owner


def _schema_in(annotation: Any) -> type[BaseModel] | None:
    """The schema inside `Foo | None`, `list[Foo]`, `tuple[Foo, ...]` or `Annotated[Foo, ...]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (Annotated, Union, types.UnionType, list, tuple, dict):
        for arg in get_args(annotation):
            found = _schema_in(arg)
            if found is not None:
                return found
    return None


# ---- value types shared by the schemas ----


def _finite_positive(value: float) -> float:
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"must be more than 0 seconds, got {value:g}")
    return float(value)


def _whole(value: object) -> object:
    """A float that is a whole number (1e9 in TOML) is taken as that integer."""
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    return value


Seconds = Annotated[float, AfterValidator(_finite_positive)]


def _price(value: float) -> float:
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"must be a price >= 0 (USD per million tokens), got {value!r}")
    return float(value)


def _count(value: int) -> int:
    if value < 1:
        raise ValueError(f"must be a whole number >= 1, got {value!r}")
    return value


Price = Annotated[float, AfterValidator(_price)]
Count = Annotated[int, BeforeValidator(_whole), AfterValidator(_count)]


class PricesTable(Schema):
    """`prices = { input = ..., output = ..., cached_input = ... }`, USD per million tokens, as
    providers.toml, models.toml and the catalog overrides write it."""

    input: Price | None = None
    output: Price | None = None
    cached_input: Price | None = None

    def changes(self) -> dict[str, float]:
        """The prices given, by field name."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


# ---- where a field is written ----


def key_line_of(text: str, key: str) -> int | None:
    """The first line that holds `"key"` (JSON) or `key =` (TOML): a hint, for formats whose
    parser keeps no positions."""
    for pattern in (f'"{key}"', f"{key} =", f"{key}="):
        pos = text.find(pattern)
        if pos >= 0:
            return text.count("\n", 0, pos) + 1
    return None


def toml_line_of(text: str, table: str, name: str, field: str | None) -> int | None:
    """The line of `field` (`proxy.mode`, `models[0].id`) inside the TOML table `[table.name]`,
    else the table's header line; None when the table is not found."""
    lines = text.splitlines()
    quoted = re.escape(name)
    key = rf"(?:\"{quoted}\"|'{quoted}'|{quoted})"
    header = re.compile(rf"^\s*\[\[?\s*{re.escape(table)}\s*\.\s*{key}\s*(\]|\.)")
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None or not field:
        return None if start is None else start + 1
    parts = [re.sub(r"\[\d+\]$", "", part) for part in field.split(".")]
    top, sub = parts[0], parts[1] if len(parts) > 1 else None
    assign = re.compile(rf"^\s*[\"']?{re.escape(top)}[\"']?\s*=")
    subtable = re.compile(
        rf"^\s*\[\[?\s*{re.escape(table)}\s*\.\s*{key}\s*\.\s*{re.escape(top)}\s*\]"
    )
    for i in range(start, len(lines)):
        line = lines[i]
        if i > start and line.lstrip().startswith("[") and not header.match(line):
            break  # the next table
        if assign.match(line):
            return i + 1
        if subtable.match(line):
            return _sub_line(lines, i, sub)
    return start + 1


def _sub_line(lines: list[str], start: int, sub: str | None) -> int:
    if sub:
        sub_assign = re.compile(rf"^\s*[\"']?{re.escape(sub)}[\"']?\s*=")
        for j in range(start + 1, len(lines)):
            if lines[j].lstrip().startswith("["):
                break
            if sub_assign.match(lines[j]):
                return j + 1
    return start + 1


def array_line_of(text: str, table: str, index: int, field: str | None) -> int | None:
    """The line of `field` in the `index`-th (from 1) `[[table]]` of TOML text, else that
    entry's header line; None when there is no such entry."""
    lines = text.splitlines()
    header = re.compile(rf"^\s*\[\[\s*{re.escape(table)}\s*\]\]")
    starts = [i for i, line in enumerate(lines) if header.match(line)]
    if not 1 <= index <= len(starts):
        return None
    start = starts[index - 1]
    end = starts[index] if index < len(starts) else len(lines)
    top = re.sub(r"\[\d+\]$", "", field.split(".")[0]) if field else ""
    assign = re.compile(rf"^\s*[\"']?{re.escape(top)}[\"']?\s*=")
    subtable = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\.\s*{re.escape(top)}\s*\]")
    for i in range(start, end):
        if top and (assign.match(lines[i]) or subtable.match(lines[i])):
            return i + 1
    return start + 1
