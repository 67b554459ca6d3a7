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


def _named_modules(contract: dict[str, object]) -> list[str]:
    """The modules a contract names: a layers contract's container and each layer's folders."""
    if contract["type"] == "layers":
        layers = [n.strip() for layer in contract["layers"] for n in str(layer).split("|")]  # type: ignore[attr-defined]
        return [*contract["containers"], *layers]  # type: ignore[misc]
    return [*contract["source_modules"], *contract["forbidden_modules"]]  # type: ignore[misc]


def test_the_architecture_page_names_each_contracts_modules() -> None:
    bullets = _layout_bullets()
    for contract in _contracts():
        text = bullets[str(contract["id"])]
        named = set(re.findall(r"`([A-Za-z0-9_.]+)`", text))
        missing = [m for m in _named_modules(contract) if m not in named]
        assert not missing, f"architecture.md's {contract['id']} bullet does not name {missing}"
        direct_only = bool(contract.get("allow_indirect_imports"))
        assert ("themselves" in text) == direct_only, contract["id"]


def test_the_layers_of_core_are_drawn_in_the_pages_order() -> None:
    """The folder map's order (top to bottom) is the contract's, so the page cannot drift."""
    (contract,) = [c for c in _contracts() if c["type"] == "layers"]
    text = " ".join(_layout_bullets()[str(contract["id"])].split())
    order = [m for m in re.findall(r"`([a-z_]+)`", text) if m != "workbench.core"]
    expected = [n.strip() for layer in contract["layers"] for n in str(layer).split("|")]  # type: ignore[attr-defined]
    assert order == expected
