"""A fixture web server on 127.0.0.1, started by the tests themselves: what every fixture
site shares (a threaded server on a free port, its origin, shutdown) and a quiet handler."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Received:
    """One request a `RecordingSite` got: `GET /path?query`, and what the browser said it was
    for (`Sec-Fetch-Dest`, `Sec-Purpose`: a prefetch)."""

    line: str
    dest: str
    purpose: str


class RecordingSite(LocalSite):
    """A server that answers `pages` (path -> (content type, body, text or bytes)) with CORS
    open and `headers` added, and records every request it gets and every connection it
    accepts: what a test asserts on. A path in `routes` is answered by its function instead,
    given the request's handler (streams, event streams, WebSocket upgrades). `cacheable`:
    answers may be kept (the back/forward cache needs it); otherwise `no-store`."""

    def __init__(self, headers: dict[str, str] | None = None, cacheable: bool = False) -> None:
        self.pages: dict[str, tuple[str, str | bytes]] = {}
        self.routes: dict[str, Callable[[http.server.BaseHTTPRequestHandler], None]] = {}
        self.received: list[Received] = []
        self.connections = 0
        site = self

        class Handler(QuietHandler):
            def setup(self) -> None:
                site.connections += 1
                super().setup()

            def answer(self) -> None:
                site.received.append(
                    Received(f"{self.command} {self.path}", self.headers.get("Sec-Fetch-Dest", ""), self.headers.get("Sec-Purpose", ""))
                )
                route = site.routes.get(self.path.split("?")[0])
                if route is not None:
                    route(self)
                    return
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                kind, body = site.pages.get(self.path.split("?")[0], ("text/plain", "pong"))
                data = body if isinstance(body, bytes) else body.encode()
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "max-age=600" if cacheable else "no-store")
                self.send_header("Access-Control-Allow-Origin", "*")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = answer  # noqa: N815

        super().__init__(Handler)

    @property
    def requests(self) -> list[str]:
        return [r.line for r in self.received]

    def got(self, fragment: str) -> list[Received]:
        """The requests whose line holds `fragment`."""
        return [r for r in self.received if fragment in r.line]


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
