"""What the browser-driving test modules share: where Chromium is, a check that it is there
(failing under CI, skipping elsewhere), and tool-call helpers that assert success or failure."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path
from typing import Any

import psutil
import pytest

from conftest import text_of, wait_for

CHROMIUM = os.environ.get("WARDEN_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def chromium() -> str:
    """The Chromium binary; use with `pytest.mark.usefixtures("chromium")`."""
    if not (Path(CHROMIUM).is_file() or shutil.which("chromium")):
        message = f"Chromium is not installed at {CHROMIUM}; install it (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return CHROMIUM


def browser_manifest(write_manifest, origin: str | list[str], grants: str = "", browser: str = "") -> object:
    """A manifest serving the built-in browser plugin with Warden's Chromium, granted `origin`
    (one or several); `grants` adds keys to its browser grant (", eval_js = true"), `browser`
    adds lines to the `[browser]` table."""
    origins = ", ".join(f'"{o}"' for o in ([origin] if isinstance(origin, str) else origin))
    return write_manifest(
        f"""
[browser]
executable = "{CHROMIUM}"
{browser}
[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = [{origins}]{grants} }}
"""
    )


def proc_status(pid: int) -> dict[str, str]:
    """The fields of /proc/PID/status (Uid, Gid, Groups, ...), as the kernel reports them."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def listening_ports_of(owners: list[int], networks: list[int]) -> set[int]:
    """The TCP ports that sockets of the processes `owners` listen on, in the network
    namespace of each process of `networks` (its /proc/PID/net/tcp and tcp6). psutil reads
    only the test's own namespace; a launched browser and its guards' listeners have one of
    their own when Warden runs as root."""
    inodes = set()
    for pid in owners:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[len("socket:["):-1])
    ports = set()
    for pid in networks:
        for table in ("tcp", "tcp6"):
            try:
                rows = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                fields = row.split()
                if len(fields) > 9 and fields[3] == "0A" and fields[9] in inodes:
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def chromium_processes(warden_pid: int) -> list[psutil.Process]:
    """The Chromium processes under a warden process (one that exits meanwhile is left out:
    with site isolation, renderers come and go as pages move between sites)."""
    procs = []
    for p in psutil.Process(warden_pid).children(recursive=True):
        try:
            if "chrom" in p.name() and p.status() != psutil.STATUS_ZOMBIE:
                procs.append(p)
        except psutil.Error:
            pass
    return procs


def ref_of(snapshot: str, role: str, name: str) -> int:
    m = re.search(rf"@e(\d+) \[{re.escape(role)}\] \"{re.escape(name)}\"", snapshot)
    assert m, f'no [{role}] "{name}" in:\n{snapshot}'
    return int(m.group(1))


async def ok(w, tool: str, args: dict | None = None, timeout: float = 60) -> str:
    result = await w.call(tool, args or {}, timeout=timeout)
    text = text_of(result)
    assert not result.is_error, f"{tool} failed: {text}"
    return text


async def err(w, tool: str, args: dict | None = None, timeout: float = 60) -> str:
    result = await w.call(tool, args or {}, timeout=timeout)
    text = text_of(result)
    assert result.is_error, f"{tool} should have failed, got: {text}"
    return text


async def denied_lines(m, origin: str, timeout: float = 5.0) -> list[dict[str, Any]]:
    """The capability_denied audit lines of manifest `m` whose target names `origin` (the
    guard writes them within ~0.5 s). A CONNECT refusal names host:port only, so `http://h:p`
    also matches `h:p`."""
    origin = origin.split("://", 1)[-1]

    def lines() -> list[dict[str, Any]]:
        return [
            line
            for line in m.audit_lines()
            if line["event"] == "capability_denied" and origin in (line.get("target") or "")
        ]

    await wait_for(lambda: bool(lines()), timeout=timeout)
    return lines()
