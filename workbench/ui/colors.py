"""One colour per model, everywhere (pane, badge, curves, bars, sweep, summary, PDF); on the
Kernels tab an attention variant takes its built-in twin model's.

A model's colour is assigned once and remembered in the data directory (`model_colors.json`
beside the history), so it keeps its meaning across runs, sessions and the CLI's summary. A new
model takes the first colour of PALETTE that no remembered model holds: the palette is in
Glasbey order (scripts/make_palette.py), so the first models ever seen get the most distinct
colours, and the first 32 never share one. Past that, or where an old assignment clashes, the
models shown together are what must differ: `model_colors` gives each a colour no other model on
screen has, keeping the remembered one unless an earlier model in the same view holds it, and
remembers a colour it had to change.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

from workbench.core.foundation.results import Target
from workbench.core.run.plan import LOCAL_PROVIDER
from workbench.core.system.data_dir import default_data_dir
from workbench.ui.panes_model import pane_title

log = logging.getLogger(__name__)

# 32 colours from scripts/make_palette.py: each at least 10.6 CIEDE2000 from every other, 3:1
# contrast on the light theme's white and the dark theme's chart alike (a white badge text
# reads on each), no greys and nothing near the failure red (hatched bars, error text)
PALETTE = (
    "#9000ff", "#37a600", "#de7a0b", "#009be9", "#ff4e90", "#007a6f", "#7a6400", "#9085bc",
    "#904e7a", "#2c64b1", "#e94eff", "#909059", "#4e6f37", "#00a67a", "#0090a6", "#6f59a6",
    "#b18500", "#6f6fff", "#de00a6", "#b16f90", "#648500", "#006f90", "#a664bc", "#9b7a4e",
    "#6f90d3", "#164eff", "#649059", "#008516", "#008559", "#a62cb1", "#439b90", "#909000",
)  # fmt: skip
FILENAME = "model_colors.json"
NO_MODEL_GREY = "#7f8c8d"  # a pane's top border before a model is chosen


def _key(provider: str, model: str) -> str:
    return f"{provider}|{model}"


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
        return self.colors([(provider, model)])[0]

    def colors(self, shown: Sequence[tuple[str, str]]) -> list[str]:
        """A colour per (provider, model) shown together, no two models alike (one model shown
        twice keeps one colour)."""
        keys = [_key(*pair) for pair in shown]
        if any(k not in self._colors for k in keys):  # another process may have assigned it
            self._colors = {**self._read(), **self._colors}
        given: dict[str, str] = {}
        changed = False
        for key in dict.fromkeys(keys):
            color = self._colors.get(key)
            if color is None or color in given.values():
                color = self._free(set(given.values()))
                self._colors[key] = color
                changed = True
            given[key] = color
        if changed:
            self._save()
        return [given[k] for k in keys]

    def _free(self, on_screen: set[str]) -> str:
        """A colour no model on screen has: the first no remembered model holds, else the one
        the fewest hold."""
        held = list(self._colors.values())
        choices = [c for c in PALETTE if c not in on_screen] or list(PALETTE)
        return min(choices, key=lambda c: (held.count(c), PALETTE.index(c)))

    def _save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self._colors, indent=1, sort_keys=True), encoding="utf-8")
            tmp.replace(self.path)
        except OSError as exc:  # colours still hold for this session
            log.warning("could not remember model colours in %s: %s", self.path, exc)


_by_dir: dict[Path, ModelColors] = {}


def _remembered() -> ModelColors:
    path = default_data_dir() / FILENAME
    colors = _by_dir.get(path)
    if colors is None:
        colors = _by_dir[path] = ModelColors(path)
    return colors


def model_colors(shown: Sequence[tuple[str, str]]) -> list[str]:
    """The colours of the (provider, model) pairs one view shows together: all different."""
    return _remembered().colors(shown)


def model_color(provider: str, model: str) -> str:
    """The colour of (provider, model) when it is the only one shown."""
    return model_colors([(provider, model)])[0]


def pane_colors(targets: Sequence[Target | None]) -> list[str]:
    """The panes' colours, as their charts and headers show them (grey: no model chosen)."""
    named = [(t.provider, pane_title(t)) for t in targets if t is not None]
    colors = iter(model_colors(named))
    return [NO_MODEL_GREY if t is None else next(colors) for t in targets]


def variant_colors(variants: Sequence[str]) -> list[str]:
    """The Kernels tab's colour of each attention variant (MHA, GQA, ...): its built-in 70B
    twin's (kernels_bridge/shape_sets.py names them sim-70b-<variant>), so MHA on the Kernels
    tab is sim-70b-mha's colour in Compare, the Sweep and the Summary."""
    return model_colors([(LOCAL_PROVIDER, f"sim-70b-{v.lower()}") for v in variants])
