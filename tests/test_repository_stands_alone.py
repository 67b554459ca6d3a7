"""The repository stands alone: a user's clone holds everything its tests and help texts use.

Nothing tracked points at a folder beside the checkout, the tests read their fixtures from
tests/data/, no command's help speaks of material that is not shipped, and a test that skips
fails the run unless it names a hardware need (tests/support/skip_policy.py).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from workbench.cli import build_parser, main

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
# written in two pieces so that this file does not hold what it looks for
OUTSIDE = ".." + "/shared"
# joining a "shared" folder onto a path (climbing above the root: `climbs` below)
SHARED_JOIN = re.compile(r"""/\s*["']shared["']|["']shared/""")
# words of the private material the project was designed from; "--seed" (the RNG) is fine
NOT_SHIPPED = ("seeds", "seed 000", "seed 002", "article")
SKIPPED_DIRS = {".venv", "venv", "build", "dist", ".git", "__pycache__", ".hypothesis"}
SKIPPED_DIRS |= {".pytest_cache", ".ruff_cache", ".mypy_cache", ".venv-transformers"}


def _git(*args: str) -> str | None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        return None
    proc = subprocess.run(
        [git, *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=60
    )
    return proc.stdout if proc.returncode == 0 else None


def _walk() -> list[Path]:
    files = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
        files += [Path(folder, name) for name in names]
    return files


def _repository_files() -> list[Path]:
    """The files a clone holds: tracked ones and new ones not ignored (git), else a walk."""
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is None:
        return _walk()
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None  # binary (the SQLite fixture, icons)
    return data.decode("utf-8", errors="replace")


def test_no_file_points_outside_the_repository() -> None:
    files = _repository_files()
    assert any(f.name == "pyproject.toml" for f in files)
    leaning = []
    for path in files:
        text = _text(path)
        if text is not None and OUTSIDE in text:
            lines = [n for n, line in enumerate(text.splitlines(), 1) if OUTSIDE in line]
            leaning.append(f"{path.relative_to(ROOT)}: line {', '.join(map(str, lines))}")
    assert leaning == [], f"these files refer to {OUTSIDE}, which a clone does not have"


def climbs(path: Path) -> re.Pattern[str]:
    """parents[N], or a chain of `.parent`, that leaves the repository from `path`: from
    tests/x.py parents[1] is the root, from tests/support/x.py the next index up."""
    depth = len(path.relative_to(ROOT).parts) - 1
    return re.compile(rf"parents\[(?:[{depth + 1}-9]|\d\d+)\]|(?:\.parent){{{depth + 2},}}")


def test_tests_read_only_inside_the_repository() -> None:
    sources = sorted(TESTS.rglob("*.py"))
    assert Path(__file__).resolve() in sources
    for path in sources:
        text = path.read_text(encoding="utf-8")
        for pattern in (climbs(path), SHARED_JOIN):
            match = pattern.search(text)
            assert match is None, (
                f"{path.relative_to(ROOT)} reads outside the repository ({match.group(0)!r}); "
                "put the file under tests/data/"
            )


def test_the_fixtures_are_tracked() -> None:
    """Every file under tests/data/ goes into a clone: git ignores none of them."""
    fixtures = [p for p in (TESTS / "data").rglob("*") if p.is_file()]
    assert {p.name for p in fixtures} >= {"README.md", "troubleshooting_errors.txt", "cc-switch.db"}
    ignored = _git("ls-files", "--others", "--ignored", "--exclude-standard", "tests/data")
    if ignored is not None:  # without git there is nothing to ignore them
        assert ignored.split() == []


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The command line of every (sub)command the parser knows, aliases once."""
    found = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    found += _commands(sub, (*path, name))
    return found


def test_no_help_speaks_of_unshipped_material(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = [*_commands(build_parser()), ("--self-test",)]
    assert ("import",) in commands and ("providers", "add") in commands
    # the width a captured subprocess gets, so the help wraps as the user's 80 columns do
    monkeypatch.setenv("COLUMNS", "80")

    def help_of(command: tuple[str, ...]) -> tuple[int, str]:
        """`workbench COMMAND --help` through the CLI's own entry point, in this process: the
        text argparse prints; one interpreter start per command cost ~0.5 s of CPU each."""
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main([*command, "--help"])
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else 1
        return code, out.getvalue() + err.getvalue()

    # the entry point as a user starts it, once
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "--help"],
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "COLUMNS": "80"},
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert proc.returncode == 0 and "usage:" in proc.stdout, proc.stderr[-2000:]
    assert help_of(()) == (0, proc.stdout)  # in this process: the same text
    for command in commands:
        shown = " ".join(("workbench", *command, "--help"))
        code, text = help_of(command)
        assert code == 0, f"{shown}: {text[-2000:]}"
        assert "usage:" in text, shown
        found = [phrase for phrase in NOT_SHIPPED if phrase in text.lower()]
        assert found == [], f"{shown} mentions {found}"


# ---- the skip policy -------------------------------------------------------------------------

INNER_TESTS = """
import pytest


def test_passes():
    pass


def test_skips_in_its_body():
    pytest.skip("the fixture folder is missing")


@pytest.mark.skipif(True, reason="torch is not installed")
def test_skipif_mark():
    pass


@pytest.mark.hardware("CUDA GPU")
def test_gpu_skips_in_its_body():
    pytest.skip("no CUDA GPU here")


@pytest.mark.hardware("CUDA GPU")
@pytest.mark.skipif(True, reason="no CUDA GPU here")
def test_gpu_skipif_mark():
    pass


@pytest.mark.xfail(reason="a known bug")
def test_expected_failure():
    assert False
"""


@pytest.fixture
def inner(pytester: pytest.Pytester) -> pytest.Pytester:
    """A small suite whose conftest is tests/support/skip_policy.py itself."""
    pytester.makeconftest((TESTS / "support" / "skip_policy.py").read_text(encoding="utf-8"))
    return pytester


def test_an_unmarked_skip_fails_and_a_hardware_skip_stays_skipped(
    inner: pytest.Pytester,
) -> None:
    inner.makepyfile(test_inner=INNER_TESTS)
    result = inner.runpytest_subprocess("-p", "no:cacheprovider", "--strict-markers", "-rA")
    # the skip in a body fails; the skipif mark fails at setup (pytest counts that an error)
    result.assert_outcomes(passed=1, failed=1, errors=1, skipped=2, xfailed=1)
    out = result.stdout.str()
    for reason in ("the fixture folder is missing", "torch is not installed"):
        assert (
            f"skipped ({reason}): a test may skip only for a marked hardware need "
            "(@pytest.mark.hardware); install what it needs (scripts/test.sh does)"
        ) in out
    assert result.ret != 0
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 2 and all("no CUDA GPU here" in line for line in skipped)


def test_a_module_that_skips_on_import_fails(inner: pytest.Pytester) -> None:
    inner.makepyfile(
        test_needs_a_package='import pytest\n\npytest.importorskip("no_such_package_here")\n\n'
        "def test_never_runs():\n    pass\n"
    )
    result = inner.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "skipped (could not import 'no_such_package_here'" in out
    assert "a test may skip only for a marked hardware need" in out


def test_this_suite_runs_under_the_policy(request: pytest.FixtureRequest) -> None:
    markers = request.config.getini("markers")
    assert any(line.startswith("hardware(name)") for line in markers)
    hooks = request.config.pluginmanager.hook.pytest_runtest_makereport.get_hookimpls()
    assert any(impl.function.__module__ == "tests.support.skip_policy" for impl in hooks)
