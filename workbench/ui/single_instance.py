"""One window per user: a second launch asks the first to come forward, then exits 0.

The first instance listens on a local socket whose name is per user and per configuration
folder (two configurations are two apps). A second launch connects, sends one line and leaves.
A crashed instance leaves its socket file behind on Unix. Nobody answers on it, and listening
with UserAccessOption binds in a private folder and renames the socket over the old name, so
the stale file never blocks a start (tests/test_single_instance.py kills an instance to check).
"""

from __future__ import annotations

import getpass
import hashlib
import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from workbench.core.provider_files import default_config_dir

log = logging.getLogger(__name__)

ACTIVATE = b"activate\n"
CONNECT_MS = 500
WRITE_MS = 1000


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

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._on_connection)

    def listen(self) -> bool:
        return self.server.listen(self.name)

    def _on_connection(self) -> None:
        while (socket := self.server.nextPendingConnection()) is not None:
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)
            if socket.bytesAvailable():
                self._read(socket)

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
    if not guard.listen():
        log.warning("single-instance guard off: %s", guard.server.errorString())
    return guard
