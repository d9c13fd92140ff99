"""Downloads through the MCP server against a real Chromium: a page saves files only into
the plugin's granted `download_dir`, per session, under a safe name, within `download_max`;
without the grant the browser refuses them and nothing lands on the host. Each action's
answer names what it downloaded; `browse_downloads` lists and waits. Pages: downloads_site.py."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_helpers import browser_manifest, ok, ref_of
from downloads_site import REPORT, DownloadsSite

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


@pytest.fixture()
def site() -> Iterator[DownloadsSite]:
    s = DownloadsSite()
    yield s
    s.close()


def manifest(write_manifest, site: DownloadsSite, grants: str = "") -> object:
    return browser_manifest(write_manifest, site.origin, grants)


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


async def test_downloads_land_in_the_granted_directory_under_safe_names(
    start_warden, write_manifest, site, tmp_path
) -> None:
    dl = tmp_path / "downloads"
    m = manifest(write_manifest, site, f', download_dir = "{dl}", download_max = "1MiB"')
    session_dir = dl / "browser" / "default"
    async with start_warden(m) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/")})
        csv = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Download CSV")})
        assert f"⬇ DOWNLOAD report.csv from {site.url('/files/report.csv')}: saved to {session_dir / 'report.csv'}" in csv, csv
        assert (session_dir / "report.csv").read_bytes() == REPORT

        # A file the page builds itself (a blob) is a download too.
        notes = await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Export notes")})
        assert f"⬇ DOWNLOAD notes.txt from blob:: saved to {session_dir / 'notes.txt'}" in notes, notes
        assert (session_dir / "notes.txt").read_text() == "remember the milk\n"

        # A suggested name that climbs out of the directory stays inside it, and is no dotfile.
        climb = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Download script")})
        saved = re.search(r"⬇ DOWNLOAD (\S+) from .*/files/climb: saved to (\S+) ", climb)
        assert saved, climb
        name, path = saved.groups()
        assert Path(path) == session_dir / name and not name.startswith(".") and "/" not in name, climb
        assert (session_dir / name).read_text() == "#!/bin/sh\necho hi\n"

        # Past download_max the download is cancelled and nothing of it is kept.
        big = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Download raw data")})
        assert "⬇ DOWNLOAD big.bin" in big and "larger than this plugin may save (grants.browser.download_max)" in big, big

        # The same file twice gets a second name, never overwrites.
        again = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Download CSV")})
        assert f"saved to {session_dir / 'report (2).csv'}" in again, again

        listed = await ok(w, "browse_downloads", {"wait": True, "timeout_ms": 5000})
        assert listed.startswith("Downloads:\n1. report.csv from"), listed
        for listed_name in ["notes.txt", name, "big.bin", "report (2).csv"]:
            assert listed_name in listed, listed

        # Another session saves into a directory of its own.
        await ok(w, "browse_session", {"action": "create", "name": "second"})
        snap = await ok(w, "browse_navigate", {"url": site.url("/")})
        await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Download CSV")})
        assert (dl / "browser" / "second" / "report.csv").read_bytes() == REPORT

    kept = files_under(dl)
    assert kept == sorted([
        f"browser/default/{name}",
        "browser/default/notes.txt",
        "browser/default/report (2).csv",
        "browser/default/report.csv",
        "browser/second/report.csv",
    ]), kept
    # Nothing is left in .partial/: the list above is every file under the directory.
    lines = [a for a in m.audit_lines() if a.get("capability") == "browser.download"]
    used = [a for a in lines if a["event"] == "capability_used"]
    assert len(used) == 5, lines
    too_large = [a for a in lines if a["event"] == "capability_denied"]
    assert len(too_large) == 1 and "download_max" in too_large[0]["reason"], lines
    assert {a.get("bytes") for a in used if "report" in a.get("detail", "")} == {len(REPORT)}, used


async def test_without_the_grant_downloads_are_refused_and_nothing_is_written(
    start_warden, write_manifest, site, tmp_path
) -> None:
    m = manifest(write_manifest, site)
    home = tmp_path / "home"
    home.mkdir()
    before = files_under(tmp_path)
    async with start_warden(m, env={"HOME": str(home)}) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/")})
        csv = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Download CSV")})
        assert "⬇ DOWNLOAD report.csv" in csv and "refused: this plugin may not save downloads (grants.browser.download_dir)" in csv, csv
        notes = await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Export notes")})
        assert "refused" in notes, notes
        listed = await ok(w, "browse_downloads")
        assert "refused" in listed, listed
    # Nothing new anywhere under the test's directory (HOME included) but Warden's own files.
    new = [f for f in files_under(tmp_path) if f not in before]
    assert not any(f.endswith((".csv", ".txt")) or "Downloads" in f for f in new), new
    denied = [a for a in m.audit_lines() if a.get("capability") == "browser.download"]
    assert denied and all(a["event"] == "capability_denied" for a in denied), denied
    assert not os.path.exists(home / "Downloads" / "report.csv")
