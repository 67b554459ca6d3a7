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
"""

from __future__ import annotations

import getpass
import hashlib
import logging
import os

from PySide6.QtCore import QObject, QTimer, Signal
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


def server_name() -> str:
    """Per user and per configuration folder; short, since Unix socket paths are limited."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container): the folder still differs
        user = "user"
    digest = hashlib.sha256(f"{user}\0{default_config_dir()}".encode()).hexdigest()[:16]
    return f"attention-workbench-{digest}"


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
        self._timer.start()
        return self.server.listen(self.name)

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
    if guard.listen():
        log.info("single-instance guard listening on %s", guard.server.fullServerName())
    else:  # retried every CHECK_MS
        log.warning("single-instance guard off for now: %s", guard.server.errorString())
    return guard
