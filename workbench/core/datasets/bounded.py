"""Read a dataset file within bounds: a regular file only, at most `max_bytes` counted while
reading (a file that grows while read is still cut off), UTF-8.

Minimal and self-contained on purpose: a shared bounded reader is being written elsewhere
(core/bounded_read.py); this one can be switched to it without changing its callers.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from workbench.core.datasets.model import DatasetError

MAX_BYTES = 256 * 1024 * 1024  # 256 MiB: a day of a busy trace fits, a wrong file does not
_CHUNK = 1024 * 1024


def read_text(path: Path, max_bytes: int = MAX_BYTES) -> str:
    """The file's text; DatasetError naming the cause and the fix."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise DatasetError(f"{path}: cannot open it ({exc.strerror}); check the path") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise DatasetError(f"{path} is not a regular file; give a dataset file's path")
    with os.fdopen(fd, "rb") as handle:
        chunks: list[bytes] = []
        size = 0
        while chunk := handle.read(_CHUNK):
            size += len(chunk)
            if size > max_bytes:
                raise DatasetError(
                    f"{path} is over {max_bytes:,} bytes; cut it to fewer rows "
                    "(head -n N for JSONL or CSV)"
                )
            chunks.append(chunk)
    try:
        return b"".join(chunks).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(
            f"{path}: byte {exc.start} is not UTF-8; save the file as UTF-8"
        ) from None
