"""The one reader for files that come from outside (result files, provider configs): regular
files only, bytes counted while reading, nesting depth and YAML aliases capped.

A FIFO, a device or a socket is refused before anything is read: `st_size` is 0 for them, so a
size check alone would read /dev/zero until memory ran out, and a FIFO with no writer blocks.
Parsers get a depth cap, so a document nested 200,000 deep is a clear error, not a
RecursionError traceback, and a YAML alias (a "billion laughs" bomb expands a kilobyte into
gigabytes) is refused: no result or config file needs one.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

MAX_DEPTH = 64  # nesting of a YAML document, and of anything kept from a file; files need < 10
_CHUNK = 1024 * 1024


class NotARegularFile(OSError):
    """The path is a FIFO, a device, a socket or a folder, where a file was expected."""


class TooLarge(OSError):
    """More bytes than the caller's limit were read (counted, not taken from st_size)."""


class TooDeep(ValueError):
    """A document nested deeper than MAX_DEPTH (or than the parser can follow)."""


class AliasRefused(ValueError):
    """A YAML document uses an alias (`*name`)."""


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _refuse_special(path: Path, mode: int, what: str) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise NotARegularFile(f"{path} is {kind}, not {what}")


def open_regular(path: Path, what: str = "a file") -> BinaryIO:
    """`path` opened for reading when it is a regular file (a symlink to one is fine);
    NotARegularFile otherwise.

    Opened non-blocking and checked with fstat before anything is read: opening or reading a
    FIFO with no writer would wait forever, and a device may never end.
    """
    _refuse_special(path, os.stat(path).st_mode, what)  # a socket cannot even be opened
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    try:
        _refuse_special(path, os.fstat(fd).st_mode, what)  # what was opened, if it changed
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: Path, limit: int, what: str = "a file") -> bytes:
    """The whole regular file at `path`, at most `limit` bytes; TooLarge past it.

    The bytes are counted as they arrive: a file that grows while it is read, or a size the
    file system misreports, cannot make this read more than `limit` + one chunk."""
    parts: list[bytes] = []
    total = 0
    with open_regular(path, what) as f:
        while chunk := f.read(min(_CHUNK, limit + 1 - total)):
            total += len(chunk)
            if total > limit:
                raise TooLarge(f"{path} holds more than {limit:,} bytes, more than {what} can")
            parts.append(chunk)
    return b"".join(parts)


def json_loads(text: str, **options: Any) -> Any:
    """json.loads, with nesting too deep for the parser as TooDeep (not a RecursionError)."""
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise TooDeep("nested deeper than the JSON reader follows") from None


def yaml_load(text: str) -> Any:
    """YAML through PyYAML's safe loader (no tags that run code), refusing aliases and
    nesting deeper than MAX_DEPTH. ImportError when PyYAML is not installed.

    With libyaml built in, its parser's events are checked first, then its safe loader builds
    the document: about 6x the pure-Python loader (3 s for a 370 KB guidellm report)."""
    import yaml  # type: ignore[import-untyped]

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is None:
        return _yaml_load_pure(text)
    depth = 0
    try:
        for event in yaml.parse(text, Loader=fast):
            if isinstance(event, yaml.AliasEvent):
                _refuse_alias(event.start_mark)
            opens = isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent))
            if opens or isinstance(event, yaml.ScalarEvent):
                # a node's depth as the pure loader's compose_node counts it: a scalar too
                if depth + 1 > MAX_DEPTH:
                    _refuse_depth(event.start_mark)
                depth += opens
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
        return yaml.load(text, Loader=fast)  # CSafeLoader: the safe loader, in C
    except RecursionError:
        raise TooDeep(f"nested more than {MAX_DEPTH} deep") from None
    except yaml.YAMLError as error:  # libyaml's own cap (1,000) is met before the first event
        if "nesting depth" not in str(getattr(error, "problem", "")):
            raise
        raise TooDeep(f"nested more than {MAX_DEPTH} deep") from None


def _refuse_alias(mark: Any) -> None:
    raise AliasRefused(
        f"line {mark.line + 1}: a YAML alias (*name); result and config files "
        "need none, and one can expand a small file into gigabytes"
    )


def _refuse_depth(mark: Any) -> None:
    raise TooDeep(f"line {mark.line + 1}: nested more than {MAX_DEPTH} deep")


def _yaml_load_pure(text: str) -> Any:
    """yaml_load with PyYAML's pure-Python loader (no libyaml): the same checks, as it composes."""
    import yaml

    class _Loader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML has no type hints
        _depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                _refuse_alias(self.peek_event().start_mark)
            self._depth += 1
            try:
                if self._depth > MAX_DEPTH:
                    _refuse_depth(self.peek_event().start_mark)
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    loader = _Loader(text)
    try:
        return loader.get_single_data()
    except RecursionError:
        raise TooDeep(f"nested more than {MAX_DEPTH} deep") from None
    finally:
        loader.dispose()


def check_plain(value: Any, where: str, *, max_chars: int = 4096, depth: int = 8) -> None:
    """ValueError naming `where` unless `value` is plain JSON data (text, finite numbers,
    booleans, null, lists, objects with text keys) no deeper than `depth` whose JSON text is at
    most `max_chars`: what a file may put into our own records."""
    budget = [max_chars]

    def walk(item: Any, at: str, level: int) -> None:
        if level > depth:
            raise ValueError(f"{at} is nested more than {depth} deep")
        if isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str):
                    raise ValueError(f"{at} has a key that is not text ({key!r:.40})")
                spend(len(key) + 4, at)
                walk(inner, f"{at}.{key[:40]}", level + 1)
        elif isinstance(item, list):
            for j, inner in enumerate(item):
                spend(2, at)
                walk(inner, f"{at}[{j}]", level + 1)
        elif isinstance(item, str):
            spend(len(item) + 2, at)
        elif isinstance(item, float) and math.isfinite(item):
            spend(24, at)
        elif item is None or isinstance(item, bool | int):
            spend(item.bit_length() // 3 + 2 if isinstance(item, int) else 5, at)
        else:
            raise ValueError(f"{at} is {type(item).__name__} {item!r:.40}, not plain data")

    def spend(chars: int, at: str) -> None:
        budget[0] -= chars
        if budget[0] < 0:
            raise ValueError(f"{at} is longer than {max_chars:,} characters")

    walk(value, where, 0)
