"""Where the shipped resources (corpus, catalog, translations, icons) live.

The top-level `resources/` folder is the package `workbench._resources` (pyproject.toml maps
it), so `importlib.resources` finds it the same way in a checkout (an editable install), an
installed wheel and the frozen app (build.spec collects it under that name).
"""

from __future__ import annotations

import functools
from importlib import resources as _importlib_resources
from pathlib import Path

PACKAGE = "workbench._resources"


class ResourcesMissing(RuntimeError):
    """The data files are not where the install should have put them."""


@functools.cache
def resources_dir() -> Path:
    """The folder holding models.toml, hardware.toml, corpus/, translations/ and icons/."""
    try:
        root = _importlib_resources.files(PACKAGE)
    except ModuleNotFoundError as exc:
        raise ResourcesMissing(
            f"the app's data package {PACKAGE} is not installed: reinstall attention-workbench "
            "(in a checkout: scripts/bootstrap.sh, which runs `pip install -e .`)"
        ) from exc
    # a wheel installs unzipped, and the frozen app keeps its data on disk: a real folder
    path = Path(str(root))
    if not (path / "models.toml").is_file():
        raise ResourcesMissing(
            f"{PACKAGE} at {path} has no models.toml: the install is incomplete; reinstall "
            "attention-workbench"
        )
    return path


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)
