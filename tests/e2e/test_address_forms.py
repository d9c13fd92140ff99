"""Hostile tests of IPv6 spellings that carry an IPv4 address (issue 30, class 6): 6to4,
Teredo (server field and the inverted client field), ISATAP, IPv4-translated and local-use
NAT64 addresses that carry 127.0.0.1 are loopback, whatever their IPv6 prefix says, so a grant
that does not name them literally (`"*:*"`, `"http://*:*"`) never opens them. Each form is
tried with `http_get`, a browser page and a capture; a server on 127.0.0.1 counts the
connections it accepts (none), and each refusal is an audit line that says loopback."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from browser_helpers import CHROMIUM, err, ok

pytestmark = pytest.mark.anyio


def forms(port: int) -> dict[str, str]:
    """Each transition form of 127.0.0.1, as a URL host."""
    return {
        "6to4": f"http://[2002:7f00:1::1]:{port}/",
        "Teredo server": f"http://[2001:0:7f00:1::f7f7:fbfb]:{port}/",
        "Teredo client (inverted)": f"http://[2001:0:808:808:8000:ffff:80ff:fffe]:{port}/",
        "ISATAP": f"http://[2001:db8:1:2:200:5efe:7f00:1]:{port}/",
        "IPv4-translated": f"http://[::ffff:0:7f00:1]:{port}/",
        "local-use NAT64": f"http://[64:ff9b:1::7f00:1]:{port}/",
    }


@dataclass
class Counter:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts."""

    sock: socket.socket
    accepted: int = 0

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    def run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()


@pytest.fixture()
def target() -> Iterator[Counter]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    counter = Counter(sock)
    threading.Thread(target=counter.run, daemon=True).start()
    yield counter
    sock.close()


def loopback_denials(m) -> list[dict]:
    return [
        line
        for line in m.audit_lines()
        if line["event"] == "capability_denied" and "loopback" in (line.get("reason") or "")
    ]


async def test_http_get_refuses_every_form_carrying_loopback(start_warden, write_manifest, target) -> None:
    m = write_manifest("""
[[plugin]]
name = "capture"
source = "builtin:capture"
grants.capture = { http_hosts = ["*", "*:*"] }
""")
    async with start_warden(m) as w:
        for form, url in forms(target.port).items():
            refused = await err(w, "http_get", {"url": url})
            assert "private networks are closed" in refused and "loopback" in refused, (form, refused)
            assert "carrying 127.0.0.1" in refused, (form, refused)
        lines = loopback_denials(m)
        assert len(lines) >= len(forms(target.port)), lines
    assert target.accepted == 0


@pytest.mark.usefixtures("chromium")
async def test_pages_and_captures_refuse_every_form_carrying_loopback(
    start_warden, write_manifest, target, tmp_path
) -> None:
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[capture]
profile_dir = "{tmp_path / 'capture-profile'}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["http://*:*"] }}

[[plugin]]
name = "capture"
source = "builtin:capture"
limits = {{ call_timeout = "60s" }}
grants.capture = {{ origins = ["http://*:*"] }}
""")
    async with start_warden(m) as w:
        for form, url in forms(target.port).items():
            # The guard's refusal is the page the tab shows.
            result = await w.call("browse_navigate", {"url": url}, timeout=60)
            shown = await ok(w, "browse_snapshot", {"mode": "full"})
            said = shown + (result.content[0].text if result.content else "")
            assert "loopback" in said, (form, said)
            captured = await w.call("capture_page", {"url": url}, timeout=60)
            text = "".join(getattr(b, "text", "") for b in captured.content)
            assert "loopback" in text, (form, text)
        lines = loopback_denials(m)
        assert {line["plugin"] for line in lines} == {"browser", "capture"}, lines
    assert target.accepted == 0


async def test_a_literal_grant_of_the_form_is_needed_and_enough(start_warden, write_manifest, target) -> None:
    """The refusal names the grant that opens it; written into the manifest, it loads, and the
    same call goes on to the address (here it reaches nothing: no 6to4 tunnel on this host)."""
    url = forms(target.port)["IPv4-translated"]
    m = write_manifest("""
[[plugin]]
name = "capture"
source = "builtin:capture"
grants.capture = { http_hosts = ["*:*"] }
""")
    async with start_warden(m) as w:
        refused = await err(w, "http_get", {"url": url})
    suggested = f"[::ffff:0:7f00:1]:{target.port}"
    assert f'add "{suggested}" to grants.capture.http_hosts' in refused, refused
    m = write_manifest(f"""
[[plugin]]
name = "capture"
source = "builtin:capture"
grants.capture = {{ http_hosts = ["{suggested}"] }}
""")
    async with start_warden(m) as w:
        result = await w.call("http_get", {"url": url}, timeout=30)
        text = "".join(getattr(b, "text", "") for b in result.content)
        assert "private networks are closed" not in text, text
