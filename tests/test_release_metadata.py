"""The release ships what the app needs: every package, every resource it reads, every import
declared. (scripts/check_release.sh installs the built wheel outside the checkout and runs it;
these catch the same mistakes in seconds, at the line that makes them.)"""

from __future__ import annotations

import ast
import fnmatch
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
CODE_ROOTS = ("workbench", "kernels_bridge")
# import name -> distribution name, where they differ
DISTRIBUTION_OF = {
    "PySide6": "PySide6-Essentials",
    "secretstorage": "SecretStorage",
    "yaml": "PyYAML",
}
# the kernel worker's stack: the `kernels` extra, imported only on the worker side
KERNEL_ONLY = {"torch", "triton"}


def _requirement_names(requirements: list[str]) -> set[str]:
    names = set()
    for req in requirements:
        match = re.match(r"[A-Za-z0-9_.-]+", req)
        assert match, req
        names.add(match.group(0).lower())
    return names


def _third_party_imports() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for root in CODE_ROOTS:
        for path in (ROOT / root).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    top = module.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in CODE_ROOTS:
                        found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_code_folder_is_a_listed_package() -> None:
    listed = set(SETUPTOOLS["packages"])
    on_disk = set()
    for root in CODE_ROOTS:
        for init in (ROOT / root).rglob("*.py"):
            folder = init.parent.relative_to(ROOT)
            if "__pycache__" not in folder.parts:
                on_disk.add(".".join(folder.parts))
    missing = on_disk - listed
    assert not missing, f"add to [tool.setuptools] packages, or the wheel lacks them: {missing}"
    for package in on_disk:
        assert (ROOT / package.replace(".", "/") / "__init__.py").is_file(), package
    assert SETUPTOOLS["package-dir"] == {"workbench._resources": "resources"}


def test_every_resource_the_app_reads_is_package_data() -> None:
    globs = SETUPTOOLS["package-data"]["workbench._resources"]
    # sources of shipped files stay in the repository: generators, translation sources, notes
    source_only = {".py", ".ts", ".md"}
    for path in (ROOT / "resources").rglob("*"):
        rel = path.relative_to(ROOT / "resources").as_posix()
        if not path.is_file() or path.suffix in source_only or "__pycache__" in rel:
            continue
        assert any(fnmatch.fnmatch(rel, g) for g in globs), f"resources/{rel} is not shipped"


def test_every_import_is_declared() -> None:
    core = _requirement_names(PYPROJECT["project"]["dependencies"])
    kernels = _requirement_names(PYPROJECT["project"]["optional-dependencies"]["kernels"])
    cluster = _requirement_names(PYPROJECT["project"]["optional-dependencies"]["cluster"])
    for module, files in sorted(_third_party_imports().items()):
        distribution = DISTRIBUTION_OF.get(module, module).lower()
        if module == "ray":  # the cluster extra: one module, which imports it lazily
            assert distribution in cluster, "ray is not in [cluster]"
            assert sorted(files) == ["workbench/core/scale/cluster.py"], files
        elif module in KERNEL_ONLY:
            assert distribution in kernels, f"{module} ({sorted(files)}) is not in [kernels]"
            outside = sorted(f for f in files if not f.startswith("kernels_bridge/"))
            assert not outside, f"{module} imported outside the kernel worker side: {outside}"
        else:
            assert distribution in core, f"{module} (used in {sorted(files)}) is not declared"


@pytest.mark.parametrize("name", ["workbench", "attention-workbench"])
def test_launchers_point_at_real_functions(name: str) -> None:
    import importlib

    scripts = PYPROJECT["project"]["scripts"] | PYPROJECT["project"]["gui-scripts"]
    module, _, function = scripts[name].partition(":")
    assert callable(getattr(importlib.import_module(module), function))


def test_license_is_an_spdx_expression_with_its_file() -> None:
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    for pattern in PYPROJECT["project"]["license-files"]:
        assert list(ROOT.glob(pattern)), pattern
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_developer_tools_are_dependency_groups_not_extras() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    groups = PYPROJECT["dependency-groups"]
    assert set(extras) == {"kernels", "cluster"}, (
        "extras are for users; test and packaging tools are groups"
    )
    assert _requirement_names(extras["cluster"]) == {"ray"}
    assert {"pytest", "pytest-qt", "hypothesis", "ruff"} <= _requirement_names(groups["test"])
    assert "pyinstaller" in _requirement_names(groups["package"])


def test_resources_are_found_through_importlib() -> None:
    from importlib.resources import files

    from workbench.resources import PACKAGE, resources_dir

    assert Path(str(files(PACKAGE))) == resources_dir() == ROOT / "resources"


def test_the_app_reports_the_version_the_package_declares():
    """`workbench --version`, About and run.json read `workbench.__version__`, written in the
    code (no importlib.metadata at start-up): it must be the release's version."""
    import workbench

    assert workbench.__version__ == PYPROJECT["project"]["version"]
