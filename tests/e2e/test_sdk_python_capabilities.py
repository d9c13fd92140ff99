"""One call from a Python plugin into each capability, against the real host and the real
far ends: a local PTY and the test sshd (terminal), SFTP on that sshd, Chromium on a local
page, the test RDP server, and a local site (capture: HTTP and a page). Each is refused while the
manifest grants nothing, and allowed once the grant is added (the server reloads the
manifest); both are audited. One server for the module."""

from __future__ import annotations

import http.server
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from browser_helpers import CHROMIUM
from local_site import LocalSite, QuietHandler
from mcp import Client
from ops_helpers import free_port, serve
from rdp_server import HEIGHT, WIDTH, RdpServer, rdp_server  # noqa: F401 - the module's desktop
from sshd import Sshd, start_sshd, stop_sshd
from test_plugin_python import fixture_component

from conftest import Manifest, check_audit_line, plugin_block

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

TITLE = "Python fixture page"


class Page(QuietHandler):
    def do_GET(self) -> None:  # noqa: N802
        body = f"<!doctype html><title>{TITLE}</title><p>hello".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@dataclass
class Ends:
    """The far ends the capabilities reach, and the grants that allow them."""

    sshd: Sshd
    desk: RdpServer
    site: LocalSite
    files: Path

    def hosts(self) -> str:
        return self.sshd.host_block() + self.desk.host_block() + f'[browser]\nexecutable = "{CHROMIUM}"\n\n'

    def grants(self) -> str:
        port = self.site.server.server_address[1]
        return (
            'grants.terminal = { local = true, ssh_hosts = ["box"] }\n'
            f'grants.sftp = {{ hosts = ["box"], roots = ["{self.files}"] }}\n'
            f'grants.browser = {{ origins = ["{self.site.origin}"] }}\n'
            'grants.rdp = { hosts = ["desk"] }\n'
            f'grants.capture = {{ http_hosts = ["127.0.0.1:{port}"], origins = ["{self.site.origin}"] }}\n'
        )


@pytest.fixture(scope="module")
def ends(tmp_path_factory: pytest.TempPathFactory, rdp_server: RdpServer) -> Iterator[Ends]:  # noqa: F811
    root = tmp_path_factory.mktemp("sdk-python-ends")
    sshd = start_sshd(root / "sshd")
    files = root / "files"
    files.mkdir()
    (files / "a.txt").write_text("a")
    (files / "b.txt").write_text("b")
    site = LocalSite(Page)
    yield Ends(sshd, rdp_server, site, files)
    site.close()
    stop_sshd(sshd)


# Each capability: the fixture's tool, its arguments, what it answers once granted, and the
# audit name of the capability.
def calls(ends: Ends) -> dict[str, tuple[str, dict[str, Any], str, str]]:
    return {
        "local terminal": ("term_open", {"target": "local"}, "", "terminal"),
        "ssh terminal": ("term_open", {"target": "ssh:box"}, "", "terminal"),
        "sftp": ("sftp_names", {"host": "box", "path": str(ends.files)}, "a.txt,b.txt", "sftp"),
        "browser": ("page_title", {"url": ends.site.url("/")}, TITLE, "browser"),
        "rdp": ("desktop_shot", {"host": "desk"}, f"{WIDTH // 2}x{HEIGHT // 2} png True", "rdp"),
        "capture http": ("status", {"url": ends.site.url("/")}, "HTTP 200", "capture"),
        "capture page": ("captured_title", {"url": ends.site.url("/")}, TITLE, "capture"),
    }


def text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def settled(manifest: Manifest, tool_calls: int) -> list[dict[str, Any]]:
    """The audit lines once `tool_calls` calls have theirs (a call's line is written as it ends)."""
    deadline = time.monotonic() + 10
    while True:
        lines = manifest.audit_lines()
        if sum(a["event"] == "tool_call" for a in lines) >= tool_calls:
            return lines
        assert time.monotonic() < deadline, lines
        time.sleep(0.05)


def wait_for_reload(log: Path, reloads: int) -> None:
    deadline = time.monotonic() + 30
    while log.read_text(errors="replace").count("manifest reloaded") < reloads:
        assert time.monotonic() < deadline, f"the manifest was not reloaded: {log.read_text()[-3000:]}"
        time.sleep(0.05)


async def test_each_capability_is_refused_then_allowed_and_audited(
    tmp_path_factory: pytest.TempPathFactory, cache_dir: Path, warden_bin: Path, ends: Ends
):
    wasm = fixture_component(tmp_path_factory)
    root = tmp_path_factory.mktemp("sdk-python-capabilities")
    manifest = Manifest(root / "warden.toml", root / "audit.jsonl")
    limits = 'limits = { memory = "256MiB", call_timeout = "90s" }'

    def write(grants: str) -> None:
        body = plugin_block("py", wasm, f"{limits}\n{grants}")
        manifest.path.write_text(f'[server]\naudit_log = "audit.jsonl"\n\n{ends.hosts()}{body}')

    write("")
    env = {"WARDEN_CACHE_DIR": str(cache_dir), "XDG_STATE_HOME": str(root / "state"), "RUST_LOG": "info"}
    address = f"127.0.0.1:{free_port()}"
    log = root / f"serve-{address.replace(':', '_')}.log"
    with serve(warden_bin, manifest.path, env, address):
        async with Client(f"http://{address}/mcp", mode="legacy", cache=None) as c:
            with anyio.fail_after(120):
                for name, (tool, args, _, _) in calls(ends).items():
                    refused = await c.call_tool(tool, args)
                    assert refused.is_error and text(refused).startswith("access denied: "), (name, text(refused))
                    assert "grants." in text(refused), (name, text(refused))
                denied = settled(manifest, len(calls(ends)))
                write(ends.grants())
                wait_for_reload(log, 1)
                for name, (tool, args, expected, _) in calls(ends).items():
                    allowed = await c.call_tool(tool, args)
                    assert not allowed.is_error, (name, text(allowed))
                    if expected:
                        assert text(allowed) == expected, (name, text(allowed))
                    elif tool == "term_open":
                        # The session works: a command runs in it.
                        ran = await c.call_tool("term_run", {"id": text(allowed), "command": "echo from-$((6*7))"})
                        assert text(ran) == "from-42 [exit 0]", (name, text(ran))

    lines = manifest.audit_lines()
    for line in lines:
        check_audit_line(line)
    granted = lines[len(denied) :]
    for name, (tool, _, _, capability) in calls(ends).items():
        refusals = [a for a in denied if a["event"] == "capability_denied" and a["capability"].startswith(capability)]
        assert refusals and all(a["plugin"] == "py" for a in refusals), (name, denied)
        uses = [a for a in granted if a["event"] == "tool_call" and a["tool"] == tool]
        assert uses and all(a["outcome"] == "ok" for a in uses), (name, uses)
    # Nothing of ours is refused once granted. (The capture browser's own background requests,
    # such as Chromium's update checks, are refused and audited: they are no grant of ours.)
    ours = ("127.0.0.1", "box", "desk", "local")
    refused_after = [a for a in granted if a["event"] == "capability_denied" and any(o in a["target"] for o in ours)]
    assert not refused_after, refused_after
    used = {a["capability"].split(".")[0] for a in granted if a["event"] == "capability_used"}
    assert {"terminal", "sftp", "browser", "rdp", "capture"} <= used, used
