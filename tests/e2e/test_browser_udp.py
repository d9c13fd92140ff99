"""Hostile test of UDP from a guarded browser context (issue 30, class 5): no grant names UDP,
so none may leave the browser. A granted page (a "video call" app) opens RTCPeerConnections
with a STUN server, UDP and TCP TURN servers and a remote host candidate, all at a UDP port on
127.0.0.1 that the test listens on, plus remote candidates with a `.local` name (resolved by
multicast DNS) and a DNS name. The assertions are on what the test's own UDP sockets received:
nothing, in the session's own context and in the default one."""

from __future__ import annotations

import http.server
import socket
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from browser_helpers import CHROMIUM, ok
from browser_site import page

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

PROBE = "wardenprobe7c1d"


@dataclass
class UdpSink:
    """A UDP socket that records every datagram it receives."""

    sock: socket.socket
    got: list[tuple[Any, bytes]] = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    def run(self) -> None:
        while True:
            try:
                data, peer = self.sock.recvfrom(65536)
            except OSError:
                return
            self.got.append((peer, data))

    def close(self) -> None:
        self.sock.close()


def udp_sink(sock: socket.socket) -> UdpSink:
    sink = UdpSink(sock)
    threading.Thread(target=sink.run, daemon=True).start()
    return sink


@pytest.fixture()
def stun() -> Iterator[UdpSink]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sink = udp_sink(sock)
    yield sink
    sink.close()


@pytest.fixture()
def mdns() -> Iterator[UdpSink | None]:
    """A listener for multicast DNS queries (224.0.0.251:5353), where this machine allows one."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(("", 5353))
        group = struct.pack("4s4s", socket.inet_aton("224.0.0.251"), socket.inet_aton("0.0.0.0"))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, group)
    except OSError:
        sock.close()
        yield None
        return
    sink = udp_sink(sock)
    yield sink
    sink.close()


def call_page(port: int) -> str:
    """A call app that gathers candidates against servers at 127.0.0.1:port and pairs with
    remote candidates there, by name on the local link (mDNS) and by a DNS name."""
    return page(
        "Team call",
        f"""
<div id=app><div class="call-shell"><div class="toolbar"><div class="title">Weekly sync</div>
<div class="status" id=status>connecting</div></div><div class="tiles"><div class="tile me">You</div></div>
<div class="debug"><div id=log></div></div></div></div>
<script>
const log = (t) => {{ const d = document.createElement('div'); d.textContent = t; document.getElementById('log').append(d); }};
const servers = [{{urls: 'stun:127.0.0.1:{port}'}},
  {{urls: 'turn:127.0.0.1:{port}?transport=udp', username: 'u', credential: 'p'}},
  {{urls: 'turn:127.0.0.1:{port}?transport=tcp', username: 'u', credential: 'p'}}];
async function call() {{
  const pc = new RTCPeerConnection({{iceServers: servers, iceCandidatePoolSize: 2}});
  pc.createDataChannel('chat');
  pc.onicecandidate = (e) => log('candidate ' + (e.candidate ? e.candidate.candidate : 'end'));
  await pc.setLocalDescription(await pc.createOffer());
  const peer = new RTCPeerConnection();
  await peer.setRemoteDescription(pc.localDescription);
  await peer.setLocalDescription(await peer.createAnswer());
  await pc.setRemoteDescription(peer.localDescription);
  for (const host of ['127.0.0.1', '{PROBE}-1b2c3d4e.local', '{PROBE}.example.com']) {{
    await pc.addIceCandidate({{candidate: `candidate:9 1 udp 2122260223 ${{host}} {port} typ host`, sdpMid: '0'}})
      .then(() => log('remote ' + host), (e) => log('remote refused ' + e));
  }}
  document.getElementById('status').textContent = 'call started';
}}
call().catch((e) => {{ document.getElementById('status').textContent = 'call failed ' + e; }});
</script>""",
    )


@dataclass
class Site:
    server: http.server.ThreadingHTTPServer
    pages: dict[str, str] = field(default_factory=dict)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture()
def site() -> Iterator[Site]:
    holder: dict[str, Site] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            body = holder["site"].pages.get(self.path, page("Not found", "")).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    s = Site(server)
    holder["site"] = s
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield s
    server.shutdown()
    server.server_close()


async def test_webrtc_sends_no_udp_from_any_context(
    start_warden, write_manifest, site, stun, mdns, tmp_path
) -> None:
    site.pages["/call"] = call_page(stun.port)
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[capture]
profile_dir = "{tmp_path / 'capture-profile'}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site.origin}"] }}

[[plugin]]
name = "capture"
source = "builtin:capture"
limits = {{ call_timeout = "60s" }}
grants.capture = {{ origins = ["{site.origin}"] }}
""")
    async with start_warden(m) as w:
        # The default session, then a session of its own: each a context the guard made.
        for session in (None, "second"):
            if session:
                await ok(w, "browse_session", {"action": "create", "name": session})
            await ok(w, "browse_navigate", {"url": site.origin + "/call"})
            await ok(w, "browse_wait_for", {"text": "call started"})
            # ICE keeps trying for seconds: give it the time a real call would.
            await anyio.sleep(5.0)
            snap = await ok(w, "browse_snapshot", {"mode": "full"})
            assert "call started" in snap, snap
        # The capture browser's default context, on its persistent profile.
        captured = await ok(w, "capture_page", {"url": site.origin + "/call", "wait_until": "network_idle"})
        assert "Weekly sync" in captured, captured
        await anyio.sleep(2.0)
    assert stun.got == [], f"{len(stun.got)} datagram(s) reached 127.0.0.1:{stun.port}: {stun.got[:3]}"
    if mdns is not None:
        leaked = [(peer, data) for peer, data in mdns.got if PROBE.encode() in data]
        assert leaked == [], f"multicast DNS queries for the page's name left the browser: {leaked[:3]}"
