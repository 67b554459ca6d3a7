"""The process's file-descriptor limit: raised at start, and read when reporting fd pressure.

A GUI bench at concurrency 256 holds hundreds of sockets, and a desktop session's soft limit
is often 1024 (or 256 under `prlimit`), while the hard limit is far higher: raising the soft
limit toward the hard one is free and keeps accept() and connect() from failing.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)

TARGET = 1 << 16  # enough for any bench; when the hard limit is unlimited, ask for this much


def raise_soft_limit() -> tuple[int, int] | None:
    """Raise RLIMIT_NOFILE's soft limit toward the hard one; the (soft, hard) now in force,
    None where the platform has no such limit (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = TARGET if hard == resource.RLIM_INFINITY else min(hard, max(TARGET, soft))
    if soft == resource.RLIM_INFINITY or soft >= want:
        return soft, hard
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    except (ValueError, OSError) as exc:  # e.g. macOS caps it below the hard limit
        log.warning("cannot raise the open-file limit from %d to %d: %s", soft, want, exc)
        return soft, hard
    return want, hard


def pressure() -> str:
    """'N of M file descriptors open', or what of it is known here."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except ImportError:
        soft = -1
    try:
        used = len(os.listdir("/proc/self/fd"))
    except OSError:
        used = -1
    limit = "no limit" if soft < 0 else str(soft)
    return f"{used if used >= 0 else '?'} of {limit} file descriptors open"
