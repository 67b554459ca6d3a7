"""The `data` payloads of a Server-Sent Events body, split within caps, without the SDK.

Plain methods instead of the layered async iterators (the SDK's line iterator over httpx's byte
iterator over aiohttp's): each read of the body is one call that returns its lines, and the
events of those lines come from one cheap generator. The caps hold exactly as before: the body
is checked at every read, each line as soon as its read is split, each event as it grows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from workbench.core.foundation.errors import Oversized

KiB = 1 << 10
MiB = 1 << 20
MAX_LINE_BYTES = 1 * MiB  # one SSE line (a chunk of one token is ~200 bytes)
MAX_EVENT_BYTES = 1 * MiB  # the data of one SSE event, i.e. one chunk's JSON

_EOL = re.compile(rb"\r\n|\r|\n")


class SSESplitter:
    """Feed it the body's reads in order; it returns lines, then the events of those lines."""

    def __init__(self, body_limit: int, max_tokens: int) -> None:
        self.body_limit = body_limit
        self.max_tokens = max_tokens
        self.received = 0  # body bytes
        self._pending = b""  # the unfinished last line of the reads so far
        self._data: list[bytes] = []  # the data lines of the event being read
        self._size = 0
        self.cut_event: bytes | None = None  # the body's last event, if no blank line closed it

    def lines(self, piece: bytes) -> list[bytes]:
        """The complete lines (ending in CRLF, LF or CR) this read finishes, none longer than
        MAX_LINE_BYTES, the body no longer than its limit; bytes, so that only each event's
        JSON is decoded."""
        self.received += len(piece)
        if self.received > self.body_limit:
            raise Oversized(
                f"the response body passed {self.body_limit} bytes, the cap for "
                f"max_tokens={self.max_tokens} (1 MiB + 4 KiB per token); stopped reading"
            )
        data = self._pending + piece if self._pending else piece
        held = b""
        if data.endswith(b"\r"):  # maybe the first half of a CRLF split across two reads
            data, held = data[:-1], b"\r"
        lines = _EOL.split(data) if b"\r" in data else data.split(b"\n")
        self._pending = lines.pop() + held
        if len(self._pending) > MAX_LINE_BYTES or (
            len(data) > MAX_LINE_BYTES and any(len(x) > MAX_LINE_BYTES for x in lines)
        ):
            raise Oversized(f"an SSE line passed {MAX_LINE_BYTES} bytes; stopped reading")
        return lines

    def last_lines(self) -> list[bytes]:
        """At the end of the body: its unfinished last line, if it holds anything."""
        tail, self._pending = self._pending.rstrip(b"\r"), b""
        return [tail] if tail else []

    def events(self, lines: list[bytes]) -> Iterator[bytes]:
        """The data payloads these lines complete (multi-line data joined by \\n). `event:`,
        `id:`, `retry:` and `:` comment lines carry nothing we measure."""
        for line in lines:
            if not line:
                if self._data:
                    data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
                    self._data, self._size = [], 0
                    yield data
                continue
            if line.startswith(b"data:"):
                value = line[6:] if line.startswith(b"data: ") else line[5:]
                self._size += len(value) + 1
                if self._size > MAX_EVENT_BYTES:
                    raise Oversized(f"an SSE event passed {MAX_EVENT_BYTES} bytes; stopped reading")
                self._data.append(value)

    def last_event(self) -> bytes | None:
        """At the end of the body: an event whose closing blank line never came."""
        if not self._data:
            return None
        data, self._data, self._size = b"\n".join(self._data), [], 0
        self.cut_event = data
        return data
