"""A JSON API for the wasi:http tests, on a loopback address of the test's choosing, that
records everything it receives (method, path, headers, body bytes) and connections, and is
as hostile to its caller's secrets as an API can be: it echoes request headers, reflects the
bearer token in its body plain and base64 and in a response header, redirects wherever a test
asks, answers slowly, answers too much.

  POST /issues            201, JSON {id, title, headers, token, token_b64}; header X-Echo-Auth
  GET  /echo              200, the same JSON
  GET  /redirect?to=URL   302 to URL
  GET  /big?n=N[&chunked=1]  N bytes of "x", with or without Content-Length
  GET  /slow              waits for `release` (set when the test ends), then 200
  POST /upload            200, how many body bytes arrived (chunked or not)
  *                       200 "ok"
"""

from __future__ import annotations

import base64
import http.server
import json
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]  # names lowercased
    body: bytes


@dataclass
class ApiSite:
    server: http.server.ThreadingHTTPServer
    host: str
    received: list[Received] = field(default_factory=list)
    connections: int = 0
    release: threading.Event = field(default_factory=threading.Event)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def everything(self) -> str:
        """All the site received, as text: for searching it."""
        parts = []
        for r in self.received:
            parts.append(f"{r.method} {r.path}")
            parts.extend(f"{k}: {v}" for k, v in r.headers.items())
            parts.append(r.body.decode("latin-1"))
        return "\n".join(parts)

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _read_body(handler: http.server.BaseHTTPRequestHandler) -> bytes:
    """The request body, plain or chunked; what arrived when the sender stopped short."""
    out = bytearray()
    try:
        if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size_line = handler.rfile.readline()
                if not size_line:
                    break
                size = int(size_line.strip().split(b";")[0] or b"0", 16)
                if size == 0:
                    handler.rfile.readline()
                    break
                chunk = handler.rfile.read(size)
                out += chunk
                if len(chunk) < size:
                    break
                handler.rfile.readline()
        else:
            length = int(handler.headers.get("Content-Length") or 0)
            out += handler.rfile.read(length)
    except (OSError, ValueError):
        pass
    return bytes(out)


def start_api(host: str = "127.0.0.1") -> ApiSite:
    holder: dict[str, ApiSite] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            holder["site"].connections += 1

        def _record(self, body: bytes) -> Received:
            r = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            holder["site"].received.append(r)
            return r

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None, length: bool = True) -> None:
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            if length:
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                step = 16384
                for i in range(0, len(body), step):
                    part = body[i : i + step]
                    try:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    except OSError:
                        return
                self.wfile.write(b"0\r\n\r\n")

        def _echo(self, r: Received, status: int) -> None:
            auth = r.headers.get("authorization", "")
            token = auth.split(" ", 1)[1] if " " in auth else ""
            try:
                sent = json.loads(r.body or b"{}")
            except ValueError:
                sent = {}
            answer: dict[str, Any] = {
                "id": len(holder["site"].received),
                "title": sent.get("title") if isinstance(sent, dict) else None,
                "headers": r.headers,
                "token": token,
                "token_b64": base64.b64encode(token.encode()).decode(),
                "query": urllib.parse.urlparse(r.path).query,
            }
            self._send(status, json.dumps(answer).encode(), {"Content-Type": "application/json", "X-Echo-Auth": auth})

        def do_GET(self) -> None:  # noqa: N802
            r = self._record(b"")
            parsed = urllib.parse.urlparse(self.path)
            query = urllib.parse.parse_qs(parsed.query)
            if parsed.path == "/echo":
                self._echo(r, 200)
            elif parsed.path == "/redirect":
                self._send(302, b"", {"Location": query["to"][0]})
            elif parsed.path == "/big":
                n = int(query["n"][0])
                self._send(200, b"x" * n, {"Content-Type": "text/plain"}, length="chunked" not in query)
            elif parsed.path == "/slow":
                holder["site"].release.wait(30)
                self._send(200, b"late")
            else:
                self._send(200, b"ok")

        def do_POST(self) -> None:  # noqa: N802
            r = self._record(_read_body(self))
            if self.path.startswith("/issues"):
                self._echo(r, 201)
            elif self.path.startswith("/upload"):
                self._send(200, str(len(r.body)).encode())
            else:
                self._send(200, b"ok")

        do_DELETE = do_GET  # noqa: N815
        do_PUT = do_POST  # noqa: N815

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer((host, 0), Handler)
    server.daemon_threads = True
    site = ApiSite(server, host)
    holder["site"] = site
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site


def loopback_hostname() -> str | None:
    """A DNS name (not `localhost`) this machine resolves to a loopback address, if any."""
    name = socket.gethostname()
    try:
        addrs = {info[4][0] for info in socket.getaddrinfo(name, 80)}
    except OSError:
        return None
    if addrs and all(a.startswith("127.") or a == "::1" for a in addrs):
        return name
    return None
