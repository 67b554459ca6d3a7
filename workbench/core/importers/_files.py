"""Reading config files carefully, for every importer: regular files only (a FIFO or a device
is refused before it can block), a size limit, UTF-8 (a BOM is fine), JSON with comments and
trailing commas, TOML; every error names the file and the line, and is redacted.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP, Phrase, phrase
from workbench.core.foundation.redaction import redact
from workbench.core.foundation.validation import key_line_of, type_words
from workbench.core.system.bounded_read import NotARegularFile, TooLarge, read_bounded

MAX_CONFIG_BYTES = 16 * 1024 * 1024  # no config file is this large; refuse rather than chew


CONTEXT = "ConfigImport"  # the translation context of the importers' marked messages

# Where in a file a problem is, and a field's problem; {message} and {problem} are phrases.
IN_FILE = QT_TRANSLATE_NOOP("ConfigImport", "{file}: {message}")
IN_FILE_AT_LINE = QT_TRANSLATE_NOOP("ConfigImport", "{file}, line {line}: {message}")
FIELD_PROBLEM = QT_TRANSLATE_NOOP("ConfigImport", "{field} {problem}")
IN_PART = QT_TRANSLATE_NOOP("ConfigImport", "{part}: {message}")
NOT_A_FILE = QT_TRANSLATE_NOOP("ConfigImport", "{why}; give the path of the config file itself")
TOO_LARGE = QT_TRANSLATE_NOOP(
    "ConfigImport", "more than {limit} bytes is too large for a config file"
)
NOT_FOUND = QT_TRANSLATE_NOOP("ConfigImport", "not found, or not a file")
CANNOT_READ = QT_TRANSLATE_NOOP("ConfigImport", "cannot read it ({why})")
NOT_UTF8 = QT_TRANSLATE_NOOP("ConfigImport", "not UTF-8 text (byte {byte})")
NOT_JSON_AT = QT_TRANSLATE_NOOP("ConfigImport", "not valid JSON: {why} (column {column})")
NOT_JSON = QT_TRANSLATE_NOOP("ConfigImport", "not valid JSON: {why}")
NOT_JSON_NESTED = QT_TRANSLATE_NOOP("ConfigImport", "not valid JSON: nested too deeply")
NOT_AN_OBJECT = QT_TRANSLATE_NOOP(
    "ConfigImport", "expected a JSON object at the top level, found {found}"
)


def worded(template: str, **fields: object) -> Phrase:
    """A message marked in the importers' context."""
    return phrase(template, context=CONTEXT, **fields)


class ConfigImportError(Exception):
    """Broken or unknown input. The message names the file and the field or line; it is
    redacted, so no key text can travel in it. `phrase` is the message for the window to say
    in its language (marked with QT_TRANSLATE_NOOP("ConfigImport", ...) where raised); str()
    is its English. A plain str message stays English in every language."""

    def __init__(self, message: str | Phrase) -> None:
        said = message if isinstance(message, Phrase) else Phrase(message, context=CONTEXT)
        self.phrase = said.map_fields(redact)
        super().__init__(redact(str(self.phrase)))

    @property
    def message(self) -> str:
        return str(self)


class NothingToImport(ConfigImportError):
    """A readable file that holds no OpenAI-compatible gateway (e.g. Claude Code with no
    ANTHROPIC_BASE_URL). Importing that file alone fails; a home-folder scan skips it."""


# ---------------------------------------------------------------------------------------------
# Loading files
# ---------------------------------------------------------------------------------------------


@dataclass
class Source:
    """A file being read, for error messages that name it."""

    path: Path
    text: str = ""

    @property
    def label(self) -> str:
        return self.path.name or str(self.path)

    def error(self, message: str | Phrase, line: int | None = None) -> ConfigImportError:
        """The message (a phrase where it is marked; a str is said as it is) at the file and
        line."""
        fields = {"file": self.label, "message": message}
        if line:
            return ConfigImportError(phrase(IN_FILE_AT_LINE, context=CONTEXT, line=line, **fields))
        return ConfigImportError(phrase(IN_FILE, context=CONTEXT, **fields))

    def nothing(self, message: str) -> NothingToImport:
        return NothingToImport(f"{self.label}: {message}")

    def line_of(self, key: str) -> int | None:
        """The first line that holds `"key"` (JSON) or `key =` (TOML), as a hint."""
        return key_line_of(self.text, key)

    def field_error(self, fieldpath: str, problem: str | Phrase) -> ConfigImportError:
        leaf = fieldpath.rsplit(".", 1)[-1] if "." in fieldpath else fieldpath
        line = self.line_of(leaf) if "is missing" not in str(problem) else None
        said = phrase(FIELD_PROBLEM, context=CONTEXT, field=fieldpath, problem=problem)
        return self.error(said, line)


def read_text(path: Path) -> Source:
    """The file as UTF-8 text (a BOM is fine); errors name the file."""
    src = Source(path)
    try:
        data = read_bounded(path, MAX_CONFIG_BYTES, "a config file")
    except NotARegularFile as exc:
        raise src.error(worded(NOT_A_FILE, why=exc)) from None
    except TooLarge:
        raise src.error(worded(TOO_LARGE, limit=MAX_CONFIG_BYTES)) from None
    except FileNotFoundError:
        raise src.error(worded(NOT_FOUND)) from None
    except OSError as exc:
        raise src.error(worded(CANNOT_READ, why=exc.strerror or exc)) from None
    try:
        src.text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise src.error(worded(NOT_UTF8, byte=exc.start), line) from None
    return src


def strip_jsonc(text: str) -> str:
    """JSON with `//` and `/* */` comments and trailing commas → strict JSON.

    Comments become spaces (newlines kept) so line and column numbers still match the file;
    text inside strings, such as "http://x//y" or "a/*b*/c", is left alone.
    Raises ValueError(message, line) for a comment that never ends.
    """
    out = list(text)
    n = len(text)
    i = 0
    in_string = False
    last_comma: int | None = None  # a comma after a value, which a closing bracket makes trailing
    prev = ""  # the last significant character outside strings and comments
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
                prev = '"'
            i += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            if end < 0:
                line = text.count("\n", 0, i) + 1
                raise ValueError("a /* comment is never closed", line)
            for j in range(i, end + 2):
                if out[j] != "\n":
                    out[j] = " "
            i = end + 2
            continue
        if c.isspace():
            i += 1
            continue
        if c == "," and prev not in ("", ",", ":", "[", "{"):
            last_comma = i
        elif c in "}]" and last_comma is not None and prev == ",":
            out[last_comma] = " "
            last_comma = None
        else:
            last_comma = None if c != "," else last_comma
        if c == '"':
            in_string = True
        prev = c
        i += 1
    return "".join(out)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(path: Path) -> tuple[Source, dict[str, Any]]:
    """A JSON (or JSONC) file whose top level must be an object."""
    src = read_text(path)
    return src, parse_json_text(src, src.text)


def parse_json_text(src: Source, text: str, what: str = "") -> dict[str, Any]:
    def within(message: Phrase) -> Phrase:  # the part of the file, when the JSON is embedded
        return worded(IN_PART, part=what, message=message) if what else message

    try:
        data = json.loads(strip_jsonc(text), parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        invalid = worded(NOT_JSON_AT, why=exc.msg, column=exc.colno)
        raise src.error(within(invalid), exc.lineno) from None
    except ValueError as exc:  # an unclosed comment, NaN, a number too long to read
        line = exc.args[1] if len(exc.args) > 1 and isinstance(exc.args[1], int) else None
        raise src.error(within(worded(NOT_JSON, why=exc.args[0])), line) from None
    except RecursionError:
        raise src.error(within(worded(NOT_JSON_NESTED))) from None
    if not isinstance(data, dict):
        found = Phrase(type_words(data), context="Validation")
        raise src.error(within(worded(NOT_AN_OBJECT, found=found)))
    return data


_TOML_POS = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def load_toml(path: Path) -> tuple[Source, dict[str, Any]]:
    src = read_text(path)
    return src, parse_toml_text(src, src.text)


def parse_toml_text(src: Source, text: str, what: str = "") -> dict[str, Any]:
    prefix = f"{what}: " if what else ""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        match = _TOML_POS.search(msg)
        line = None
        if match:
            line = int(match.group(1))
            msg = f"{msg[: match.start()]} (column {match.group(2)})"
        if what:  # the TOML is embedded in another file: its line is not the file's line
            where = f", line {line}" if line else ""
            raise src.error(f"{what}{where}: not valid TOML: {msg}") from None
        raise src.error(f"{prefix}not valid TOML: {msg}", line) from None
    except (ValueError, RecursionError) as exc:
        raise src.error(f"{prefix}not valid TOML: {type(exc).__name__}") from None
