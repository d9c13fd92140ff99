"""A fixture web server on 127.0.0.1, started by the tests themselves: what every fixture
site shares (a threaded server on a free port, its origin, shutdown) and a quiet handler."""

from __future__ import annotations

import http.server
import socket
import threading
from typing import Any


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """HTTP/1.1 (keep-alive, as browsers use it), no access log on stderr."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class LocalSite:
    def __init__(self, handler: type[http.server.BaseHTTPRequestHandler]) -> None:
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.origin + path

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class PortRecorder:
    """A listener of the test's own on `host:port` that records what reaches it (the first
    bytes of each connection): on another loopback address, it stands for a port of Warden."""

    def __init__(self, host: str, port: int) -> None:
        self.received: list[bytes] = []
        self.sock = socket.socket()
        self.sock.bind((host, port))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.open = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while self.open:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.received.append(conn.recv(4096))
                except OSError:
                    self.received.append(b"")

    def close(self) -> None:
        self.open = False
        self.sock.close()
