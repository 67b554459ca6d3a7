"""The prompt-size calibrations learned in earlier runs, kept in the data folder
(`calibration.json`) for the app and the CLI alike."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from workbench.core.load.prompts import Calibration
from workbench.core.system.data_dir import default_data_dir
from workbench.core.system.private_files import private_dir, remove_stale_temps

CALIBRATION_FILENAME = "calibration.json"


def load_calibration(path: Path | None = None) -> Calibration:
    """Learned prompt-size calibrations from earlier runs; an unreadable file starts afresh."""
    path = path or default_data_dir() / CALIBRATION_FILENAME
    try:
        return Calibration.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return Calibration()


def save_calibration(calibration: Calibration, path: Path | None = None) -> None:
    """Write atomically (a crash never leaves half a file), 0600 in a 0700 folder.

    Each save writes its own temp file (two processes never share one); temp files left by a
    killed save are removed by the next one.
    """
    path = path or default_data_dir() / CALIBRATION_FILENAME
    private_dir(path.parent)
    remove_stale_temps(path)
    fd, tmp = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:  # mkstemp makes it 0600
            handle.write(json.dumps(calibration.to_dict()))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
