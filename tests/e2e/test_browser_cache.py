"""The page cache (`cache_search`, `cache_get`, `cache_stats`, `cache_evict`) through the MCP
server against a real Chromium: what `browse_extract` read is searchable and readable again
without fetching it (the site may be gone), ranked by relevance, bounded by `limits.state`
with the oldest pages giving way (to newer pages and to the tabs' own state), and kept per
client: another client's agent finds nothing of it."""

from __future__ import annotations

import pytest

from browser_helpers import CHROMIUM, err, ok, ref_of
from browser_site import Site, page, start_site
from conftest import text_of
from test_concurrency import two_clients

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


def docs_page(title: str, body: str) -> str:
    """A documentation page as sites build them: a fixed sidebar, nested divs, no <main>."""
    side = "".join(f'<div class="nav-item"><a href="/docs/{p}">{p.title()}</a></div>' for p in ("install", "manifest", "grants"))
    return page(title, f"""<div class="layout"><div class="sidebar" style="position:fixed;left:0;top:0;width:180px">{side}</div>
<div class="content" style="margin-left:200px"><div class="article"><div class="h1">{title}</div>{body}</div></div></div>""")


def docs_site() -> Site:
    site = start_site()
    site.pages = {
        "/docs/install": docs_page("Install", "<div><p>Install the binary with cargo install, then run the tests.</p><p>The first start compiles each plugin once.</p></div>"),
        "/docs/manifest": docs_page("Manifest", "<div><p>The manifest names every plugin and the grants of what it may reach.</p><p>Unknown keys are errors with a line number.</p></div>"),
        "/docs/grants": docs_page("Grants", "<div><p>Grants are checked by the host on every call: origins, hosts and roots.</p>"
                                  "<p>A plugin without grants reaches nothing; grants name origins such as https://docs.example.</p></div>"),
    }
    return site


def manifest(write_manifest, site: Site, state: str = "4MiB") -> object:
    return write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s", state = "{state}" }}
grants.browser = {{ origins = ["{site.origin}"] }}
""")


async def read(w, site: Site, path: str) -> str:
    await ok(w, "browse_navigate", {"url": site.url(path)})
    return await ok(w, "browse_extract", {})


async def test_pages_read_are_found_and_read_again_without_the_site(start_warden, write_manifest) -> None:
    site = docs_site()
    try:
        m = manifest(write_manifest, site)
        async with start_warden(m) as w:
            assert "The page cache is empty" in await ok(w, "cache_stats", {})
            for path in ("/docs/install", "/docs/manifest", "/docs/grants"):
                await read(w, site, path)
            stats = await ok(w, "cache_stats", {})
            assert stats.startswith("3 page(s) kept"), stats
            found = await ok(w, "cache_search", {"query": "grants origins"})
            lines = found.splitlines()
            # Every page's sidebar links to Grants, as on real docs sites: all match, but the page
            # about grants comes first (title and words), then the one whose text names them.
            assert lines[0] == 'Cache search "grants origins": 3 of 3 kept page(s) match', found
            assert lines[1].startswith(f'[c1] "Grants" {site.url("/docs/grants")} (read '), found
            assert lines[3].startswith(f'[c2] "Manifest" {site.url("/docs/manifest")}'), found
            # The snippet is where the words meet in the text, not the sidebar's link.
            assert "checked by the host on every call: origins" in lines[2] and "](" not in lines[2], found
            assert "No kept page matches" in await ok(w, "cache_search", {"query": "kubernetes"})

            # Read again with the site gone: nothing is fetched.
            site.close()
            before = len(site.requests)
            again = await ok(w, "cache_get", {"url": "c1"})
            assert again.startswith(f"# Grants\n{site.url('/docs/grants')} (markdown, kept from a read"), again
            assert "Grants are checked by the host on every call" in again, again
            assert len(site.requests) == before
            missing = await err(w, "cache_get", {"url": site.url("/docs/other")})
            assert "is not in the page cache" in missing, missing
            assert "no cache result c7" in await err(w, "cache_get", {"url": "c7"})

            assert "Dropped" in await ok(w, "cache_evict", {"url": site.url("/docs/install")})
            assert (await ok(w, "cache_stats", {})).startswith("2 page(s) kept")
            assert "Dropped 2 page(s)" in await ok(w, "cache_evict", {})
            assert "The page cache is empty" in await ok(w, "cache_stats", {})
        calls = [a["tool"] for a in m.audit_lines() if a["event"] == "tool_call"]
        assert {"cache_search", "cache_get", "cache_stats", "cache_evict"} <= set(calls), calls
    finally:
        site.server.server_close()


async def test_the_cache_stays_within_limits_state_and_gives_way_to_the_tabs(start_warden, write_manifest) -> None:
    site = docs_site()
    filler = " ".join(f"word{i}" for i in range(6000))
    for n in range(1, 5):
        site.pages[f"/long/{n}"] = docs_page(f"Long {n}", f"<div><p>topic{n} {filler}</p></div>")
    try:
        async with start_warden(manifest(write_manifest, site, state="160KiB")) as w:
            for n in range(1, 5):
                await read(w, site, f"/long/{n}")
            stats = await ok(w, "cache_stats", {})
            kept = int(stats.split()[0])
            assert 1 <= kept < 4, stats
            # The newest page is kept, the first gave way.
            assert "topic4" in await ok(w, "cache_get", {"url": site.url("/long/4")})
            assert "not in the page cache" in await err(w, "cache_get", {"url": site.url("/long/1")})
            # The tabs' refs still fit: a snapshot's refs work.
            snap = await ok(w, "browse_navigate", {"url": site.url("/docs/install")})
            assert "Manifest" in snap
            clicked = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Manifest")})
            assert "/docs/manifest" in clicked, clicked
    finally:
        site.close()


async def test_another_client_finds_none_of_it(warden_bin, warden_env, write_manifest) -> None:
    site = docs_site()
    try:
        async with two_clients(warden_bin, warden_env, manifest(write_manifest, site)) as (alice, bob):
            assert not (await alice.call_tool("browse_navigate", {"url": site.url("/docs/grants")})).is_error
            assert not (await alice.call_tool("browse_extract", {})).is_error
            mine = text_of(await alice.call_tool("cache_search", {"query": "grants"}))
            assert "[c1]" in mine, mine
            theirs = text_of(await bob.call_tool("cache_search", {"query": "grants"}))
            assert "No kept page matches" in theirs and "(0 page(s) kept)" in theirs, theirs
            refused = await bob.call_tool("cache_get", {"url": site.url("/docs/grants")})
            assert refused.is_error and "is not in the page cache" in text_of(refused), text_of(refused)
            assert "empty" in text_of(await bob.call_tool("cache_stats", {}))
    finally:
        site.close()
