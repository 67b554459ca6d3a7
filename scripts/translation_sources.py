"""Print the modules that mark strings for translation, one path a line, from the repository root.

A module marks a string when it calls `self.tr("...")`, `QCoreApplication.translate("...", ...)`,
`QT_TRANSLATE_NOOP("...", ...)` or `QT_TR_NOOP("...")` with a literal.
scripts/update_translations.sh hands this list to pyside6-lupdate and tests/test_translations.py
does the same, so a new module's strings reach the .ts file without anyone listing it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("workbench", "kernels_bridge")
MARK = re.compile(r"""(?:\btr|\btranslate|\bQT_TRANSLATE_NOOP|\bQT_TR_NOOP)\(\s*(?:r|f)?["']""")


def sources(root: Path = ROOT) -> list[Path]:
    """Every module under the packages with a marked string, sorted, relative to `root`."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "__pycache__" not in path.parts and MARK.search(path.read_text(encoding="utf-8")):
                found.append(path.relative_to(root))
    return found


if __name__ == "__main__":
    sys.stdout.write("".join(f"{path}\n" for path in sources()))
