"""One colour per model, everywhere (pane, badge, curves, bars, sweep, summary, PDF).

A model's colour is assigned once and remembered in the data directory (`model_colors.json`
beside the history), so it keeps its meaning across runs, sessions and the CLI's summary. A
plain hash of the name would be stable too, but two of four models would share one of twelve
colours about 43 % of the time; an assignment starts at the hash's slot and takes the next free
one, so the first twelve models ever compared never share a colour, and two machines mostly agree.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from workbench.core.run_history import default_data_dir

log = logging.getLogger(__name__)

# Tableau 10's hues and three more, distinct on white and on a dark chart background; no pure
# red, which is kept for failures (hatched bars, error text).
PALETTE = (
    "#4e79a7", "#f28e2b", "#7f3c8d", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f3a93", "#8cd17d",
)  # fmt: skip
FILENAME = "model_colors.json"


def _key(provider: str, model: str) -> str:
    return f"{provider}|{model}"


def _slot(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:4], "big") % len(PALETTE)


class ModelColors:
    """The remembered assignment in one data directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._colors = self._read()

    def _read(self) -> dict[str, str]:
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
            return {
                str(k): str(v) for k, v in loaded.items() if isinstance(v, str) and v in PALETTE
            }
        except (OSError, ValueError, AttributeError):
            return {}

    def color(self, provider: str, model: str) -> str:
        key = _key(provider, model)
        known = self._colors.get(key)
        if known is not None:
            return known
        self._colors = {**self._read(), **self._colors}  # another process may have assigned it
        if key in self._colors:
            return self._colors[key]
        used = set(self._colors.values())
        start = _slot(key)
        free = [PALETTE[(start + i) % len(PALETTE)] for i in range(len(PALETTE))]
        chosen = next((c for c in free if c not in used), PALETTE[start])
        self._colors[key] = chosen
        self._save()
        return chosen

    def _save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self._colors, indent=1, sort_keys=True), encoding="utf-8")
            tmp.replace(self.path)
        except OSError as exc:  # colours still hold for this session
            log.warning("could not remember model colours in %s: %s", self.path, exc)


_by_dir: dict[Path, ModelColors] = {}


def model_color(provider: str, model: str) -> str:
    """The colour of (provider, model), assigned on first use and then for good."""
    path = default_data_dir() / FILENAME
    colors = _by_dir.get(path)
    if colors is None:
        colors = _by_dir[path] = ModelColors(path)
    return colors.color(provider, model)
