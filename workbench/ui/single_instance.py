"""One window per user: a second launch asks the first to come forward, then exits 0.

The first instance listens on a local socket whose name is per user and per configuration
folder (two configurations are two apps). A second launch connects, sends one line and leaves.
A crashed instance leaves its socket file behind on Unix. Nobody answers on it, and listening
with UserAccessOption binds in a private folder and renames the socket over the old name, so
the stale file never blocks a start (tests/test_single_instance.py kills an instance to check).

Qt closes the server for good, and deletes its socket file, when accept() fails (out of file
descriptors). So the guard checks every CHECK_MS that it still listens and that its file is
there, listens again when not, and says so in the log and the status line with the fd count;
connections that send nothing are closed after IDLE_MS, and at most MAX_CONNECTIONS stay open.

On Unix the socket file lives in TMPDIR (Qt's temp folder) while its path fits a socket address;
under a longer TMPDIR it moves to a shorter folder still private to the user: XDG_RUNTIME_DIR,
else /tmp/attention-workbench-<uid> (made 0700, refused unless ours and private). Where none
fits the app runs without the guard and the log says why and what to shorten.
"""

from __future__ import annotations

import getpass
import hashlib
import logging
import os
import stat
from pathlib import Path

from PySide6.QtCore import QDir, QObject, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from workbench.core.access.provider_files import default_config_dir
from workbench.core.system import fd_limit

log = logging.getLogger(__name__)

ACTIVATE = b"activate\n"
CONNECT_MS = 500
WRITE_MS = 1000
CHECK_MS = 1000  # how often the guard checks that it still listens
IDLE_MS = 2000  # a later launch writes at once; a connection silent this long is closed
MAX_CONNECTIONS = 16  # beyond, the oldest is closed
# a socket address holds 108 bytes; Qt 6 refuses a path of 107 or more ("Unknown error 0")
MAX_SOCKET_PATH = 106


def server_name() -> str:
    """Per user and per configuration folder: a bare name (Qt puts it in TMPDIR) while that
    path fits a Unix socket address, else a full path in a shorter private folder."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container): the folder still differs
        user = "user"
    digest = hashlib.sha256(f"{user}\0{default_config_dir()}".encode()).hexdigest()[:16]
    name = f"attention-workbench-{digest}"
    if os.name == "nt" or fits(Path(QDir.tempPath()) / name):
        return name  # a named pipe on Windows: no path limit
    for folder in (runtime_dir(), tmp_dir()):
        if folder is not None and fits(folder / name):
            return str(folder / name)
    return name  # listen() fails; InstanceGuard.problem() says why


def fits(path: Path) -> bool:
    return len(os.fsencode(path)) <= MAX_SOCKET_PATH


def private_dir(folder: Path) -> bool:
    """A real folder (no link) of this user that nobody else may enter."""
    try:
        info = folder.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def runtime_dir() -> Path | None:
    """XDG_RUNTIME_DIR, the desktop's per-user folder for sockets, when set and private."""
    value = os.environ.get("XDG_RUNTIME_DIR", "")
    folder = Path(value)
    return folder if value and folder.is_absolute() and private_dir(folder) else None


def tmp_dir() -> Path | None:
    """/tmp/attention-workbench-<uid>, made 0700; None when another user made it first, or it
    is not private (a name in a shared /tmp anyone can take before us)."""
    folder = Path("/tmp") / f"attention-workbench-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return folder if private_dir(folder) else None


def ask_running_instance(name: str) -> bool:
    """True when an instance answered on `name` and was asked to raise its window."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(CONNECT_MS):
        return False
    socket.write(ACTIVATE)
    sent = socket.waitForBytesWritten(WRITE_MS)
    socket.disconnectFromServer()
    return sent


class InstanceGuard(QObject):
    """Listens for later launches; `activate_requested` fires once per later launch."""

    activate_requested = Signal()
    lost = Signal(str)  # the status line's text when the socket was lost and is not back yet

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._on_connection)
        self.connections: list[QLocalSocket] = []
        self._down = False  # lost and not listening again yet
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_MS)
        self._timer.timeout.connect(self.check)

    def listen(self) -> bool:
        listening = self.server.listen(self.name)
        if listening or not self._too_long():  # a path too long never fits: no retries
            self._timer.start()
        return listening

    def _path(self) -> str:
        return self.name if os.path.isabs(self.name) else str(Path(QDir.tempPath()) / self.name)

    def _too_long(self) -> bool:
        return os.name != "nt" and not fits(Path(self._path()))

    def problem(self) -> str | None:
        """Why it does not listen, naming the fix; None while it listens."""
        if self.server.isListening():
            return None
        if self._too_long():
            path = self._path()
            return (
                f"its socket path {path!r} is {len(os.fsencode(path))} bytes, over the "
                f"{MAX_SOCKET_PATH} a Unix socket takes, and no shorter private folder was "
                "usable: set TMPDIR (or XDG_RUNTIME_DIR) to a shorter folder"
            )
        return self.server.errorString()

    def log_state(self) -> None:
        """Where it listens, or that a second launch will open a second window and why (called
        once the log file is open: claim() runs before)."""
        problem = self.problem()
        if problem is None:
            log.info("single-instance guard listening on %s", self.server.fullServerName())
        else:  # check() retries every CHECK_MS
            log.warning(
                "single-instance guard off: a second launch opens a second window (%s)", problem
            )

    def check(self) -> None:
        """Listen again when Qt closed the server or its socket file went away."""
        path = self.server.fullServerName()
        if self.server.isListening() and (not path or os.name == "nt" or os.path.exists(path)):
            return
        if not self._down:
            self._down = True
            closed_by_qt = not self.server.isListening()  # accept() failed: out of fds
            log.error(
                "single-instance socket lost (%s; %s): until it is back a second launch opens "
                "a second window; close idle connections or raise `ulimit -n`",
                self.server.errorString() if closed_by_qt else "its socket file was deleted",
                fd_limit.pressure(),
            )
            self.lost.emit(
                self.tr(
                    "Out of file descriptors: the single-instance socket was lost and is being "
                    "re-created (see the log; raise `ulimit -n`)."
                )
                if closed_by_qt
                else self.tr("The single-instance socket file was deleted; it is being re-created.")
            )
        self.server.close()
        if self.server.listen(self.name):
            log.info("single-instance socket listening again")
            self._down = False

    def _on_connection(self) -> None:
        while (socket := self.server.nextPendingConnection()) is not None:
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)
            # deleted by any route (closed, or with an old server): off the list at once
            socket.destroyed.connect(lambda _=None, s=socket: self._forget(s))
            idle = QTimer(socket)  # dies with the socket, so it never fires on a deleted one
            idle.setSingleShot(True)
            idle.timeout.connect(lambda s=socket: s.abort())
            idle.start(IDLE_MS)
            self.connections.append(socket)
            if len(self.connections) > MAX_CONNECTIONS:
                self.connections.pop(0).abort()
            if socket.bytesAvailable():
                self._read(socket)

    def _forget(self, socket: QLocalSocket) -> None:
        """A deleted connection leaves the list (compared by identity: its C++ side is gone)."""
        self.connections = [c for c in self.connections if c is not socket]

    def _read(self, socket: QLocalSocket) -> None:
        if bytes(socket.readAll().data()).startswith(ACTIVATE.strip()):
            log.info("a second launch asked for this window")
            self.activate_requested.emit()


def claim(name: str | None = None) -> InstanceGuard | None:
    """The guard of this, the first instance; None when another instance was asked to show."""
    name = name or server_name()
    if ask_running_instance(name):
        return None
    guard = InstanceGuard(name)
    guard.listen()  # its outcome is logged by log_state(), once the log file is open
    return guard
