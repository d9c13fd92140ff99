"""A compromised browser meets Warden's walls, not only Chromium's: acting as the browser
process would after escaping its sandbox (in its network namespace, as its user and group,
with no supplementary groups), a TCP connect to a loopback listener nothing grants, to
Warden's MCP port and to its admin port all fail, while the guard's path still serves the
granted page; Warden's audit log and compiled-component cache cannot be read. Judged from
/proc and from what the test's own listeners received, not from Warden's word. Two plugins'
persistent profiles each run as a user of their own: as one profile's user, the other's
profile cannot be listed or read. As root (how CI runs): the walls need the privileges
Warden has there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from browser_helpers import CHROMIUM, chromium_processes, proc_status
from browser_site import start_site
from local_site import PortRecorder
from ops_helpers import free_port, mcp_session, serve

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

PAGE = """<!doctype html><html><head><title>Orders</title></head><body>
<div class="shell"><div class="sidebar"><div class="nav-item">Orders</div><div class="nav-item">Returns</div></div>
<div class="main"><div class="card"><div class="card-title">Open orders</div>
<div class="row"><div class="cell">#1042</div><div class="cell">shipped</div></div>
<div class="btn" role="button" onclick="this.textContent='Refunded'">Refund</div></div></div></div>
<script>document.querySelector(".card-title").textContent += " (live)";</script></body></html>"""

#: Run as the browser: connect to each (host, port), read each path; print what happened.
PROBE = r"""
import json, os, socket, sys
targets, paths = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = {}
for host, port in targets:
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    s.settimeout(2)
    try:
        s.connect((host, port))
        out[f"{host}:{port}"] = "connected"
    except OSError as e:
        out[f"{host}:{port}"] = type(e).__name__
    finally:
        s.close()
for path in paths:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as f:
                f.read(16)
        out[path] = "read"
    except OSError as e:
        out[path] = type(e).__name__
print(json.dumps(out))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the browser's walls need Warden to run as root")
async def test_a_compromised_browser_reaches_nothing_but_its_guard(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm
) -> None:
    # Warden's files where any user may look (a directory others can search), so what keeps
    # the browser out is their own modes, not pytest's private temporary tree.
    open_dir = Path(tempfile.mkdtemp(prefix="walls-", dir="/tmp"))
    open_dir.chmod(0o755)
    (open_dir / "logs").mkdir(mode=0o755)
    cache = open_dir / "cache"
    env = {**warden_env, "WARDEN_CACHE_DIR": str(cache)}
    site = start_site()
    site.pages["/orders"] = PAGE
    # A loopback listener of the test's, which no grant names: it records who connects.
    other = PortRecorder("127.0.0.1", 0)
    other_port = other.sock.getsockname()[1]
    port, admin_port = free_port(), free_port()
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site.origin}"] }}
""" + helpers.plugin_block("echo", echo_wasm), audit=str(open_dir / "logs" / "audit.jsonl"))
    try:
        with serve(warden_bin, m.path, env, f"127.0.0.1:{port}", admin=f"127.0.0.1:{admin_port}") as proc:
            async with mcp_session(f"http://127.0.0.1:{port}/mcp") as session:
                first = await session.call_tool("browse_navigate", {"url": site.url("/orders")})
                assert not first.is_error and '"Refund"' in str(first.content), first.content
                top = [p for p in chromium_processes(proc.pid) if p.ppid() == proc.pid]
                assert top, "the browser is Warden's child"
                browser = top[0].pid
                assert os.readlink(f"/proc/{browser}/ns/net") != os.readlink(f"/proc/{proc.pid}/ns/net"), \
                    "the browser shares Warden's network"
                st = proc_status(browser)
                uid, gid = st["Uid"].split()[0], st["Gid"].split()[0]
                assert uid != "0" and gid != "0", st["Uid"]
                targets = [["127.0.0.1", other_port], ["127.0.0.1", port], ["127.0.0.1", admin_port],
                           ["127.0.0.1", site.port], ["::1", port]]
                assert m.audit.is_file() and any(cache.iterdir()), "the audit log and the cache are written"
                paths = [str(m.audit), str(cache)]
                probe = subprocess.run(
                    ["nsenter", f"--target={browser}", "--net", "--",
                     "setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                     "/usr/bin/python3", "-I", "-c", PROBE, json.dumps(targets), json.dumps(paths)],
                    capture_output=True, text=True, timeout=60,
                )
                assert probe.returncode == 0, probe.stderr
                seen = json.loads(probe.stdout)
                for host, p in targets:
                    assert seen[f"{host}:{p}"] != "connected", seen
                assert other.received == [], "the ungranted listener was reached"
                for path in paths:
                    assert seen[path] != "read", (path, seen)
                # The guard's path still serves the granted page, after all that.
                again = await session.call_tool("browse_navigate", {"url": site.url("/orders")})
                assert not again.is_error and '"Refund"' in str(again.content), again.content
    finally:
        other.close()
        site.close()
        shutil.rmtree(open_dir, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="each profile's user needs Warden to run as root")
async def test_one_plugins_profile_browser_cannot_read_anothers_profile(
    warden_bin, warden_env, write_manifest
) -> None:
    # Profiles where any user may look (a directory others can search), so what keeps one
    # profile's browser out of the other's is the profile's own user and mode.
    open_dir = Path(tempfile.mkdtemp(prefix="profiles-", dir="/tmp"))
    open_dir.chmod(0o755)
    site = start_site()
    site.pages["/orders"] = PAGE
    port = free_port()
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[browser.profiles.crm]
user_data_dir = "{open_dir / 'crm'}"

[browser.profiles.mail]
user_data_dir = "{open_dir / 'mail'}"

[[plugin]]
name = "crm"
source = "builtin:browser"
tool_prefix = "crm_"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site.origin}"], profiles = ["crm"] }}

[[plugin]]
name = "mail"
source = "builtin:browser"
tool_prefix = "mail_"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site.origin}"], profiles = ["mail"] }}
""")
    try:
        with serve(warden_bin, m.path, warden_env, f"127.0.0.1:{port}") as proc:
            async with mcp_session(f"http://127.0.0.1:{port}/mcp") as session:
                for plugin in ("crm", "mail"):
                    made = await session.call_tool(
                        f"{plugin}_browse_session", {"action": "create", "name": "work", "profile": plugin}
                    )
                    assert not made.is_error, made.content
                    went = await session.call_tool(f"{plugin}_browse_navigate", {"url": site.url("/orders")})
                    assert not went.is_error and '"Refund"' in str(went.content), went.content
                # Each profile's browser is Warden's child, as the user that owns its profile.
                users = {}
                for p in chromium_processes(proc.pid):
                    if p.ppid() == proc.pid:
                        st = proc_status(p.pid)
                        users[p.pid] = (st["Uid"].split()[0], st["Gid"].split()[0])
                ids = set(users.values())
                assert len(ids) >= 2 and all("0" not in u for u in ids), users
                crm, mail = open_dir / "crm", open_dir / "mail"
                assert crm.stat().st_uid != mail.stat().st_uid, (crm.stat(), mail.stat())
                assert {crm.stat().st_uid, mail.stat().st_uid} <= {int(u) for u, _ in ids}, (users, crm.stat())
                for mine, other in ((crm, mail), (mail, crm)):
                    uid, gid = mine.stat().st_uid, mine.stat().st_gid
                    targets: list = []
                    paths = [str(other), str(other / "Default"), str(other / "Local State")]
                    probe = subprocess.run(
                        ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                         "/usr/bin/python3", "-I", "-c", PROBE, json.dumps(targets), json.dumps(paths + [str(mine)])],
                        capture_output=True, text=True, timeout=60,
                    )
                    assert probe.returncode == 0, probe.stderr
                    seen = json.loads(probe.stdout)
                    assert seen[str(mine)] == "read", seen
                    for path in paths:
                        assert seen[path] != "read", (path, seen)
        # Each profile keeps its user across a restart: the table is in the state directory.
        table = json.loads((Path(warden_env["XDG_STATE_HOME"]) / "warden" / "browser-users.json").read_text())
        assert set(table) == {str(open_dir / "crm"), str(open_dir / "mail")}, table
        assert table[str(open_dir / "crm")] == (open_dir / "crm").stat().st_uid, table
    finally:
        site.close()
        shutil.rmtree(open_dir, ignore_errors=True)
