"""Rooms of one concern stay small: no module over 600 lines, no function over 80 lines unless
a `# one function: <why>` comment just above it (or inside it) says why it must be one."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("workbench", "kernels_bridge")
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
MARK = "# one function:"
# (path, function) pairs still over the limit, each with the work that will fix it
ALLOWED_LONG_FUNCTIONS: dict[tuple[str, str], str] = {}


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def long_modules() -> list[str]:
    """Every module over the limit, as `path: lines`."""
    found = []
    for path in _sources():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            found.append(f"{path.relative_to(ROOT)}: {lines} lines")
    return found


def _says_why(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A `# one function:` comment in the function or in the comment block right above it."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    above = first - 2  # 0-based index of the line just above the first decorator
    while above >= 0 and lines[above].lstrip().startswith("#"):
        if lines[above].lstrip().startswith(MARK):
            return True
        above -= 1
    end = node.end_lineno or node.lineno
    return any(line.lstrip().startswith(MARK) for line in lines[node.lineno - 1 : end])


def long_functions() -> list[str]:
    """Every function over the limit with no comment saying why, as `path::name: lines`."""
    found = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        name = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length <= MAX_FUNCTION_LINES or (name, node.name) in ALLOWED_LONG_FUNCTIONS:
                continue
            if not _says_why(lines, node):
                found.append(f"{name}::{node.name}: {length} lines")
    return found


def test_no_module_is_over_600_lines() -> None:
    assert long_modules() == [], "split these along their concerns (docs/architecture.md)"


def test_no_function_is_over_80_lines_without_saying_why() -> None:
    assert long_functions() == [], f"split these, or say why above them with `{MARK} ...`"


def test_a_long_function_is_caught_unless_a_comment_says_why() -> None:
    # the scanner itself: a long function is caught, and its `# one function:` comment excuses it
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    source = f"def long():\n{body}\n"
    tree = ast.parse(source)
    node = tree.body[0]
    assert isinstance(node, ast.FunctionDef)
    assert not _says_why(source.splitlines(), node)
    excused = f"{MARK} a reason\n{source}"
    node = ast.parse(excused).body[0]
    assert isinstance(node, ast.FunctionDef)
    assert _says_why(excused.splitlines(), node)


def test_every_allowed_long_function_still_exists_and_is_still_long() -> None:
    # an exception that is no longer needed must leave the list, so the list only shrinks
    for (path, name), _why in ALLOWED_LONG_FUNCTIONS.items():
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        lengths = [
            (n.end_lineno or n.lineno) - n.lineno + 1
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name
        ]
        assert lengths and max(lengths) > MAX_FUNCTION_LINES, f"drop {path}::{name} from the list"
