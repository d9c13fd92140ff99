"""A navigation the network guard could not carry says why (issue 32): the browser only learns
that its proxy failed (`net::ERR_TUNNEL_CONNECTION_FAILED`, `ERR_EMPTY_RESPONSE`), while the
guard knows the name does not resolve, or nothing listens on the port. `browse_navigate` and
`capture_page` report the guard's reason, in words an agent can act on."""

from __future__ import annotations

import socket

import pytest

from browser_helpers import CHROMIUM, err

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manifest(write_manifest, tmp_path, origins: str) -> object:
    return write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[capture]
profile_dir = "{tmp_path / 'capture-profile'}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = [{origins}] }}

[[plugin]]
name = "capture"
source = "builtin:capture"
limits = {{ call_timeout = "60s" }}
grants.capture = {{ origins = [{origins}] }}
""")


# RFC 6761: `.invalid` names never resolve. A machine without a reachable DNS server answers
# with a temporary failure instead, which the message names too.
NO_SUCH_NAME = ("does not resolve (DNS: no such host); check the spelling", "could not be resolved now")


async def test_a_name_that_does_not_resolve_is_named(start_warden, write_manifest, tmp_path) -> None:
    m = manifest(write_manifest, tmp_path, '"http://*.invalid", "https://*.invalid"')
    async with start_warden(m) as w:
        for url in ("http://shop.invalid/cart", "https://shop.invalid/cart"):
            said = await err(w, "browse_navigate", {"url": url})
            assert "shop.invalid" in said and any(s in said for s in NO_SUCH_NAME), said
            assert "ERR_" not in said, said
            said = await err(w, "capture_page", {"url": url})
            assert "shop.invalid" in said and any(s in said for s in NO_SUCH_NAME), said


async def test_a_port_nothing_listens_on_is_named(start_warden, write_manifest, tmp_path) -> None:
    port = closed_port()
    m = manifest(write_manifest, tmp_path, f'"http://127.0.0.1:{port}"')
    async with start_warden(m) as w:
        said = await err(w, "browse_navigate", {"url": f"http://127.0.0.1:{port}/app"})
        assert "refused the connection: nothing listens on that port" in said, said
        said = await err(w, "capture_page", {"url": f"http://127.0.0.1:{port}/app"})
        assert "nothing listens on that port" in said, said
