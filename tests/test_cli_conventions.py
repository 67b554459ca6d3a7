"""Conventions every `workbench` command keeps: exit codes, and output on any console encoding."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.cli import build_parser, main

WORKBENCH = [sys.executable, "-m", "workbench"]


def _command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list:
    """Every runnable command line prefix: `bench`, `providers list`, `history export`…"""
    paths = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                paths.append((*prefix, name))
                paths.extend(_command_paths(child, (*prefix, name)))
    return paths


COMMANDS = _command_paths(build_parser())


def test_the_walk_finds_the_commands_and_their_subcommands() -> None:
    assert {("bench",), ("doctor",), ("providers", "list"), ("history", "export")} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_refuses_an_unknown_flag_with_exit_2_and_the_fix(command, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*command, "--no-such-flag"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    # the cause: the unknown flag, or a required argument that the command lacks
    assert "unrecognized arguments: --no-such-flag" in err or "required" in err
    assert "Fix:" in err and f"workbench {' '.join(command)} --help" in err


def _run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*WORKBENCH, *args], capture_output=True, env=env, timeout=timeout, check=False
    )


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path / "data")}


def test_a_bad_value_is_exit_2_naming_the_flag_and_the_fix(env) -> None:
    proc = _run(["bench", "--model", "sim-70b-gqa", "--concurrency", "many"], env)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "--concurrency" in err and "Fix:" in err and "Traceback" not in err
