"""Where the shipped resources (corpus, catalog, translations, icons) live."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The `resources/` folder: beside the package in a checkout, inside the bundle when frozen."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)
