"""Whether the process that owns a run is still alive: a run belongs to (pid, start marker), so
a reused pid is not mistaken for the run's owner."""

from __future__ import annotations

import os
import sys


def process_start_marker(pid: int) -> str | None:
    """When the process started, where the OS tells cheaply (Linux); None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None  # field 22: starttime in clock ticks


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        try:
            code = ctypes.c_ulong()
            ok = kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
            return bool(ok) and code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, someone else's
    try:  # a zombie (dead, not yet reaped) still answers kill(0)
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
        return stat[stat.rfind(")") + 2 :][:1] not in ("Z", "X")
    except OSError:
        return True


def owner_alive(pid: int | None, marker: str | None) -> bool:
    if pid is None or not pid_alive(pid):
        return False
    if marker is not None:
        current = process_start_marker(pid)
        if current is not None and current != marker:
            return False  # the pid was reused by another process
    return True
