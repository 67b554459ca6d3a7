"""Bad input is refused at the edge: exit 2 naming the flag, the range and the fix, before any
request is sent or any server started; never a traceback, never a lost file."""

from __future__ import annotations

import csv
import math
import os
import re
import socket
import sqlite3
import stat
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.cli import main


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own refusals
        return int(exc.code or 0)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("flag", "value", "named"),
    [
        ("--prompt-tokens", "0", "128..1,048,576"),
        ("--prompt-tokens", "127", "128..1,048,576"),
        ("--prompt-tokens", "1.5", "not a whole number"),
        ("--prompt-tokens", "10M", "128..1,048,576"),
        ("--prompt-tokens", "-4K", "not a token count"),
        ("--prompt-tokens", "1K,,2K", "not a token count"),
        ("--needle-depth", "7", "needle depth must be a number from 0 to 1"),
        ("--needle-depth", "nan", "needle depth must be a number from 0 to 1"),
        ("--temperature", "nan", "temperature must be a number from 0 to 2"),
        ("--temperature", "-0.5", "temperature must be a number from 0 to 2"),
        ("--first-token-timeout", "-1", "timeout (seconds) must be a number above 0"),
        ("--stall-timeout", "nan", "timeout (seconds) must be a number above 0"),
        ("--total-timeout", "inf", "timeout (seconds) must be a number above 0"),
        ("--total-timeout", "0", "timeout (seconds) must be a number above 0"),
        ("--repeats", "0", "repeats must be 1..100000"),
        ("--repeats", "3000000", "repeats must be 1..100000"),
        ("--repeats", "2.5", "repeats must be a whole number"),
        ("--warmup", "-3", "warmup must be 0..1000"),
        ("--concurrency", "0", "concurrency must be 1..256"),
        ("--concurrency", "999", "concurrency must be 1..256"),
        ("--max-tokens", "0", "max tokens must be 1.."),
        ("--retry-budget", "-1", "retry budget (seconds) must be a number from 0"),
        ("--retry-budget", "nan", "retry budget (seconds) must be a number from 0"),
        ("--tp", "0", "tensor-parallel degree must be 1..8"),
        ("--tp", "1000", "tensor-parallel degree must be 1..8"),
        ("--gpu", "ZZZ", "known: H100, H200, H800, A100, RTX4090"),
        ("--jitter", "-5", "jitter must be a number from 0 to 1"),
        ("--time-scale", "-1", "time scale must be a number from 0 to 1000"),
        ("--time-scale", "inf", "time scale must be a number from 0 to 1000"),
        ("--time-scale", "nan", "time scale must be a number from 0 to 1000"),
    ],
)
def test_out_of_range_flags_exit_2_naming_the_range_before_anything_starts(
    flag: str, value: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.csv"
    code = _exit_code(["bench", "--model", "sim-70b-gqa", "--csv", str(out), f"{flag}={value}"])
    err = capsys.readouterr().err
    assert code == 2
    assert flag in err and named in err, err
    assert "Traceback" not in err and "Run:" not in err  # nothing was started
    assert not out.exists() and not (tmp_path / "data").exists()


def test_warmup_of_zero_and_big_token_suffixes_are_accepted_as_documented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ok.csv"
    code = main(
        [
            "bench",
            "--model",
            "sim-70b-gqa",
            "--prompt-tokens",
            "1.5K",
            "--warmup",
            "0",
            "--max-tokens",
            "4",
            "--time-scale",
            "0.01",
            "--csv",
            str(out),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "1/1 done" in captured.err and "/-" not in captured.err
    # header, the calibration row and one measured row of 1536
    assert out.read_text(encoding="utf-8").count("\n") == 3
    with out.open(encoding="utf-8", newline="") as handle:
        phases = [row["phase"] for row in csv.DictReader(handle)]
    assert phases == ["calibration", "measured"]
    assert ",1536," in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("", "the CSV path is empty"),
        ("{tmp}", "is a folder; give a file name inside it"),
        ("{tmp}/missing/out.csv", "does not exist; create it (mkdir -p"),
        ("{tmp}/fifo", "is a pipe or socket"),
    ],
)
def test_unwritable_csv_paths_exit_2_before_anything_starts(
    path: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "fifo")
    target = path.format(tmp=tmp_path)
    code = _exit_code(["bench", "--model", "sim-70b-gqa", "--csv", target])
    err = capsys.readouterr().err
    assert code == 2 and "--csv" in err and named in err, err
    assert "Traceback" not in err and "Run:" not in err


def test_a_csv_on_a_full_disk_is_refused_before_the_first_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = _exit_code(
        ["bench", "--model", "sim-70b-gqa", "--time-scale", "0.01", "--csv", "/dev/full"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "the disk holding /dev/full is full" in err, err
    assert "free space or choose another --csv" in err
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # the device itself left alone
    assert "Run:" not in err and "Traceback" not in err


def test_a_refused_run_leaves_an_existing_csv_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "earlier.csv"
    out.write_bytes(b"rows,from,yesterday\r\n")
    # --force: an existing CSV is refused by itself otherwise; this is about a later refusal
    code = _exit_code(["bench", "--model", "sim-70b-gqq", "--csv", str(out), "--force"])
    assert code == 2 and "sim-70b-gqa" in capsys.readouterr().err
    assert out.read_bytes() == b"rows,from,yesterday\r\n"


def _corrupt(db: Path) -> str:
    db.write_bytes(b"this is not a SQLite file at all, just text" * 100)
    return "is damaged"


def _newer(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99")
    return "written by a newer version of the app"


def _folder(db: Path) -> str:
    db.mkdir()  # a folder where the file should be
    return "cannot open the history database"


@pytest.mark.parametrize("spoil", [_corrupt, _newer, _folder])
def test_an_unusable_history_exits_2_naming_the_file_and_the_fix(
    spoil, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "history.sqlite3"
    named = spoil(db)
    out = tmp_path / "earlier.csv"
    out.write_bytes(b"keep me\r\n")
    code = _exit_code(["bench", "--model", "sim-70b-gqa", "--csv", str(out), "--force"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert str(db) in err and named in err, err
    assert "WORKBENCH_DATA_DIR" in err and "--no-store" in err
    assert "Traceback" not in err and "Run:" not in err
    assert out.read_bytes() == b"keep me\r\n"


def test_a_read_only_history_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not writable by this user (root ignores modes: the file is made immutable instead)."""
    import subprocess

    from workbench.core.history.run_history import RunStore

    db = tmp_path / "data" / "history.sqlite3"
    RunStore(db).close()
    as_root = os.geteuid() == 0
    if as_root:
        subprocess.run(["chattr", "+i", str(db)], check=True)
    else:
        db.chmod(0o444)
    try:
        code = _exit_code(["bench", "--model", "sim-70b-gqa", "--csv", os.devnull])
    finally:
        if as_root:
            subprocess.run(["chattr", "-i", str(db)], check=True)
    err = capsys.readouterr().err
    assert code == 2, err
    assert str(db) in err and "cannot be written" in err and "WORKBENCH_DATA_DIR" in err
    assert "Traceback" not in err and "Run:" not in err


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--tp", "0"], "tensor-parallel degree must be 1..8"),
        (["--tp", "1000"], "tensor-parallel degree must be 1..8"),
        (["--gpu", "ZZZ"], "known: H100, H200"),
        (["--jitter", "-5"], "jitter must be a number from 0 to 1"),
        (["--time-scale", "-1"], "time scale must be a number from 0 to 1000"),
        (["--time-scale", "inf"], "time scale must be a number from 0 to 1000"),
        (["--time-scale", "nan"], "time scale must be a number from 0 to 1000"),
        (["--port", "99999"], "port must be 0..65535"),
        (["--port", "-1"], "port must be 0..65535"),
    ],
)
def test_serve_local_refuses_bad_settings_instead_of_serving_errors(
    flags: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _exit_code(["serve-local", *flags])
    err = capsys.readouterr().err
    assert code == 2 and flags[0] in err and named in err, err
    assert "listening" not in err


def test_kernels_with_a_missing_worker_exits_2_naming_the_path(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = _exit_code(["kernels", "--worker", "/nonexistent/python", "--kv", "1K"])
    err = capsys.readouterr().err
    assert code == 2 and "/nonexistent/python" in err and "no such file" in err


def test_kernels_exits_3_when_rows_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """flash_mla needs a CUDA device: on the CPU its row fails, the reference row stands."""
    out = tmp_path / "k.csv"
    argv = ["kernels", "--backend", "reference", "--backend", "flashmla", "--variant", "gqa"]
    argv += ["--kv", "1K", "--batch", "1", "--iters", "1", "--warmup", "0", "--device", "cpu"]
    argv += ["--worker", sys.executable, "--csv", str(out)]
    code = _exit_code(argv)
    err = capsys.readouterr().err
    assert code == 3, err
    assert "1 of 2 row(s) failed" in err
    assert len(out.read_text().splitlines()) == 3


# ---- the property: whatever the numbers, the CLI answers with a clean exit ----

# The documented ranges (docs/reliability.md, "Runs and input"), written out again independently.
_INT_RANGES = {
    "--repeats": (1, 100_000),
    "--warmup": (0, 1000),
    "--max-tokens": (1, 1_048_576),
    "--concurrency": (1, 256),
    "--tp": (1, 8),
}
_FLOAT_RANGES = {  # (low, high, low allowed)
    "--temperature": (0.0, 2.0, True),
    "--needle-depth": (0.0, 1.0, True),
    "--first-token-timeout": (0.0, 86_400.0, False),
    "--stall-timeout": (0.0, 86_400.0, False),
    "--total-timeout": (0.0, 86_400.0, False),
    "--retry-budget": (0.0, 86_400.0, True),
    "--time-scale": (0.0, 1000.0, True),
    "--jitter": (0.0, 1.0, True),
}
_NUMERIC_FLAGS = ("--prompt-tokens", *_INT_RANGES, *_FLOAT_RANGES)
_TOKENS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")


def _documented_valid(flag: str, value: str) -> bool:
    if flag in _INT_RANGES:
        try:
            number = int(value)
        except ValueError:
            return False
        low, high = _INT_RANGES[flag]
        return low <= number <= high
    if flag in _FLOAT_RANGES:
        try:
            real = float(value)
        except ValueError:
            return False
        low, high, closed = _FLOAT_RANGES[flag]
        return math.isfinite(real) and (real >= low if closed else real > low) and real <= high
    for part in value.split(","):  # --prompt-tokens
        match = _TOKENS.match(part)
        if not match:
            return False
        tokens = Decimal(match[1]) * {"": 1, "k": 1024, "m": 1048576}[match[2].lower()]
        if tokens != int(tokens) or not 128 <= tokens <= 1_048_576:
            return False
    return True


_values = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.integers(min_value=-2, max_value=300).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(min_value=-1, max_value=3).map(repr),
    st.sampled_from(["nan", "-inf", "1e309", "1K", "1.5K", "10M", "0x10", "", " 7 ", "1_000"]),
    st.text(max_size=12),
)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(choices=st.lists(st.tuples(st.sampled_from(_NUMERIC_FLAGS), _values), max_size=4))
def test_bench_arguments_only_ever_end_in_a_clean_exit(
    choices: list[tuple[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Arbitrary values for every numeric flag: a value out of its documented range is refused
    (exit 2 naming the flag) before anything starts; values in range reach the network (here
    a closed loopback port: exit 2, "cannot connect"). Never a traceback."""
    argv = ["bench", "--base-url", f"http://127.0.0.1:{_closed_port()}/v1", "--model", "m"]
    argv += ["--no-store", "--csv", str(tmp_path / "p.csv")]
    for flag, value in choices:
        argv.append(f"{flag}={value}")
    code = _exit_code(argv)
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert "Traceback" not in err
    invalid = [flag for flag, value in choices if not _documented_valid(flag, value)]
    if invalid:
        assert any(f"argument {flag}:" in err for flag in invalid), (choices, err)
        assert "cannot connect" not in err
    else:
        assert "cannot connect" in err, (choices, err)
