"""The Kernels tab's choices kept between launches in the window's QSettings, as the rest of
the window's layout is: variants, KV lengths, batch, q_len, dtype, backend, iterations, roofline
profile and which worker. The worker's token is a secret and is never written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings

if TYPE_CHECKING:
    from workbench.ui.kernels_view import KernelsView

GROUP = "kernels/"


def _strings(value: object) -> list[str]:
    """A list QSettings gives back: a list, one string (a one-item list in an INI) or None."""
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value] if isinstance(value, list | tuple) else []


def save_kernels(view: KernelsView, settings: QSettings) -> None:
    c = view.choices
    values: dict[str, object] = {
        "variants": c.variants() or [""],
        "kv_lens": [str(n) for n in c.kv_lens()] or [""],
        "batch": c.batch.value(),
        "q_len": c.q_len.value(),
        "dtype": c.dtype.currentData(),
        "backend": c.backend.currentData(),
        "iters": c.iters.value(),
        "profile": c.profile.currentData(),
        "worker_mode": view.worker_mode.currentData(),
        "python": view.python_edit.text(),
        "host": view.worker_row.host_edit.text(),
    }
    for key, value in values.items():
        settings.setValue(GROUP + key, value)


def restore_kernels(view: KernelsView, settings: QSettings) -> None:
    """The last launch's choices; a value missing or no longer offered keeps the default."""

    def get(key: str) -> object:
        return settings.value(GROUP + key)

    if get("variants") is None:
        return  # a first launch: the tab's defaults
    c = view.choices
    c.set_variants([v for v in _strings(get("variants")) if v])
    c.set_kv_lens([int(n) for n in _strings(get("kv_lens")) if n.isdigit()])
    for box, key in ((c.batch, "batch"), (c.q_len, "q_len"), (c.iters, "iters")):
        text = str(get(key) or "")
        if text.isdigit():
            box.setValue(int(text))
    # set_dtype and set_profile mark them the user's: a worker's defaults then leave them
    if c.dtype.findData(get("dtype")) >= 0:
        c.set_dtype(str(get("dtype")))
    if c.profile.findData(get("profile")) >= 0:
        c.set_profile(str(get("profile")))
    if c.backend.findData(get("backend")) >= 0:
        c.set_backend(str(get("backend")))
    view.python_edit.setText(str(get("python") or ""))
    view.worker_row.host_edit.setText(str(get("host") or ""))
    mode = view.worker_mode.findData(get("worker_mode"))
    if mode >= 0:
        view.worker_mode.setCurrentIndex(mode)
