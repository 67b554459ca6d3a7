"""Files that hold model output, hosts or accounts: owner-only (0600) in owner-only folders (0700).

One home for the rule, used by the run history, the calibration file, the providers file and
its copies, and exported files. Folders that already exist are left as they are, except the
app's own folders (`own=True`), which an older version may have left readable by others.
POSIX modes only: on Windows the bits are ignored and the user's profile folder protects them.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
STALE_TMP_S = 600.0  # a temp file this old beside its target was left by a killed save


def private_dir(folder: Path, *, own: bool = False) -> Path:
    """Create `folder` and any missing parents as 0700 folders; with `own`, tighten an existing
    one that others may read. Returns `folder`."""
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for created in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it first
            created.mkdir(mode=PRIVATE_DIR_MODE)
    if own and not missing:
        with contextlib.suppress(OSError):  # a folder we do not own keeps its mode
            mode = _tightened(os.stat(folder))
            if mode is not None:
                os.chmod(folder, mode)
    return folder


def private_file(path: Path) -> None:
    """Create `path` as 0600 when missing; tighten our own file when others may read it."""
    fd = os.open(path, os.O_RDONLY | os.O_CREAT, PRIVATE_FILE_MODE)
    try:
        info = os.fstat(fd)
        mode = _tightened(info) if stat.S_ISREG(info.st_mode) else None
        if mode is not None:
            os.fchmod(fd, mode)  # written by an older version with the umask's 0644
    finally:
        os.close(fd)


def _tightened(info: os.stat_result) -> int | None:
    """The owner-only mode for something of ours that others may read, else None."""
    geteuid = getattr(os, "geteuid", None)  # POSIX only
    mode = stat.S_IMODE(info.st_mode)
    if geteuid is None or not mode & 0o077 or info.st_uid != geteuid():
        return None
    return mode & ~0o077


def remove_stale_temps(path: Path) -> None:
    """Remove `<name>.*.tmp` files beside `path` older than STALE_TMP_S: what an atomic save
    killed between its temp file and the rename left (a save in progress is younger)."""
    now = time.time()
    for stale in path.parent.glob(f"{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            if now - stale.stat().st_mtime > STALE_TMP_S:
                stale.unlink()
