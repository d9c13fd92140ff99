"""A fixture web server on 127.0.0.1, started by the tests themselves: what every fixture
site shares (a threaded server on a free port, its origin, shutdown) and a quiet handler."""

from __future__ import annotations

import http.server
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
