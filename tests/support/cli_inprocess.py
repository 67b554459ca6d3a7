"""`workbench ARGS` through the CLI's own entry point (`workbench.cli.main`) in this process.

For tests whose subject is what a command prints, writes and returns, not the process: each
`python -m workbench` start cost 0.1-0.3 s of CPU (the interpreter, then the command's imports
again), several hundred times a suite (benchmarks/results/test_tiers.md, session 39). A test of
the process boundary itself (a signal, an interpreter's encoding, a real exit) keeps a real
process. What `run_cli` gives mirrors `subprocess.run([python, -m, workbench, ...],
capture_output=True, text=True)`: the environment is exactly `env` during the call; stdout and
stderr are UTF-8 pipes that are no terminal (80 columns, as a captured process falls back to);
stdin is empty; the OS keyring is looked up afresh under `env`, as a new process would (another
test of this process may have set one); `\\r` and `\\r\\n` read as `\\n`, as text mode decodes them;
a SystemExit's code is the return code, and an exception a traceback on stderr and code 1.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import traceback
from collections.abc import Mapping, Sequence
from contextlib import chdir
from pathlib import Path


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def run_cli(
    args: Sequence[str],
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
) -> subprocess.CompletedProcess[str]:
    import keyring

    from workbench.cli import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    saved_env, saved_streams = dict(os.environ), (sys.stdin, sys.stdout, sys.stderr, sys.argv)
    os.environ.clear()
    os.environ.update({"COLUMNS": "80", "LINES": "24", **(env if env is not None else saved_env)})
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(), out, err
    sys.argv = ["workbench", *args]
    backend = keyring.get_keyring()
    keyring.core.init_backend()  # the OS keyring as a new process finds it under `env`
    try:
        with chdir(cwd or os.getcwd()):
            code = main(list(args))
    except SystemExit as exit:
        if exit.code is None or isinstance(exit.code, int):
            code = exit.code or 0
        else:
            print(exit.code, file=err)
            code = 1
    except Exception:
        traceback.print_exc(file=err)
        code = 1
    finally:
        keyring.set_keyring(backend)
        sys.stdin, sys.stdout, sys.stderr, sys.argv = saved_streams
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["workbench", *args], code, _text(out), _text(err))
