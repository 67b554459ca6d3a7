"""The import graph of workbench/ and kernels_bridge/ has no cycle (issue 27, must hold).

The graph is built from the source (AST), not from what an import happens to load, so it
counts every import statement wherever it stands:
- at module level;
- inside functions and methods (a deferred import still ties the two modules: it only hides the
  cycle until the call, which is how `providers` <-> `secrets` stayed apart);
- under `if TYPE_CHECKING:` (a type-only cycle is still two modules that must be understood
  together, and mypy and import-linter both see it).
`import a.b.c` makes an edge to `a.b.c`; `from a.b import c` to the submodule `a.b.c` when
there is one, else to `a.b` (a name its `__init__` defines). Not counted: the packages above a
module named, which Python runs first whatever imports it (`from workbench.core.doctor import
model` inside `doctor/paths.py` depends on `model`, not on the doctor's `__init__`).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("workbench", "kernels_bridge")


def modules() -> dict[str, Path]:
    """Every module of the packages by its dotted name (a package by its `__init__.py`)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if "_resources" in parts:  # a worktree's link to resources/, no code
                continue
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imported(
    name: str, path: Path, node: ast.Import | ast.ImportFrom, known: set[str]
) -> set[str]:
    """The modules an import statement in module `name` depends on."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = node.module or ""
    if node.level:  # a relative import, from the module's package upward
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, *([node.module] if node.module else [])])
    # `from a.b import c`: the submodule a.b.c when there is one, else a name of a.b itself
    return {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names}


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                targets = _imported(name, path, node, set(known))
                graph[name] |= {t for t in targets if t in known and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan's), each
    as a path a -> b -> ... -> a through modules of that component."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:  # the graph is ~400 modules: recursion depth is no concern
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_path_in(graph, component) for component in components]


def _path_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth first)."""
    start = min(component)
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [*reversed(path), start]
                if w not in parents:
                    parents[w] = v
                    following.append(w)
        frontier = following
    raise AssertionError(f"no cycle through {start}")


def test_the_graph_sees_the_imports_it_should() -> None:
    graph = import_graph()
    assert len(graph) > 200
    assert "workbench.core.planning.run_plan" in graph["workbench.core.run.runner"]  # module level
    assert "workbench.core.run.runner" in graph["workbench.ui.compare_controller"]  # TYPE_CHECKING
    assert "workbench.local.process" in graph["workbench.ui.builtin_provider"]  # in a function
    toy = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(toy) == [["a", "b", "c", "a"]]


# cycles known and owned elsewhere, each to be broken (none today); a set emptied by a fix
# must leave this list, which the second assertion below asks
PENDING: list[set[str]] = []


def test_the_import_graph_has_no_cycle() -> None:
    found = cycles(import_graph())
    new = [c for c in found if not any(set(c) <= pending for pending in PENDING)]
    assert not new, "import cycles:\n" + "\n".join(" -> ".join(c) for c in new)
    stale = [p for p in PENDING if not any(set(c) <= p for c in found)]
    assert not stale, f"these cycles are gone: remove them from PENDING: {stale}"
