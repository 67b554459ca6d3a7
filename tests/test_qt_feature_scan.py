"""PySide6's import hook reads each new module's source (to look for "PySide6", for its opt-in
`__feature__` syntax); workbench.ui turns that read off. Run in fresh interpreters, since the
hook sees only modules imported after PySide6."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import inspect, sys
{setup}
read = []
real = inspect.getsource
inspect.getsource = lambda obj: read.append(getattr(obj, "__name__", obj)) or real(obj)
import plain_module, snake_module
print("read:", ",".join(m for m in read if m in ("plain_module", "snake_module")) or "-")
print("names:", plain_module.name_of(), snake_module.name_of())
"""

PLAIN = """
from PySide6.QtCore import QObject

def name_of():
    o = QObject()
    o.setObjectName("plain")
    return o.objectName()
"""

SNAKE = """
from __feature__ import snake_case  # noqa: F401
from PySide6.QtCore import QObject

def name_of():
    o = QObject()
    o.set_object_name("snake")
    return o.object_name()
"""


def probe(tmp_path: Path, setup: str) -> list[str]:
    (tmp_path / "plain_module.py").write_text(PLAIN)
    (tmp_path / "snake_module.py").write_text(SNAKE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(setup=setup)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def test_pyside6_alone_reads_each_new_modules_source(tmp_path: Path) -> None:
    """The cost being removed is real in this PySide6 (else the next test proves nothing)."""
    lines = probe(tmp_path, "import PySide6.QtCore")
    assert lines[0] == "read: plain_module,snake_module"


def test_the_app_skips_the_read_and_opt_in_syntax_still_works(tmp_path: Path) -> None:
    lines = probe(tmp_path, "import workbench.ui")
    assert lines == ["read: -", "names: plain snake"]
