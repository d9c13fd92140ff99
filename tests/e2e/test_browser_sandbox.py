"""Chromium's own walls under Warden: as root (how CI runs), every process of the browser
runs as an unprivileged user with its sandbox on (renderers in user namespaces of their own),
with none of Warden's secrets in its environment; where user namespaces are refused
(`nouserns.py`), the launch fails naming the fix, and the admin's opt-out works, logged,
audited and shown by `warden check`. Everything is read from /proc, not from Warden's word."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import psutil
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from browser_helpers import CHROMIUM, browser_manifest, chromium_processes, err, ok, proc_status, ref_of
from browser_site import Site, start_site
from local_site import LocalSite, QuietHandler
from conftest import Warden, _find_pid

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

NOUSERNS = Path(__file__).with_name("nouserns.py")
SECRET = "sandbox-secret-6f1e2d"
ROOT = os.geteuid() == 0

PAGE = """<!doctype html><html><head><title>Ledger</title></head><body>
<div class="app"><aside class="nav"><div class="item">Accounts</div><div class="item">Reports</div></aside>
<main><div class="card"><div class="title">Quarterly ledger</div><div class="row">Total: 1,204.50</div>
<div class="btn" role="button" onclick="this.textContent='Exported'">Export</div></div></main>
</div><script>document.querySelector(".title").textContent += " (live)";</script></body></html>"""


@pytest.fixture()
def site() -> Site:
    s = start_site()
    s.pages["/ledger"] = PAGE
    yield s
    s.close()


def manifest_for(write_manifest, site: Site, browser: str = ""):
    return browser_manifest(write_manifest, site.origin, browser=browser)


def check(warden_bin: Path, manifest, env: dict[str, str], wrap: list[str]) -> str:
    out = subprocess.run(
        [*wrap, str(warden_bin), "check", "--manifest", str(manifest.path)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@contextlib.asynccontextmanager
async def warden_without_userns(
    warden_bin: Path, manifest, env: dict[str, str], tmp_path: Path
) -> AsyncIterator[Warden]:
    """`warden serve` run under nouserns.py."""
    stderr_path = tmp_path / "warden-stderr-nouserns.log"
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(NOUSERNS), str(warden_bin), "serve", "--manifest", str(manifest.path)],
        env=env,
        cwd=str(tmp_path),
    )
    with open(stderr_path, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                with anyio.fail_after(30):
                    init = await session.initialize()
                yield Warden(session, init, stderr_path, manifest.path, None)


async def test_the_browser_runs_sandboxed_as_an_unprivileged_user_without_wardens_secrets(
    start_warden, write_manifest, warden_bin, warden_env, site
) -> None:
    manifest = manifest_for(write_manifest, site)
    env = {"WARDEN_TEST_SANDBOX_SECRET": SECRET}
    async with start_warden(manifest, env=env) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/ledger")})
        assert '[button] "Export"' in snap, snap
        warden_ns = os.readlink(f"/proc/{w.pid}/ns/user")
        procs = chromium_processes(w.pid)
        assert procs, "no Chromium process under warden"
        renderers = 0
        for p in procs:
            try:
                st = proc_status(p.pid)
                cmdline = p.cmdline()
                environ = Path(f"/proc/{p.pid}/environ").read_bytes()
            except (psutil.Error, FileNotFoundError, ProcessLookupError):
                continue  # exited meanwhile
            uids = st["Uid"].split()
            if ROOT:
                assert "0" not in uids and "0" not in st["Gid"].split(), (p.pid, cmdline[:2], st["Uid"])
                assert st["Groups"] == "", (p.pid, st["Groups"])
            else:
                assert uids[0] == str(os.geteuid())
            assert "--no-sandbox" not in cmdline, cmdline
            assert SECRET.encode() not in environ, cmdline[:2]
            if "--type=renderer" in cmdline:
                renderers += 1
                assert os.readlink(f"/proc/{p.pid}/ns/user") != warden_ns, cmdline[:2]
        assert renderers >= 1, [p.cmdline()[:2] for p in procs]
        # The browser process itself (Warden's child) has HOME in its own tree, not Warden's.
        top = [p for p in procs if p.ppid() == w.pid]
        assert top, "the browser is Warden's child"
        environ = dict(
            kv.split("=", 1) for kv in Path(f"/proc/{top[0].pid}/environ").read_text().split("\0") if "=" in kv
        )
        assert "WARDEN_TEST_SANDBOX_SECRET" not in environ and "XDG_STATE_HOME" not in environ
        assert "warden-browser-" in environ["HOME"], environ["HOME"]
    said = check(warden_bin, manifest, {**warden_env, **env}, [])
    assert "Chromium sandbox on" in said and "user namespaces: available" in said, said


@pytest.mark.skipif(not ROOT, reason="taking user namespaces away (nouserns.py) needs root")
async def test_without_user_namespaces_the_launch_names_the_fix_and_the_opt_out_is_on_record(
    write_manifest, warden_bin, warden_env, site, tmp_path
) -> None:
    wrap = [sys.executable, str(NOUSERNS)]
    refused = manifest_for(write_manifest, site)
    said = check(warden_bin, refused, warden_env, wrap)
    assert "user namespaces: UNAVAILABLE" in said, said
    async with warden_without_userns(warden_bin, refused, warden_env, tmp_path) as w:
        text = await err(w, "browse_navigate", {"url": site.url("/ledger")})
        assert "user.max_user_namespaces" in text and "sandbox = false" in text, text
        assert "No usable sandbox" not in text, text
    assert not any("/ledger" in r for r in site.requests)

    opted = manifest_for(write_manifest, site, "sandbox = false")
    said = check(warden_bin, opted, warden_env, wrap)
    assert "Chromium sandbox OFF" in said, said
    async with warden_without_userns(warden_bin, opted, warden_env, tmp_path) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/ledger")})
        assert '[button] "Export"' in snap, snap
        stderr = w.stderr()
    assert any("/ledger" in r for r in site.requests)
    assert "WARN" in stderr and "sandbox = false" in stderr, stderr[-3000:]
    lines = [json.loads(l) for l in opted.audit.read_text().splitlines() if l.strip()]
    launches = [l for l in lines if l.get("capability") == "browser.launch"]
    assert launches and launches[0]["target"] == "unsandboxed", lines
    # The plugin whose call started it is named.
    assert launches[0]["plugin"] == "browser", launches
    assert "uid 61000" in launches[0]["detail"] or "warden-browser" in launches[0]["detail"], launches


EXPORT = b"id,amount\n" + b"1,10\n" * 4000
STORE = """<!doctype html><html><head><title>Exports</title></head><body>
<div class="shell"><div class="side" style="position:fixed;left:0;width:150px">Exports</div>
<div class="content" style="margin-left:170px"><div class="row"><span>All payments</span>
<a class="btn" href="/export.csv">Export CSV</a></div></div></div></body></html>"""


class GatedExport(LocalSite):
    """A page with a download link; the download sends half of its bytes, then waits for
    `release` before it sends the rest, so the test can act while the browser writes it."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        gate = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                if self.path.startswith("/export.csv"):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/csv")
                    self.send_header("Content-Disposition", 'attachment; filename="payments.csv"')
                    self.send_header("Content-Length", str(len(EXPORT)))
                    self.end_headers()
                    self.wfile.write(EXPORT[: len(EXPORT) // 2])
                    self.wfile.flush()
                    gate.started.set()
                    gate.release.wait(30)
                    self.wfile.write(EXPORT[len(EXPORT) // 2 :])
                    return
                body = STORE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(Handler)


async def test_a_symlink_the_browser_plants_where_its_download_lands_is_never_followed(
    start_warden, write_manifest, tmp_path
) -> None:
    """What a compromised browser could do: while its download is written, replace the file
    with a symlink to a file only root may read. Nothing of that file may reach the download
    directory, nor a symlink to it. (Chromium 156 itself gives up on a download whose file was
    swapped; the host's own check, which would refuse the symlink had the browser completed
    it, is the unit tests' of `hostile_fs.rs`.)"""
    site = GatedExport()
    secret = tmp_path / "shadow"
    secret.write_text("root:$y$j9T$only-root-reads-this\n")
    secret.chmod(0o600)
    dl = tmp_path / "downloads"
    m = browser_manifest(write_manifest, site.origin, f', download_dir = "{dl}"')
    try:
        async with start_warden(m) as w:
            snap = await ok(w, "browse_navigate", {"url": site.url("/")})
            async with anyio.create_task_group() as tg:
                tg.start_soon(ok, w, "browse_click", {"ref": ref_of(snap, "link", "Export CSV")})
                with anyio.fail_after(20):
                    while not site.started.is_set():
                        await anyio.sleep(0.05)
                top = [p for p in chromium_processes(w.pid) if p.ppid() == w.pid]
                assert top, "the browser is Warden's child"
                st = proc_status(top[0].pid)
                uid, gid = int(st["Uid"].split()[0]), int(st["Gid"].split()[0])
                home = Path(
                    dict(kv.split("=", 1) for kv in Path(f"/proc/{top[0].pid}/environ").read_text().split("\0") if "=" in kv)["HOME"]
                )
                written: list[Path] = []
                deadline = time.monotonic() + 20
                while not written and time.monotonic() < deadline:
                    written = [f for f in (home.parent / "downloads").glob("*/*") if f.is_file()]
                    await anyio.sleep(0.05)
                assert written, list((home.parent / "downloads").rglob("*"))
                for f in written:
                    f.unlink()
                    f.symlink_to(secret)
                    os.lchown(f, uid, gid)
                site.release.set()
            listed = await ok(w, "browse_downloads", {"wait": True, "timeout_ms": 10000})
    finally:
        site.release.set()
        site.close()
    saved = [p for p in dl.rglob("*")] if dl.exists() else []
    assert not any(p.is_symlink() for p in saved), saved
    for p in saved:
        if p.is_file():
            assert b"only-root-reads-this" not in p.read_bytes(), p
    assert "only-root-reads-this" not in listed, listed
    assert "payments.csv" in listed and "saved to" not in listed, listed
    assert "cancelled" in listed or "not saved" in listed or "failed" in listed, listed
