"""An argument that is not UTF-8 (`bench --model $'ok\\xff'`) is refused with exit 2 and the fix
before anything is written: it gave a traceback after the CSV header, and one in
`providers add`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "args",
    [
        [b"bench", b"--model", b"ok\xff", b"--max-tokens", b"4", b"--csv", b"out.csv"],
        [b"providers", b"add", b"bad\xffname", b"--base-url", b"http://127.0.0.1:9/v1"],
    ],
    ids=["bench-model", "providers-add-name"],
)
def test_an_argument_that_is_not_utf8_is_refused_before_anything_is_written(
    tmp_path: Path, args: list[bytes]
) -> None:
    env = {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
        "LC_ALL": "C.UTF-8",
    }
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(
        [os.fsencode(sys.executable), b"-m", b"workbench", *args],
        capture_output=True, timeout=120, check=False, env=env, cwd=work,
    )  # fmt: skip
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert "is not valid UTF-8 text" in err and "\\xff" in err and "Fix:" in err
    assert list(work.iterdir()) == []  # no CSV, not even its header
    assert not (tmp_path / "config").exists() and not (tmp_path / "data").exists()
