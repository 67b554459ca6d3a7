"""Where the providers file lives, and writing it and its copies safely: atomic, owner-only,
and never losing one. (No schema here: the start-up asks where the file is without loading
the pydantic schemas, ~80 ms, when there is none to read.)

- Every file written here is 0600 (`tempfile.mkstemp`) and replaces its target atomically; a
  folder created here is 0700, and the app's own config folder is tightened to 0700.
- `providers.toml.last-good` is the last copy that loaded fully (see provider_store).
- `providers.toml.broken-<time>` keeps a file that could not be loaded before it is replaced;
  when that copy cannot be made, the file is not replaced either.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

import platformdirs

from workbench.core.system.private_files import private_dir, remove_stale_temps

APP_NAME = "attention-workbench"
CONFIG_DIR_ENV = "WORKBENCH_CONFIG_DIR"
PROVIDERS_FILENAME = "providers.toml"
LAST_GOOD_SUFFIX = ".last-good"
BROKEN_SUFFIX = ".broken"


def default_config_dir() -> Path:
    """$WORKBENCH_CONFIG_DIR when set, else the per-user config directory of the OS."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def default_providers_path() -> Path:
    return default_config_dir() / PROVIDERS_FILENAME


LAST_GOOD_SUFFIX = ".last-good"
BROKEN_SUFFIX = ".broken"


def last_good_path(path: Path) -> Path:
    return path.with_name(path.name + LAST_GOOD_SUFFIX)


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` atomically as a 0600 file (its folder made 0700 if missing)."""
    private_dir(path.parent)
    _replace_atomically(path, text.encode("utf-8"))


def _replace_atomically(target: Path, data: bytes) -> None:
    """`target` holds `data` or is untouched: a 0600 temp file beside it, synced, renamed
    (temp files a killed save left beside it are removed first)."""
    remove_stale_temps(target)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def keep_broken_copy(path: Path) -> Path:
    """Copy the file at `path` to `<name>.broken-<time>` (0600) and return the copy's path.

    Raises OSError when the file cannot be read or the copy cannot be written: the caller must
    then leave the file alone.
    """
    if not path.is_file():
        raise IsADirectoryError(f"{path} is not a regular file")
    data = path.read_bytes()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}{BROKEN_SUFFIX}-{stamp}")
    n = 2
    while target.exists():
        target = path.with_name(f"{path.name}{BROKEN_SUFFIX}-{stamp}-{n}")
        n += 1
    _replace_atomically(target, data)
    return target


def write_last_good(path: Path, text: str) -> None:
    """Refresh `path`'s last-good copy with `text` (nothing to do when it is the same)."""
    backup = last_good_path(path)
    with contextlib.suppress(OSError):
        if backup.is_file() and backup.read_text(encoding="utf-8") == text:
            return
        write_private(backup, text)
