"""Conventions every `workbench` command keeps: exit codes, and output on any console encoding."""

from __future__ import annotations

import argparse
import json
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


def test_a_bad_value_is_exit_2_naming_the_flag_and_the_fix(env) -> None:
    proc = _run(["bench", "--model", "sim-70b-gqa", "--concurrency", "many"], env)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "--concurrency" in err and "Fix:" in err and "Traceback" not in err


def _local_env(env: dict[str, str], tmp_path: Path, encoding: str) -> dict[str, str]:
    return {
        **env,
        "PYTHONIOENCODING": encoding,
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
    }


ENCODED_COMMANDS = {
    "doctor": ["doctor", "local", "--model", "sim-70b-gqa"],
    "bench": ["bench", "--model", "sim-70b-gqa", "--prompt-tokens", "1K", "--max-tokens", "8"],
    "models": ["models"],
    "providers-list": ["providers", "list"],
}


@pytest.mark.parametrize("encoding", ["ascii", "cp1252"])
@pytest.mark.parametrize("name", list(ENCODED_COMMANDS))
def test_output_survives_a_console_that_is_not_utf8(name, encoding, tmp_path, env) -> None:
    args = ENCODED_COMMANDS[name]
    if name == "bench":
        args = [*args, "--repeats", "1", "--csv", str(tmp_path / "r.csv")]
    proc = _run(args, _local_env(env, tmp_path, encoding))
    err = proc.stderr.decode(encoding)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    out = proc.stdout.decode(encoding)  # every byte is in the console's own encoding
    expected = {
        "doctor": "OK base_url:",  # the check mark's ASCII stand-in
        "bench": "sim-70b-gqa",
        "models": "sim-70b-gqa",
        "providers-list": "No saved providers",
    }[name]
    assert expected in out, out


def test_doctor_json_on_an_ascii_console_still_parses(tmp_path, env) -> None:
    proc = _run(
        ["doctor", "local", "--model", "sim-70b-gqa", "--json"],
        _local_env(env, tmp_path, "ascii"),
    )
    assert proc.returncode == 0, proc.stderr.decode("ascii")
    checks = json.loads(proc.stdout.decode("ascii"))
    assert checks[0]["name"] == "base_url" and "→" in checks[0]["evidence"]


@pytest.mark.parametrize("command", [(), *COMMANDS], ids=lambda c: " ".join(c) or "workbench")
def test_every_command_help_shows_an_example(command, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*command, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "example" in out
    # an example is a command line of this very command
    example = out[out.index("example") :]
    assert f"workbench {' '.join(command)}".strip() in example


def test_help_shows_the_defaults(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["serve-local", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: 127.0.0.1)" in out and "(default: 1.0)" in out


def _bash_complete(script: Path, line: str) -> list[str]:
    """What bash offers after typing `line` and Tab, through the script's own function."""
    words = line.split(" ")
    probe = (
        f"source {script}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "_workbench\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    proc = subprocess.run(
        ["bash", "--norc", "-c", probe], capture_output=True, text=True, timeout=30, check=True
    )
    return proc.stdout.split()


def test_bash_completion_names_every_subcommand_and_completes_them(tmp_path, env) -> None:
    proc = _run(["completion", "bash"], env)
    assert proc.returncode == 0
    script = tmp_path / "workbench.bash"
    script.write_bytes(proc.stdout)
    text = proc.stdout.decode()
    for command in COMMANDS:
        assert command[-1] in text, command
    assert _bash_complete(script, "workbench prov") == ["providers"]
    assert _bash_complete(script, "workbench providers l") == ["list"]
    assert _bash_complete(script, "workbench history ") == ["export", "list", "show", "delete"]
    assert "--allow-overflow" in _bash_complete(script, "workbench bench --all")
    assert _bash_complete(script, "workbench bench --outp") == ["--output"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_subcommand(shell, env) -> None:
    proc = _run(["completion", shell], env)
    assert proc.returncode == 0
    text = proc.stdout.decode()
    for command in COMMANDS:
        assert command[-1] in text, command
    assert ("bashcompinit" in text) if shell == "zsh" else ("complete -c workbench" in text)


def test_every_option_of_every_command_has_help_text() -> None:
    parsers = {(): build_parser()}
    for command in COMMANDS:
        parent = parsers[command[:-1]]
        sub = next(a for a in parent._actions if isinstance(a, argparse._SubParsersAction))
        parsers[command] = sub.choices[command[-1]]
    silent = [
        (" ".join(command), action.option_strings)
        for command, parser in parsers.items()
        for action in parser._actions
        if action.option_strings and not action.help
    ]
    assert silent == []


def test_an_unknown_flag_before_any_command_is_exit_2_naming_the_flag_and_the_fix(env) -> None:
    # no display: the old code dropped the flag and ran the headless comparison (exit 0)
    headless = {k: v for k, v in env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    headless.pop("QT_QPA_PLATFORM", None)
    for environ in (headless, {**env, "QT_QPA_PLATFORM": "offscreen"}):
        proc = _run(["--nonsense"], environ, timeout=60)
        err = proc.stderr.decode()
        assert proc.returncode == 2, err
        assert "unknown option --nonsense before any command" in err
        assert "Fix:" in err and "workbench --help" in err and "Traceback" not in err
        assert proc.stdout == b""  # nothing ran: no table, no window
