"""`workbench COMMAND ...` imports only that command's module (cli.COMMAND_MODULES), and its
parser is the one the whole `workbench --help` tree holds."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from workbench.cli import COMMAND_MODULES, build_parser


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_the_map_names_every_command_and_each_parses_alike_built_alone() -> None:
    whole = _commands(build_parser())
    assert set(whole) - {"gui"} == set(COMMAND_MODULES)
    for name in COMMAND_MODULES:
        alone = _commands(build_parser(only=name))
        assert name in alone, name
        assert alone[name].format_help() == whole[name].format_help(), name


def test_history_list_does_not_import_the_bench_engine(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "workbench", "history", "list"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path / "data")},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    # -X importtime logs `import` statements (not importlib.import_module, which loads the
    # command's module): what that module and the rest import shows
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    assert "workbench.commands.history" in imported  # import_results' own import: it ran
    assert "workbench.commands.bench_capacity" not in imported  # bench's first import
    assert "workbench.core.run.runner" not in imported
