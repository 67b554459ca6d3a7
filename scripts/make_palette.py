"""Generate the model palette of workbench/ui/colors.py (PALETTE): run it, paste its output.

Glasbey's method: from a grid over sRGB, take colours one at a time, each the one farthest
(CIEDE2000) from every colour taken so far, so any prefix of the list is as distinct as the
greedy method gets. Candidates must keep 3:1 contrast (WCAG 2 non-text contrast) against both
chart backgrounds, the light theme's white and the dark theme's #17181a, so a curve or a badge
with white text reads in both; greys are left out (no model chosen, imported points) and so
is anything near the failure red. The order is part of the output: a new model takes the
first colour no remembered model holds.

    python scripts/make_palette.py [count]
"""

from __future__ import annotations

import sys

import numpy as np

LIGHT_BG, DARK_BG = "#ffffff", "#17181a"
# CIEDE2000 at least this far from: the failure red (farther: red means failed, never a model),
# the no-model grey, and the sweep's colours for imported runs' points
AVOID = {"#c0392b": 25.0, "#7f8c8d": 12.0, "#7f7f7f": 12.0, "#17becf": 12.0, "#bcbd22": 12.0,
         "#e377c2": 12.0}  # fmt: skip
MIN_CONTRAST = 3.0
MIN_CHROMA = 28.0  # C*ab: below this a colour reads as a grey
GRID = 24  # steps per sRGB channel


def _linear(rgb: np.ndarray) -> np.ndarray:
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _hex(text: str) -> np.ndarray:
    return np.array([int(text[i : i + 2], 16) / 255 for i in (1, 3, 5)])


def luminance(rgb: np.ndarray) -> np.ndarray:
    return _linear(rgb) @ np.array([0.2126, 0.7152, 0.0722])


def contrast(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    hi, lo = np.maximum(a, b), np.minimum(a, b)
    return (hi + 0.05) / (lo + 0.05)


def lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB (0..1, rows) to CIELAB under D65."""
    m = np.array(
        [[0.4124564, 0.3575761, 0.1804375],
         [0.2126729, 0.7151522, 0.0721750],
         [0.0193339, 0.1191920, 0.9503041]]
    )  # fmt: skip
    xyz = _linear(rgb) @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack(
        [116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1
    )


def ciede2000(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ΔE00 between each row of `a` and the single colour `b` (Sharma, Wu, Dalal 2005)."""
    l1, a1, b1 = a[:, 0], a[:, 1], a[:, 2]
    l2, a2, b2 = b
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    cbar7 = ((c1 + c2) / 2) ** 7
    g = 0.5 * (1 - np.sqrt(cbar7 / (cbar7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dlp, dcp = l2 - l1, c2p - c1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(c1p * c2p == 0, 0, dh)
    dhp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    lbar, cbarp = (l1 + l2) / 2, (c1p + c2p) / 2
    hsum = h1p + h2p
    hbar = np.where(
        c1p * c2p == 0,
        hsum,
        np.where(
            np.abs(h1p - h2p) <= 180, hsum / 2, np.where(hsum < 360, hsum + 360, hsum - 360) / 2
        ),
    )
    t = (
        1 - 0.17 * np.cos(np.radians(hbar - 30)) + 0.24 * np.cos(np.radians(2 * hbar))
        + 0.32 * np.cos(np.radians(3 * hbar + 6)) - 0.20 * np.cos(np.radians(4 * hbar - 63))
    )  # fmt: skip
    sl = 1 + 0.015 * (lbar - 50) ** 2 / np.sqrt(20 + (lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * cbarp, 1 + 0.015 * cbarp * t
    cbarp7 = cbarp**7
    rt = (
        -2 * np.sqrt(cbarp7 / (cbarp7 + 25.0**7))
        * np.sin(np.radians(60 * np.exp(-(((hbar - 275) / 25) ** 2))))
    )  # fmt: skip
    return np.sqrt(
        (dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp / sh) ** 2 + rt * (dcp / sc) * (dhp / sh)
    )


def candidates() -> np.ndarray:
    steps = np.linspace(0, 1, GRID)
    rgb = np.array(np.meshgrid(steps, steps, steps, indexing="ij")).reshape(3, -1).T
    y = luminance(rgb)
    keep = (contrast(y, luminance(_hex(LIGHT_BG))) >= MIN_CONTRAST) & (
        contrast(y, luminance(_hex(DARK_BG))) >= MIN_CONTRAST
    )
    values = lab(rgb)
    keep &= np.hypot(values[:, 1], values[:, 2]) >= MIN_CHROMA
    for avoid, distance in AVOID.items():
        keep &= ciede2000(values, lab(_hex(avoid)[None, :])[0]) >= distance
    return rgb[keep]


def palette(count: int) -> tuple[list[str], float]:
    """`count` colours in Glasbey order, and the smallest ΔE00 between any two of them."""
    rgb = candidates()
    values = lab(rgb)
    # the first colour: the most saturated candidate; then each the farthest from those taken
    nearest = np.full(len(rgb), np.inf)
    chosen: list[int] = []
    for _ in range(count):
        chroma = np.hypot(values[:, 1], values[:, 2])
        pick = int(np.argmax(nearest)) if chosen else int(np.argmax(chroma))
        chosen.append(pick)
        nearest = np.minimum(nearest, ciede2000(values, values[pick]))
    spread = min(
        float(ciede2000(values[[i]], values[j])[0]) for i in chosen for j in chosen if i < j
    )
    names = ["#" + "".join(f"{round(c * 255):02x}" for c in rgb[i]) for i in chosen]
    return names, spread


if __name__ == "__main__":
    colours, spread = palette(int(sys.argv[1]) if len(sys.argv) > 1 else 32)
    print(f"# {len(colours)} colours, smallest CIEDE2000 between two: {spread:.1f}")
    for i in range(0, len(colours), 8):
        print("    " + " ".join(f'"{c}",' for c in colours[i : i + 8]))
