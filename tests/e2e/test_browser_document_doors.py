"""Every way a document can load passes the navigation rule (`grants.browser.origins`), also
for an origin the plugin may send requests to but not open (`resource_origins`): a hostile
storefront (`doors_site.py`) on a granted origin tries each door to bring a page of its CDN
into the tab: speculation rules (list and document rules; prefetch and prerender; eagerness
immediate, eager, and moderate on hover), `<link rel=prerender|prefetch|preload>`, a GET and
a POST form, `window.open`, `location`, a meta refresh, a frame, an `<object>` and an
`<embed>`; and the back/forward cache, which brings back a page after the admin narrowed its
origin to resources only.

Each door is asserted on what the client got back (the refusal, a snapshot that never shows
the CDN page), on what the CDN's server received (no request for a document, and none at all
where the page was only to be loaded ahead), and on an audit line of its own. The same
speculation rules against a remote browser (`[browser] endpoint`, whose preferences Warden
does not write) show the guard holding without the launched browser's settings: the
document it fetches ahead is refused by the network guard before it leaves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types
import pytest

from browser_helpers import CHROMIUM, denied_lines, err, ok, ref_of
from conftest import text_of, wait_for
from doors_site import BUTTONS, HIDDEN, LINKS, DoorSites, start_door_sites
from parity import DevToolsChromium

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


@pytest.fixture()
def sites() -> Iterator[DoorSites]:
    s = start_door_sites()
    yield s
    s.close()


def manifest_text(sites: DoorSites, origins: list[str], resources: list[str], browser: str) -> str:
    quoted = lambda origins: ", ".join(f'"{o}"' for o in origins)  # noqa: E731
    return f"""
[browser]
{browser}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = [{quoted(origins)}], resource_origins = [{quoted(resources)}] }}
"""


def cdn_denials(m, sites: DoorSites) -> int:
    target = sites.cdn.origin.split("://", 1)[-1]
    return sum(1 for line in m.audit_lines() if line["event"] == "capability_denied" and target in (line.get("target") or ""))


async def refused_door(w, m, sites: DoorSites, act, door: int, what: str) -> None:
    """`act()` opens door `door`: the call is refused naming the CDN, the tab still shows the
    store, the CDN's server got no document, and a new audit line says so."""
    before = cdn_denials(m, sites)
    refused = await act()
    assert "blocked" in refused and sites.cdn.origin in refused, (what, refused)
    snap = await ok(w, "browse_snapshot", {"mode": "full"})
    assert HIDDEN not in snap and "Corner Shop" in snap, (what, snap)
    assert await wait_for(lambda: cdn_denials(m, sites) > before), (what, m.audit_lines()[-3:])
    got = sites.cdn.got(f"/doc-{door}")
    assert not [r for r in got if r.dest in ("document", "iframe")], (what, got)


async def test_every_door_a_document_has_passes_the_navigation_rule(start_warden, write_manifest, sites: DoorSites) -> None:
    browser = f'executable = "{CHROMIUM}"'
    body = manifest_text(sites, [sites.shop.origin, sites.partner.origin], [sites.cdn.origin], browser)
    m = write_manifest(body)
    changes: list[object] = []

    async def on_message(message: object) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changes.append(message)

    async with start_warden(m, message_handler=on_message) as w:
        # The back/forward cache: a partner page, granted, is left for the store; the admin
        # narrows the partner to resources; a step back must not bring its page back.
        await ok(w, "browse_navigate", {"url": sites.partner.url("/offer")})
        await ok(w, "browse_navigate", {"url": sites.shop.url("/home")})
        write_manifest(manifest_text(sites, [sites.shop.origin], [sites.cdn.origin, sites.partner.origin], browser))
        assert await wait_for(lambda: changes, timeout=15), "no reload"
        offers = len(sites.partner.got("/offer"))
        back = await w.call("browse_back", {}, timeout=60)
        assert back.is_error and "blocked" in text_of(back), text_of(back)
        snap = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Ten percent off" not in snap, snap
        # Restored without a request (or refused before one): the partner got nothing.
        assert len(sites.partner.got("/offer")) == offers, sites.partner.received
        lines = await denied_lines(m, sites.partner.origin)
        assert lines, m.audit_lines()[-3:]

        # The store, whose promotions try every other door.
        snap = await ok(w, "browse_navigate", {"url": sites.shop.url("/store")})
        # Time for the browser to load ahead what the rules and links ask for.
        await anyio.sleep(1.5)
        for text, door, what in LINKS:
            link = ref_of(snap, "link", text)
            if "hover" in what:
                await ok(w, "browse_hover", {"ref": link})
                await anyio.sleep(0.5)
            await refused_door(w, m, sites, lambda link=link: err(w, "browse_click", {"ref": link}), door, what)
        for label, door, what in BUTTONS:
            button = ref_of(await ok(w, "browse_snapshot", {}), "button", label)
            await refused_door(w, m, sites, lambda button=button: err(w, "browse_click", {"ref": button}), door, what)
        # Nothing was loaded ahead: no request at all for the documents only speculation
        # rules and <link rel=prerender> name (prefetch and preload are requests, allowed).
        for _, door, what in LINKS[:5]:
            assert sites.cdn.got(f"/doc-{door}") == [], (what, sites.cdn.received)
        assert sites.cdn.got("/from-the-page") == [], sites.cdn.received


async def test_a_remote_browser_fetches_no_document_ahead_past_the_guard(start_warden, write_manifest, sites: DoorSites, tmp_path: Path) -> None:
    remote = DevToolsChromium(tmp_path / "remote")
    try:
        m = write_manifest(manifest_text(sites, [sites.shop.origin], [sites.cdn.origin], f'endpoint = "{remote.ws_url}"'))
        async with start_warden(m) as w:
            snap = await ok(w, "browse_navigate", {"url": sites.shop.url("/store")})
            lines = await denied_lines(m, sites.cdn.origin, timeout=10)
            refused = await err(w, "browse_click", {"ref": ref_of(snap, "link", "Spring sale")})
            after = await ok(w, "browse_snapshot", {"mode": "full"})
    finally:
        remote.close()
    # The remote browser did try: the guard refused its prefetch of the CDN's document.
    assert any("fetched ahead of a navigation" in line.get("reason", "") for line in lines), lines
    assert "blocked" in refused and sites.cdn.origin in refused, refused
    assert HIDDEN not in after, after
    assert [r for r in sites.cdn.received if r.dest == "document"] == [], sites.cdn.received
