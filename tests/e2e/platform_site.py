"""Fixture servers and assets for the web platform parity suite's pages (other than the
workers page, `worker_site.py`): what the pages load and talk to, and the app shell they
share. The pages themselves are in `platform_pages.py`.

- `app`: the granted origin; serves every page, its assets, a chunked stream, an event
  stream, a WebSocket echo and a download.
- `api`: granted only as a resource origin (CORS open); serves the same assets, streams and
  sockets, so each page also uses it across origins.
- a tracker per page: granted nothing; serves the same, so what each page sends there reaches
  it from the reference and is refused in Warden (the page reports `reached` or `refused`),
  and each refusal's audit line names the page's own tracker.

Every request a page makes carries `run=<run>` from the page's own query, so one set of
servers serves the reference browser and Warden's browser in turn, and each server's
`received` tells the two runs apart.
"""

from __future__ import annotations

import base64
import functools
import glob
import hashlib
import http.server
import math
import shutil
import struct
import subprocess
import threading
import time
import zlib
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from local_site import RecordingSite

JS = "text/javascript"
HTML = "text/html; charset=utf-8"

# (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
ADD_WASM = bytes.fromhex(
    "0061736d01000000" "01070160027f7f017f" "03020100" "070701036164640000" "0a09010700200020016a0b"
)


def tone_wav(seconds: float = 0.5, rate: int = 8000) -> bytes:
    """A mono 16-bit PCM WAV of a 440 Hz tone: audio every Chromium decodes."""
    n = int(seconds * rate)
    samples = b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / rate))) for i in range(n))
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", len(body)) + body


def red_png(size: int = 4) -> bytes:
    """A `size`-pixel square of opaque red (255, 0, 0) as a PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * size for _ in range(size))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def system_font() -> bytes:
    """A TrueType font of the machine's (Chromium's package brings fontconfig and a font)."""
    found = shutil.which("fc-match") and subprocess.run(
        ["fc-match", "-f", "%{file}", "sans:fontformat=TrueType"], capture_output=True, text=True
    ).stdout
    candidates = [found] if found and found.endswith(".ttf") else []
    candidates += sorted(glob.glob("/usr/share/fonts/**/*.ttf", recursive=True))
    assert candidates, "no TrueType font on this machine: install fonts-dejavu-core"
    with open(candidates[0], "rb") as f:
        return f.read()


def gate_of(handler: http.server.BaseHTTPRequestHandler) -> str:
    """A stream's gate: one per run and feature (`run=`, `f=` of the request)."""
    query = parse_qs(urlsplit(handler.path).query)
    return query.get("run", ["none"])[0] + "&" + query.get("f", [""])[0]


@dataclass
class Releases:
    """The chunked stream's gate: a stream holds its second chunk until the page asks for it
    (`/feed/release`, same `run` and `f`), so a page that got its first chunk before asking proves the response
    was streamed to it, not buffered whole on the way."""

    events: dict[str, threading.Event] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def of(self, run: str) -> threading.Event:
        with self.lock:
            return self.events.setdefault(run, threading.Event())


def stream(releases: Releases):
    def answer(h: http.server.BaseHTTPRequestHandler) -> None:
        release = releases.of(gate_of(h))
        h.send_response(200)
        h.send_header("Content-Type", "application/x-ndjson")
        h.send_header("Transfer-Encoding", "chunked")
        h.send_header("Cache-Control", "no-store")
        h.send_header("Access-Control-Allow-Origin", "*")
        h.end_headers()

        def chunk(text: str) -> None:
            data = text.encode()
            h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            h.wfile.flush()

        try:
            chunk('{"row":1,"sku":"NW-1001"}\n')
            held = "released" if release.wait(5) else "timed out"
            chunk(f'{{"row":2,"sku":"NW-1002","gate":"{held}"}}\n')
            chunk('{"row":3,"sku":"NW-1003"}\n')
            h.wfile.write(b"0\r\n\r\n")
            h.wfile.flush()
        except OSError:
            h.close_connection = True  # the page aborted its read

    return answer


def release(releases: Releases):
    def answer(h: http.server.BaseHTTPRequestHandler) -> None:
        releases.of(gate_of(h)).set()
        plain(h, "released")

    return answer


def plain(h: http.server.BaseHTTPRequestHandler, text: str, kind: str = "text/plain", extra: dict | None = None) -> None:
    data = text.encode()
    h.send_response(200)
    h.send_header("Content-Type", kind)
    h.send_header("Content-Length", str(len(data)))
    h.send_header("Cache-Control", "no-store")
    h.send_header("Access-Control-Allow-Origin", "*")
    for name, value in (extra or {}).items():
        h.send_header(name, value)
    h.end_headers()
    h.wfile.write(data)


def events(h: http.server.BaseHTTPRequestHandler) -> None:
    """An event stream of price ticks: two events (ids 1 and 2), then the server hangs up; a
    reconnect that says `Last-Event-ID: 2` gets the third, which names the id it resumed
    from, and the stream stays open until the page closes it."""
    h.send_response(200)
    h.send_header("Content-Type", "text/event-stream")
    h.send_header("Cache-Control", "no-store")
    h.send_header("Access-Control-Allow-Origin", "*")
    h.send_header("Connection", "close")
    h.end_headers()
    h.close_connection = True
    last = h.headers.get("Last-Event-ID")
    try:
        if last is None:
            h.wfile.write(b'retry: 150\nid: 1\nevent: tick\ndata: {"sym":"NWND","px":101.5}\n\n')
            h.wfile.write(b": keep-alive\n\nid: 2\nevent: tick\ndata: {\"sym\":\"NWND\",\ndata: \"px\":102.25}\n\n")
            h.wfile.flush()
            return
        h.wfile.write(f"id: 3\ndata: resumed after {last}\n\n".encode())
        h.wfile.flush()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(0.2)
            h.wfile.write(b": ping\n\n")
            h.wfile.flush()
    except OSError:
        pass


def websocket(h: http.server.BaseHTTPRequestHandler) -> None:
    """A WebSocket echo (RFC 6455): text and binary messages come back as sent; the text `bye` is answered with a close of code 4001, reason `done`."""
    key = h.headers.get("Sec-WebSocket-Key")
    if not key or h.headers.get("Upgrade", "").lower() != "websocket":
        plain(h, "a WebSocket endpoint")
        return
    accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
    h.send_response(101)
    h.send_header("Upgrade", "websocket")
    h.send_header("Connection", "Upgrade")
    h.send_header("Sec-WebSocket-Accept", accept)
    h.end_headers()
    h.wfile.flush()
    h.close_connection = True

    def frame(opcode: int, payload: bytes) -> bytes:
        n = len(payload)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([n])
        elif n < 65536:
            head += bytes([126]) + struct.pack(">H", n)
        else:
            head += bytes([127]) + struct.pack(">Q", n)
        return head + payload

    message, kind = b"", 0
    try:
        while True:
            b0, b1 = h.rfile.read(2)
            fin, opcode, n = b0 & 0x80, b0 & 0x0F, b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack(">H", h.rfile.read(2))
            elif n == 127:
                (n,) = struct.unpack(">Q", h.rfile.read(8))
            mask = h.rfile.read(4) if b1 & 0x80 else b"\0\0\0\0"
            payload = bytes(c ^ mask[i % 4] for i, c in enumerate(h.rfile.read(n)))
            if opcode == 8:
                h.wfile.write(frame(8, payload[:2]))
                return
            if opcode == 9:
                h.wfile.write(frame(10, payload))
            elif opcode in (0, 1, 2):
                # A long message comes in fragments: echo it whole.
                message, kind = message + payload, kind or opcode
                if not fin:
                    continue
                if kind == 1 and message == b"bye":
                    h.wfile.write(frame(8, struct.pack(">H", 4001) + b"done"))
                    h.wfile.flush()
                    return
                h.wfile.write(frame(kind, message))
                message, kind = b"", 0
            h.wfile.flush()
    except (OSError, ValueError):
        return


# The file the downloads page fetches from the server (the other two it makes itself).
REPORT_CSV = "region,quarter,revenue\nnorth,Q3,182000\nsouth,Q3,97500\n"


def report(h: http.server.BaseHTTPRequestHandler) -> None:
    plain(h, REPORT_CSV, "text/csv", {"Content-Disposition": 'attachment; filename="q3-revenue.csv"'})


@functools.cache
def assets() -> dict[str, tuple[str, bytes]]:
    return {
        "/assets/add.wasm": ("application/wasm", ADD_WASM),
        "/assets/brand.ttf": ("font/ttf", system_font()),
        "/assets/tone.wav": ("audio/wav", tone_wav()),
        "/assets/logo.png": ("image/png", red_png()),
    }


def serving_assets(site: RecordingSite) -> RecordingSite:
    """`site` with what every server of the suite serves: the assets, the streams, the
    socket and the download."""
    releases = Releases()
    site.pages.update(assets())
    site.routes.update(
        {
            "/feed/stream": stream(releases),
            "/feed/release": release(releases),
            "/feed/events": events,
            "/feed/socket": websocket,
            "/export/q3-revenue.csv": report,
        }
    )
    return site


@dataclass
class PlatformSites:
    """The app and the API, and a tracker per page (so each refusal's audit line is the
    page's own), started when a page's address is first asked for."""

    app: RecordingSite
    api: RecordingSite
    trackers: dict[str, RecordingSite] = field(default_factory=dict)

    def tracker(self, path: str) -> RecordingSite:
        if path not in self.trackers:
            self.trackers[path] = serving_assets(RecordingSite())
        return self.trackers[path]

    def url(self, path: str, run: str) -> str:
        """The app's page at `path` for run `run`, told where the API and its tracker are."""
        return self.app.url(f"{path}?run={run}&api={self.api.origin}&tracker={self.tracker(path).origin}")

    def close(self) -> None:
        for site in (self.app, self.api, *self.trackers.values()):
            site.close()


def start_platform_sites(pages: dict[str, str]) -> PlatformSites:
    """The app (serving `pages`, path -> HTML) and the API; the trackers come on demand.
    The app's answers may be kept: the back/forward cache takes no `no-store` page."""
    app, api = serving_assets(RecordingSite(cacheable=True)), serving_assets(RecordingSite())
    app.pages.update({path: (HTML, html) for path, html in pages.items()})
    return PlatformSites(app, api)
