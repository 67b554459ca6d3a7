"""docs/architecture.md's "Layers" section and the import-linter contracts say the same thing."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _contracts() -> list[dict[str, object]]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return pyproject["tool"]["importlinter"]["contracts"]


def _layout_bullets() -> dict[str, str]:
    """`{contract id: its bullet's text}` from docs/architecture.md's "## Layers" section."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    bullets = re.findall(r"^- \*\*([a-z-]+)\*\*: (.*?)(?=^- |^\s*$)", section, re.M | re.S)
    return {name: " ".join(text.split()) for name, text in bullets}


def test_the_architecture_page_lists_every_layer_contract_and_no_other() -> None:
    assert sorted(_layout_bullets()) == sorted(str(c["id"]) for c in _contracts())


def test_the_architecture_page_names_each_contracts_modules() -> None:
    bullets = _layout_bullets()
    for contract in _contracts():
        text = bullets[str(contract["id"])]
        named = set(re.findall(r"`([A-Za-z0-9_.]+)`", text))
        modules = [*contract["source_modules"], *contract["forbidden_modules"]]
        missing = [m for m in modules if m not in named]
        assert not missing, f"architecture.md's {contract['id']} bullet does not name {missing}"
        direct_only = bool(contract.get("allow_indirect_imports"))
        assert ("themselves" in text) == direct_only, contract["id"]
