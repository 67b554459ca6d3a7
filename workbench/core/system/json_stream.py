"""A JSON object read a piece at a time: its small values whole, its large arrays one element
at a time, so a file of hundreds of megabytes (vLLM's per-request lists) is never held whole.

`scan` reads the top-level object once: values under most keys come back parsed, and for keys
the caller names as large arrays only where each starts (a byte offset) and how many elements it
holds. `elements` then walks one such array from its offset on a handle of its own, so several
arrays (one list per request field) are read side by side. Each element is parsed by the
standard library's C decoder (json.JSONDecoder.raw_decode), a window of the file at a time.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from workbench.core.system.bounded_read import TooDeep

_CHUNK = 1 << 20
_NUMBER_ROOM = 64  # more characters than any JSON number a file holds
_WHITESPACE = " \t\n\r"
_decode = json.JSONDecoder().raw_decode
_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # the C scanner
_AFTER = re.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")


class NotStreamable(ValueError):
    """The text is not one JSON object (a caller reads it the ordinary way and says why)."""


class _Window:
    """The file's text from `start` on, decoded a chunk at a time; `base` is the byte offset of
    the window's first character."""

    def __init__(self, f: BinaryIO, offset: int = 0) -> None:
        self.f = f
        self.text = ""
        self.at = 0  # the reading position in `text`
        self.base = offset
        self.eof = False
        self._utf8 = codecs.getincrementaldecoder("utf-8-sig" if offset == 0 else "utf-8")()
        self._bom = offset == 0  # a BOM the decoder drops still counts in the byte offsets

    def more(self, at_least: int = _CHUNK) -> bool:
        """Read on (dropping what was read); False at the end of the file."""
        if self.eof:
            return False
        dropped = self.text[: self.at]
        self.base += len(dropped.encode("utf-8"))
        raw = self.f.read(max(at_least, _CHUNK))
        if self._bom:
            self._bom = False
            self.base += 3 if raw.startswith(codecs.BOM_UTF8) else 0
        self.eof = not raw
        self.text = self.text[self.at :] + self._utf8.decode(raw, final=self.eof)
        self.at = 0
        return not self.eof

    def _unread(self) -> int:
        """What is left to read in the window: a value longer than it doubles it, one shorter
        reads one chunk more (never the window's whole length again, or it grew each time)."""
        return len(self.text) - self.at

    def offset(self) -> int:
        return self.base + len(self.text[: self.at].encode("utf-8"))

    def skip_space(self) -> str:
        """The next character that is not whitespace, not consumed ('' at the end)."""
        while True:
            text, at = self.text, self.at
            while at < len(text) and text[at] in _WHITESPACE:
                at += 1
            self.at = at
            if at < len(text) or not self.more():
                return text[at] if at < len(text) else ""

    def expect(self, char: str) -> None:
        if self.skip_space() != char:
            raise NotStreamable(f"expected {char!r} at byte {self.offset()}")
        self.at += 1

    def value(self) -> Any:
        """The next JSON value, parsed whole (the window grows until it holds all of it)."""
        self.skip_space()
        while True:
            try:
                value, end = _decode(self.text, self.at)
            except RecursionError:
                raise TooDeep("nested deeper than the JSON reader follows") from None
            except json.JSONDecodeError as error:
                if self.more(self._unread()):  # cut by the window's end: read on, then retry
                    continue
                raise NotStreamable(str(error)) from None
            # a number near the window's end may go on in the next chunk: "0.12" of "0.125",
            # or "17." of "17.5", which parses as 17 and leaves a "." behind
            if len(self.text) - end < _NUMBER_ROOM and not self.eof:
                self.more(self._unread())  # moves the window: parse again, at the end too
                continue
            self.at = end
            return value


def _items(window: _Window) -> Iterator[Any]:
    window.expect("[")
    if window.skip_space() == "]":
        window.at += 1
        return
    after = _AFTER.match
    while True:
        # the fast path: a value, then its separator, wholly inside the window
        text, at = window.text, window.at
        try:
            value, end = _scan_once(text, at)
        except (StopIteration, json.JSONDecodeError):
            found = None
        except RecursionError:
            raise TooDeep("nested deeper than the JSON reader follows") from None
        else:
            found = after(text, end)
        if found is not None and found.end() < len(text):
            window.at = found.end()
            yield value
            if found.group(1) == "]":
                return
            continue
        yield window.value()  # the window's end cuts the value or its separator: read on
        separator = window.skip_space()
        window.at += 1
        if separator == "]":
            return
        if separator != ",":
            raise NotStreamable(f"expected ',' or ']' at byte {window.offset() - 1}")


@dataclass
class Scanned:
    """A top-level object: small values whole, large arrays as (byte offset, length)."""

    values: dict[str, Any] = field(default_factory=dict)
    arrays: dict[str, tuple[int, int]] = field(default_factory=dict)


def scan(f: BinaryIO, large: Collection[str], on_bytes: Callable[[bytes], None]) -> Scanned:
    """Read the top-level object from `f`; an array under a key in `large` is walked, not kept.
    `on_bytes` sees every byte read (a hash, a byte count). NotStreamable when `f` does not hold
    one JSON object."""

    class _Counted:
        def read(self, size: int) -> bytes:
            data = f.read(size)
            on_bytes(data)
            return data

    window = _Window(_Counted())  # type: ignore[arg-type]  # only read() is used
    found = Scanned()
    window.expect("{")
    if window.skip_space() == "}":
        window.at += 1
    else:
        while True:
            key = window.value()
            if not isinstance(key, str):
                raise NotStreamable("an object key that is not text")
            window.expect(":")
            if key in large and window.skip_space() == "[":
                start = window.offset()
                found.arrays[key] = (start, sum(1 for _ in _items(window)))
            else:
                found.values[key] = window.value()
            after = window.skip_space()
            window.at += 1
            if after == "}":
                break
            if after != ",":
                raise NotStreamable(f"expected ',' or '}}' at byte {window.offset() - 1}")
    if window.skip_space():
        raise NotStreamable("more text after the object")
    return found


def elements(f: BinaryIO, offset: int) -> Iterator[Any]:
    """The elements of the array that starts at byte `offset` of `f`, one at a time."""
    f.seek(offset)
    yield from _items(_Window(f, offset))
