"""PySide6 reads the source of every module imported after it: its import hook asks, of each new
module, whether the text "PySide6" appears in it, for the opt-in `from __feature__ import
snake_case` (which this app never uses). That read costs ~30-45 ms before the first paint.

`skip()` answers that question without reading: every module counts as a plain PySide user,
which selects no feature, the behaviour a module gets when it imports no `__feature__`. Should a
later PySide6 rename the hook's helper, nothing is changed and the scan simply runs as before.
"""

from __future__ import annotations

import sys
from types import ModuleType


def _uses_pyside(_module: ModuleType) -> bool:
    return True


def skip() -> bool:
    """Turn the source scan off; True when PySide6 had the helper to replace."""
    import PySide6.QtCore  # noqa: F401 - installs the hook and loads its helper module

    feature = sys.modules.get("PySide6.support.feature")
    if feature is None or not callable(getattr(feature, "_mod_uses_pyside", None)):
        return False
    feature._mod_uses_pyside = _uses_pyside  # type: ignore[attr-defined]
    return True
