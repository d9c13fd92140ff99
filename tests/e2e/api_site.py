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
  GET  /coded?enc=E       the echo as each serializer in SERIALIZERS writes it (one document
                          a line), in content coding E (stacked: `gzip,br`; `deflate-raw` is
                          raw deflate labelled `deflate`; `compress`, `bomb`: 16 MiB of zeros
                          in gzip); the token hex-encoded in a header's name
  GET  /previous          the echo of the bearer token the request before this one carried
  POST /token             an OAuth token endpoint: `at-N-…`, expires_in 30
  *                       200 "ok"
"""

from __future__ import annotations

import base64
import functools
import gzip
import http.server
import json
import secrets
import socket
import threading
import urllib.parse
import zlib
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


def _escape(text: str, table: dict[str, str]) -> str:
    for plain, escaped in table.items():
        text = text.replace(plain, escaped)
    return text


#: How each language's standard JSON serializer writes a document: Python's json.dumps
#: (ensure_ascii), PHP's json_encode (`\/`), Go's encoding/json (`<>&` as `\u003c`...),
#: .NET's System.Text.Json (`+<>&'` as `\u002B`..., uppercase hex), Java's Gson (`<>&='`).
SERIALIZERS = {
    "python": lambda doc: json.dumps(doc),
    "php": lambda doc: json.dumps(doc, separators=(",", ":")).replace("/", "\\/"),
    "go": lambda doc: _escape(json.dumps(doc, separators=(",", ":"), ensure_ascii=False),
                              {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}),
    "dotnet": lambda doc: _escape(json.dumps(doc, separators=(",", ":")),
                                  {"+": "\\u002B", "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "'": "\\u0027"}),
    "gson": lambda doc: _escape(json.dumps(doc, separators=(",", ":")),
                                {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "=": "\\u003d", "'": "\\u0027"}),
}


@functools.cache
def _bomb() -> bytes:
    return gzip.compress(b"\0" * (16 << 20), compresslevel=6)


def encode(body: bytes, coding: str) -> tuple[bytes, str]:
    """`body` in content coding `coding` (see /coded), and the Content-Encoding to send."""
    if coding == "identity":
        return body, "identity"
    if coding in ("gzip", "x-gzip"):
        return gzip.compress(body), coding
    if coding == "deflate":
        return zlib.compress(body), "deflate"
    if coding == "deflate-raw":
        c = zlib.compressobj(wbits=-15)
        return c.compress(body) + c.flush(), "deflate"
    if coding == "br":
        import brotli

        return brotli.compress(body), "br"
    if coding == "zstd":
        import zstandard

        return zstandard.ZstdCompressor().compress(body), "zstd"
    if coding == "compress":
        return body, "compress"
    if coding == "bomb":
        return _bomb(), "gzip"
    raise ValueError(coding)


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

        def _answer(self, r: Received, token: str | None = None) -> dict[str, Any]:
            auth = r.headers.get("authorization", "")
            if token is None:
                token = auth.split(" ", 1)[1] if " " in auth else ""
            try:
                sent = json.loads(r.body or b"{}")
            except ValueError:
                sent = {}
            return {
                "id": len(holder["site"].received),
                "title": sent.get("title") if isinstance(sent, dict) else None,
                "headers": r.headers,
                "token": token,
                "token_b64": base64.b64encode(token.encode()).decode(),
                "query": urllib.parse.urlparse(r.path).query,
            }

        def _echo(self, r: Received, status: int) -> None:
            answer = self._answer(r)
            auth = r.headers.get("authorization", "")
            self._send(status, json.dumps(answer).encode(), {"Content-Type": "application/json", "X-Echo-Auth": auth})

        def _coded(self, r: Received, codings: list[str]) -> None:
            answer = self._answer(r)
            body = "\n".join(f(answer) for f in SERIALIZERS.values()).encode()
            names = []
            for coding in codings:
                body, name = encode(body, coding)
                names.append(name)
            headers = {"Content-Type": "application/x-ndjson", "Content-Encoding": ", ".join(names)}
            headers["X-" + answer["token"].encode().hex()] = "1"
            self._send(200, body, headers)

        def do_GET(self) -> None:  # noqa: N802
            r = self._record(b"")
            parsed = urllib.parse.urlparse(self.path)
            query = urllib.parse.parse_qs(parsed.query)
            if parsed.path == "/echo":
                self._echo(r, 200)
            elif parsed.path == "/coded":
                self._coded(r, query["enc"][0].split(","))
            elif parsed.path == "/previous":
                carried = [x for x in holder["site"].received if "authorization" in x.headers]
                before = carried[-2].headers["authorization"].split(" ", 1)[1] if len(carried) > 1 else ""
                self._send(200, json.dumps(self._answer(r, before)).encode(), {"Content-Type": "application/json"})
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
            elif self.path.startswith("/token"):
                n = sum(1 for x in holder["site"].received if x.path.startswith("/token"))
                token = {"access_token": f"at-{n}-{secrets.token_hex(8)}", "token_type": "Bearer", "expires_in": 30}
                self._send(200, json.dumps(token).encode(), {"Content-Type": "application/json"})
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
