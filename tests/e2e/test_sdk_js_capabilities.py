"""One call from a JavaScript plugin into each host capability, against the real thing: the
browser on a local page (Warden's Chromium), a terminal on a local PTY and over SSH to the test
sshd, SFTP on that sshd, a remote desktop on the test RDP server, and capture. Each is refused
where the manifest grants nothing and allowed where it does, both audited; all of it in one
server, through the JS fixture (tests/guests/js-fixture)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_site import Site, start_site
from conftest import check_audit_line, text_of
from rdp_server import HEIGHT, WIDTH, rdp_server  # noqa: F401
from sshd import Sshd, start_sshd, stop_sshd
from test_plugin_js import build_js

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def fixture_wasm(tmp_path_factory, warden_bin):
    return build_js(tmp_path_factory, warden_bin).fixture


@pytest.fixture(scope="module")
def box(tmp_path_factory) -> Iterator[Sshd]:
    server = start_sshd(tmp_path_factory.mktemp("js-sshd"))
    yield server
    stop_sshd(server)


@pytest.fixture()
def sites() -> Iterator[tuple[Site, Site]]:
    """(a granted site, a site that is not granted)."""
    granted, other = start_site(), start_site()
    for site in (granted, other):
        site.pages["/hello"] = "<!doctype html><title>Hello from a local page</title><p>hi</p>"
    yield granted, other
    granted.close()
    other.close()


async def refused(w, tool: str, args: dict, grant: str) -> None:
    result = await w.call(tool, args, timeout=60)
    assert result.is_error and text_of(result).startswith("access denied"), (tool, text_of(result))
    assert grant in text_of(result), (tool, grant, text_of(result))


async def ok(w, tool: str, args: dict) -> str:
    result = await w.call(tool, args, timeout=60)
    assert not result.is_error, (tool, text_of(result))
    return text_of(result)


async def test_each_capability_refused_then_allowed(
    start_warden, write_manifest, fixture_wasm, box, rdp_server, chromium, sites, http_server, http_server2  # noqa: F811
) -> None:
    site, other = sites
    root = box.dir / "files"
    root.mkdir(exist_ok=True)
    (root / "hello.txt").write_text("hello over sftp\n")
    (box.dir / "outside.txt").write_text("not granted\n")
    body = f'[browser]\nexecutable = "{chromium}"\n\n'
    body += box.host_block() + box.host_block(alias="box2")
    body += rdp_server.host_block() + rdp_server.host_block(alias="desk2")
    body += f"""[[plugin]]
name = "jsfx"
source = "{fixture_wasm}"
tool_prefix = "js_"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site.origin}"] }}
grants.terminal = {{ local = true, ssh_hosts = ["box"] }}
grants.sftp = {{ hosts = ["box"], roots = ["{root}"] }}
grants.rdp = {{ hosts = ["desk"] }}
grants.capture = {{ http_hosts = ["127.0.0.1:{http_server.port}"] }}
"""
    manifest = write_manifest(body)
    async with start_warden(manifest) as w:
        await refused(w, "js_page_title", {"url": other.url("/hello")}, "grants.browser.origins")
        assert await ok(w, "js_page_title", {"url": site.url("/hello")}) == "Hello from a local page"

        await refused(w, "js_shell_open", {"host": "box2"}, "grants.terminal.ssh_hosts")
        for host, word in ((None, "local"), ("box", "ssh")):
            opened = await w.call("js_shell_open", {"host": host} if host else {}, timeout=60)
            assert not opened.is_error, text_of(opened)
            out = await ok(w, "js_shell_run", {"id": opened.structured_content["id"], "command": f"echo $((6*7))-{word}"})
            assert f"42-{word}" in out, out

        await refused(w, "js_sftp_read", {"host": "box2", "path": str(root / "hello.txt")}, "grants.sftp.hosts")
        await refused(w, "js_sftp_read", {"host": "box", "path": str(box.dir / "outside.txt")}, "outside the granted sftp.roots")
        assert await ok(w, "js_sftp_read", {"host": "box", "path": str(root / "hello.txt")}) == "hello over sftp\n"

        await refused(w, "js_desktop_size", {"host": "desk2"}, "grants.rdp.hosts")
        assert await ok(w, "js_desktop_size", {"host": "desk"}) == f"{WIDTH}x{HEIGHT}"

        await refused(w, "js_status", {"url": http_server2.url("/js")}, "grants.capture.http_hosts")
        assert '"status": 200' in await ok(w, "js_status", {"url": http_server.url("/js")})
    assert other.requests == [] and http_server2.requests == [], "a refused request reached its server"

    lines = manifest.audit_lines()
    for line in lines:
        check_audit_line(line)
    denied = {line["capability"].split(".")[0] for line in lines if line["event"] == "capability_denied"}
    used = {line["capability"].split(".")[0] for line in lines if line["event"] == "capability_used"}
    for capability in ("browser", "terminal", "sftp", "rdp", "capture"):
        assert capability in denied and capability in used, (capability, denied, used)
