"""Where the app keeps its data (history, logs, calibrations): one folder per user."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "attention-workbench"
DATA_DIR_ENV = "WORKBENCH_DATA_DIR"


def default_data_dir() -> Path:
    """$WORKBENCH_DATA_DIR when set, else the per-user data directory of the OS."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
