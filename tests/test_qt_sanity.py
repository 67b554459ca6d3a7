"""Guards against a Qt binding that cannot run the app for long (regression, issue 4)."""

from __future__ import annotations

import subprocess
import sys

_EMIT_MANY = """
import sys
from PySide6.QtCore import QObject, Signal
class Source(QObject):
    frame = Signal()
    progress = Signal(int, int, float)
s = Source()
before = sys.getrefcount(True)
for _ in range(20000):
    s.frame.emit()
    s.progress.emit(1, 2, 3.0)
print(before, sys.getrefcount(True))
"""


def test_signal_emit_does_not_leak_references_to_true() -> None:
    """PySide6 6.12.0 on Python 3.11 drops a reference to True per emit and aborts the process
    with 'bool_dealloc' after ~1000 emits; the app's frame timer emits 30 times a second."""
    proc = subprocess.run(
        [sys.executable, "-c", _EMIT_MANY], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr[-500:]
    before, after = map(int, proc.stdout.split())
    assert abs(after - before) < 100
