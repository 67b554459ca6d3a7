"""docs/architecture.md names every module under workbench/ and kernels_bridge/, and nothing else.

The page's tables sit under headings that name a folder (`## \\`workbench/\\``,
`### \\`workbench/core/\\``, ...); a module is named when the section of its deepest such folder
holds it in backticks, as its file name, its path from that folder, or (for `commands/`) its
command's name. A `.py` name in a section that no file answers to is a module that moved or left.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGES = ("workbench", "kernels_bridge")
HEADING = re.compile(r"^#{2,3} `([a-z_]+(?:/[a-z_]+)*/)`", re.M)


def _sections() -> dict[str, str]:
    """`{folder: the text of its section}` for each heading that names a folder."""
    text = re.sub(r"```.*?```", "", PAGE.read_text(encoding="utf-8"), flags=re.S)
    sections: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("#"):
            match = HEADING.match(line)
            current = match.group(1) if match else None
            if current:
                sections[current] = ""
        elif current:
            sections[current] += line + "\n"
    return sections


def _modules() -> list[Path]:
    return sorted(
        path.relative_to(ROOT)
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if path.name != "__init__.py" and "__pycache__" not in path.parts
    )


def _home(module: Path, sections: dict[str, str]) -> str:
    homes = [folder for folder in sections if module.as_posix().startswith(folder)]
    assert homes, f"docs/architecture.md has no section for {module.parent}/"
    return max(homes, key=len)


def test_the_page_has_a_section_for_each_package() -> None:
    assert {"workbench/", "workbench/core/", "workbench/ui/", "kernels_bridge/"} <= set(_sections())


def test_every_module_is_named_in_its_folders_section() -> None:
    sections = _sections()
    unnamed = []
    for module in _modules():
        home = _home(module, sections)
        named = set(re.findall(r"`([^`\s]+)`", sections[home]))
        inside = module.as_posix()[len(home) :]
        command = module.stem if module.parent.name == "commands" else None
        if not {module.name, inside, command} & named:
            unnamed.append(module.as_posix())
    assert not unnamed, f"docs/architecture.md names no entry for {unnamed}: add a line for each"


def test_every_module_the_page_names_exists() -> None:
    sections = _sections()
    gone = []
    for folder, text in sections.items():
        here = [p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts]
        names = {p.name for p in here} | {p.relative_to(ROOT / folder).as_posix() for p in here}
        for name in re.findall(r"`([a-z_/]+\.py)`", text):
            # a module of another folder, named by its path from workbench/ or the root
            elsewhere = (ROOT / "workbench" / name).exists() or (ROOT / name).exists()
            if name not in names and not elsewhere:
                gone.append(f"{folder}: {name}")
    assert not gone, f"docs/architecture.md names modules that do not exist: {gone}"
