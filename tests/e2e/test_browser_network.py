"""The browser's console and network logs, routes, emulation and page storage, through the
MCP server against a real Chromium and fixture sites served here (see network_site.py)."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator

import pytest

from browser_site import PASSWORD
from network_site import SESSION_COOKIE_VALUE, NetSite, start_net_site, start_proxy
from browser_helpers import CHROMIUM, err, ok, ref_of
from test_browser import ENV

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


@pytest.fixture()
def net_sites() -> Iterator[tuple[NetSite, NetSite]]:
    """(granted site, site whose origin is not granted)."""
    main, blocked = start_net_site(), start_net_site()
    yield main, blocked
    main.close()
    blocked.close()


def manifest(write_manifest, site: NetSite, grants: str = "", profiles: str = "", secrets: bool = True) -> object:
    """A browser plugin granted `site`; with `secrets`, APP_PASSWORD bound to it (mocks need
    eval_js, which the manifest never grants together with secrets)."""
    secret_grant = ', secrets = ["APP_PASSWORD"]' if secrets else ""
    return write_manifest(f"""
[browser]
executable = "{CHROMIUM}"
{profiles}
[browser.secrets]
APP_PASSWORD = {{ env = "WARDEN_TEST_APP_PASSWORD", origins = ["{site.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site.origin}"]{secret_grant}{grants} }}
""")


async def leave_for(w, site: NetSite, url: str) -> str:
    """Click a link of a granted page to `url` (a navigation the page starts); the error."""
    snap = await ok(w, "browse_navigate", {"url": site.url("/jump?to=" + urllib.parse.quote(url, safe=""))})
    return await err(w, "browse_click", {"ref": ref_of(snap, "link", "Leave")})


async def full_text(w) -> str:
    return await ok(w, "browse_snapshot", {"mode": "full", "max_tokens": 8000})


async def test_console_levels_since_last_clear_and_secrets(start_warden, write_manifest, net_sites) -> None:
    site, _ = net_sites
    async with start_warden(manifest(write_manifest, site), env=ENV) as w:
        await ok(w, "browse_navigate", {"url": site.url("/console")})
        await ok(w, "browse_wait_for", {"text": "Console"})
        log = await ok(w, "browse_console")
        assert "[log] hello from the page 42" in log, log
        assert "[warning] careful: low disk" in log, log
        assert "[error] something broke" in log, log
        assert "[debug] debug detail" in log, log
        assert re.search(r"\[error exception\] .*Error: boom in timeout", log), log
        # The browser's own log: the 404 of the missing image.
        assert re.search(r"\[error network\] .*404", log), log
        assert "the tab keeps the last 500, 0 older dropped" in log, log

        errors = await ok(w, "browse_console", {"level": "error"})
        assert "something broke" in errors and "boom in timeout" in errors
        assert "hello from the page" not in errors and "low disk" not in errors, errors

        newest = await ok(w, "browse_console", {"max": 1})
        assert "oldest not shown" in newest and "hello from the page" not in newest, newest

        await ok(w, "browse_console", {"since_last": True})
        snap = await ok(w, "browse_snapshot")
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Log more")})
        fresh = await ok(w, "browse_console", {"since_last": True})
        assert "clicked Console" in fresh and "hello from the page" not in fresh, fresh

        # What the page logs once it holds a secret typed into it is withheld.
        await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "secret": "APP_PASSWORD"})
        typed = await ok(w, "browse_console", {"since_last": True})
        assert "typed " not in typed and PASSWORD not in typed and "withheld" in typed, typed

        cleared = await ok(w, "browse_console", {"clear": True})
        assert "hello from the page" in cleared and "now empty" in cleared
        after = await ok(w, "browse_console")
        assert "0 message(s)" in after, after

        bad = await err(w, "browse_console", {"level": "loud"})
        assert "not debug, info, log, warning or error" in bad


async def test_network_log_filters_and_omits_credentials(start_warden, write_manifest, net_sites) -> None:
    site, blocked = net_sites
    async with start_warden(manifest(write_manifest, site), env=ENV) as w:
        await ok(w, "browse_navigate", {"url": site.url("/net")})
        await ok(w, "browse_wait_for", {"text": "Loaded 2 item(s)"})
        log = await ok(w, "browse_network")
        assert re.search(rf"GET 200 Document {re.escape(site.url('/net'))} text/html \d", log), log
        assert re.search(r"GET 200 Image \S+/img/logo.png image/png \d+ B \d+ ms", log), log
        assert re.search(r"GET 200 Fetch \S+/api/items application/json", log), log
        # Headers are never recorded: no cookie or authorization value appears.
        assert SESSION_COOKIE_VALUE not in log and "t0ken-never-logged" not in log, log

        images = await ok(w, "browse_network", {"type": "image"})
        assert "/img/logo.png" in images and "/api/items" not in images, images
        api = await ok(w, "browse_network", {"url": "*/api/*"})
        assert "/api/items" in api and "Document" not in api, api

        await ok(w, "browse_network", {"since_last": True})
        denied = await leave_for(w, site, blocked.url("/evil"))
        assert "was blocked" in denied, denied
        failed = await ok(w, "browse_network", {"failed_only": True})
        assert re.search(rf"{re.escape(blocked.url('/evil'))} .*\[blocked by origin guard\]", failed), failed
        assert "/api/items" not in failed, failed
        assert blocked.requests == []

        fresh = await ok(w, "browse_network", {"since_last": True})
        assert "/img/logo.png" not in fresh, fresh
        await ok(w, "browse_network", {"clear": True})
        assert "0 request(s)" in await ok(w, "browse_network")
        bad = await err(w, "browse_network", {"url": "[unclosed"})
        assert "not a valid URL glob" in bad, bad


async def test_routes_block_mock_and_remove(start_warden, write_manifest, net_sites) -> None:
    site, blocked = net_sites
    async with start_warden(manifest(write_manifest, site, ", eval_js = true", secrets=False), env=ENV) as w:
        await ok(w, "browse_navigate", {"url": site.url("/net")})
        await ok(w, "browse_wait_for", {"text": "Loaded 2 item(s)"})
        assert "Item: Real apple" in await full_text(w)

        out = await ok(w, "browse_route", {"action": "block", "url": "*/img/*"})
        assert "[1] block */img/*" in out, out
        out = await ok(w, "browse_route", {
            "action": "mock", "url": "*/api/items*",
            "body": '[{"name": "Mocked mango"}]', "headers": {"X-Mocked": "yes"},
        })
        assert "[2] mock */api/items* → 200 application/json" in out, out
        # A route cannot fake a page for an origin that is not granted.
        await ok(w, "browse_route", {"action": "mock", "url": f"{blocked.origin}/*", "body": "<h1>Fake</h1>",
                                     "content_type": "text/html"})

        site.requests.clear()
        await ok(w, "browse_reload")
        await ok(w, "browse_wait_for", {"text": "Loaded 1 item(s)"})
        text = await full_text(w)
        assert "Item: Mocked mango" in text and "Real apple" not in text, text
        assert "/net" in site.paths()
        assert "/api/items" not in site.paths() and "/img/logo.png" not in site.paths(), site.requests

        log = await ok(w, "browse_network", {"since_last": True})
        assert re.search(r"Image \S+/img/logo.png .*FAILED net::ERR_BLOCKED_BY_CLIENT\S* \[blocked by route \*/img/\*\]", log), log
        assert re.search(r"GET 200 Fetch \S+/api/items .*\[mocked by route \*/api/items\*\]", log), log

        denied = await leave_for(w, site, blocked.url("/evil"))
        assert "was blocked" in denied, denied
        assert blocked.requests == []
        assert "Fake" not in await full_text(w)

        # New tabs of the session get the routes before their first request.
        await ok(w, "browse_tabs", {"action": "new"})
        await ok(w, "browse_navigate", {"url": site.url("/net?tab=2")})
        await ok(w, "browse_wait_for", {"text": "Loaded 1 item(s)"})
        assert "Item: Mocked mango" in await full_text(w)
        assert "/api/items" not in site.paths()

        # So do popups the page opens.
        snap = await ok(w, "browse_snapshot")
        opened = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Open shop in a new tab")})
        popup = re.search(r"A new tab opened: \[(\d+)\]", opened)
        assert popup, opened
        await ok(w, "browse_tabs", {"action": "switch", "tab": int(popup.group(1))})
        await ok(w, "browse_wait_for", {"text": "Loaded 1 item(s)"})
        assert "Item: Mocked mango" in await full_text(w)
        assert "/api/items" not in site.paths()

        listed = await ok(w, "browse_route")
        assert "3 route(s)" in listed, listed
        await ok(w, "browse_route", {"action": "remove", "id": 1})
        await ok(w, "browse_route", {"action": "remove", "id": 2})
        await ok(w, "browse_route", {"action": "remove", "id": 3})
        assert "0 route(s)" in await ok(w, "browse_route")
        missing = await err(w, "browse_route", {"action": "remove", "id": 2})
        assert "no route 2" in missing

        await ok(w, "browse_reload")
        await ok(w, "browse_wait_for", {"text": "Loaded 2 item(s)"})
        assert "Item: Real apple" in await full_text(w)
        assert "/api/items" in site.paths() and "/img/logo.png" in site.paths()

        bad = await err(w, "browse_route", {"action": "mock", "url": "*", "status": 42})
        assert "status 42" in bad
        bad = await err(w, "browse_route", {"action": "block"})
        assert "needs url" in bad


async def test_emulation_applies_to_session_and_resets(start_warden, write_manifest, net_sites) -> None:
    site, _ = net_sites
    async with start_warden(manifest(write_manifest, site), env=ENV) as w:
        await ok(w, "browse_navigate", {"url": site.url("/emulate")})
        base = await full_text(w)
        assert "HeadlessChrome" in base or "Chrome" in base, base

        out = await ok(w, "browse_emulate", {
            "device": "iPhone 15", "timezone": "Asia/Tokyo", "locale": "de-DE", "color_scheme": "dark",
            "latitude": 35.68, "longitude": 139.69,
        })
        assert "viewport 393x852 @3x mobile" in out and "timezone Asia/Tokyo" in out, out
        await ok(w, "browse_reload")
        await ok(w, "browse_wait_for", {"text": "Geo: 35.68,139.69"})
        text = await full_text(w)
        assert re.search(r"UA: Mozilla/5.0 \(iPhone", text), text
        assert "TZ: Asia/Tokyo" in text and "Lang: de-DE" in text and "Scheme: dark" in text, text
        assert "Size: 393x" in text and "dpr 3" in text, text

        # A new tab of the session starts emulated.
        await ok(w, "browse_tabs", {"action": "new"})
        await ok(w, "browse_navigate", {"url": site.url("/emulate")})
        await ok(w, "browse_wait_for", {"text": "Geo: 35.68,139.69"})
        text = await full_text(w)
        assert "TZ: Asia/Tokyo" in text and "Size: 393x" in text and "(iPhone" in text, text

        # Offline: the page sees it and its requests fail.
        await ok(w, "browse_emulate", {"offline": True})
        snap = await ok(w, "browse_snapshot")
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Refresh")})
        await ok(w, "browse_wait_for", {"text": "Fetch: failed"})
        assert "Online: false" in await full_text(w)
        await ok(w, "browse_emulate", {"offline": False})
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Refresh")})
        await ok(w, "browse_wait_for", {"text": "Fetch: pong"})

        # Another session is not emulated.
        await ok(w, "browse_session", {"action": "create", "name": "plain"})
        await ok(w, "browse_navigate", {"url": site.url("/emulate")})
        text = await full_text(w)
        assert "(iPhone" not in text and "Asia/Tokyo" not in text and "Scheme: light" in text, text

        await ok(w, "browse_session", {"action": "switch", "name": "default"})
        out = await ok(w, "browse_emulate", {"reset": True})
        assert "no emulation" in out, out
        await ok(w, "browse_reload")
        text = await full_text(w)
        assert "(iPhone" not in text and "TZ: Asia/Tokyo" not in text and "Scheme: light" in text, text
        assert "Size: 393x" not in text and "Lang: de-DE" not in text, text

        bad = await err(w, "browse_emulate", {"device": "Nokia 3310"})
        assert "iPhone 15" in bad, bad
        bad = await err(w, "browse_emulate", {"timezone": "Not a zone!"})
        assert "IANA" in bad, bad


async def test_storage_needs_the_cookies_grant(start_warden, write_manifest, net_sites) -> None:
    site, _ = net_sites
    async with start_warden(manifest(write_manifest, site), env=ENV) as w:
        await ok(w, "browse_navigate", {"url": site.url("/storage")})
        denied = await err(w, "browse_storage")
        assert "grants.browser.cookies" in denied, denied


async def test_storage_list_set_remove_clear_and_secrets(start_warden, write_manifest, net_sites) -> None:
    site, _ = net_sites
    async with start_warden(manifest(write_manifest, site, ", cookies = true"), env=ENV) as w:
        await ok(w, "browse_navigate", {"url": site.url("/storage")})
        items = await ok(w, "browse_storage")
        assert "1 item(s)" in items and "theme = dark" in items, items
        assert "tab = one" in await ok(w, "browse_storage", {"area": "session"})

        await ok(w, "browse_storage", {"action": "set", "key": "greeting", "value": "hello there"})
        assert "greeting = hello there" in await ok(w, "browse_storage", {"action": "get", "key": "greeting"})
        await ok(w, "browse_reload")
        assert "Greeting: hello there" in await full_text(w)

        await ok(w, "browse_storage", {"action": "remove", "key": "greeting"})
        assert "no item" in await ok(w, "browse_storage", {"action": "get", "key": "greeting"})

        await ok(w, "browse_storage", {"action": "clear"})
        assert "0 item(s)" in await ok(w, "browse_storage")
        assert "tab = one" in await ok(w, "browse_storage", {"area": "session"})
        bad = await err(w, "browse_storage", {"area": "cloud"})
        assert "not local or session" in bad

        # Once a secret is typed into a page of the origin, the page may copy it into storage:
        # that origin's storage is not read back for the rest of the session, not even from
        # a fresh document. Writing still works.
        snap = await ok(w, "browse_snapshot")
        await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "secret": "APP_PASSWORD"})
        refused = await err(w, "browse_storage")
        assert "holds a secret" in refused and PASSWORD not in refused, refused
        await ok(w, "browse_navigate", {"url": site.url("/storage")})
        refused = await err(w, "browse_storage", {"area": "session"})
        assert "had one typed into it in this session" in refused, refused
        await ok(w, "browse_storage", {"action": "clear"})


async def test_session_profiles_need_their_grant_and_apply(start_warden, write_manifest, net_sites) -> None:
    site, _ = net_sites
    proxy = start_proxy()
    profiles = f"""
[browser.profiles.tokyo]
proxy = "{proxy.origin}"
proxy_bypass = ["<-loopback>"]
locale = "ja-JP"
timezone = "Asia/Tokyo"
user_agent = "WardenTestAgent/1.0"
viewport = {{ width = 800, height = 600 }}

[browser.profiles.berlin]
timezone = "Europe/Berlin"
"""
    try:
        async with start_warden(manifest(write_manifest, site, ', profiles = ["tokyo"]', profiles), env=ENV) as w:
            denied = await err(w, "browse_session", {"action": "create", "name": "de", "profile": "berlin"})
            assert "grants.browser.profiles" in denied, denied

            out = await ok(w, "browse_session", {"action": "create", "name": "jp", "profile": "tokyo"})
            assert 'with profile "tokyo"' in out, out
            await ok(w, "browse_navigate", {"url": site.url("/emulate")})
            await ok(w, "browse_wait_for", {"text": "Fetch: pong"})
            text = await full_text(w)
            assert "UA: WardenTestAgent/1.0" in text and "TZ: Asia/Tokyo" in text, text
            assert "Lang: ja-JP" in text and "Size: 800x600" in text, text
            # The session's requests went through the profile's proxy.
            assert site.url("/emulate") in proxy.requests, proxy.requests
            assert any("/api/ping" in r for r in proxy.requests), proxy.requests

            again = await err(w, "browse_session", {"action": "create", "name": "jp", "profile": "tokyo"})
            assert "open already" in again, again

            # Other sessions go direct and are not emulated.
            proxy.requests.clear()
            await ok(w, "browse_session", {"action": "create", "name": "direct"})
            await ok(w, "browse_navigate", {"url": site.url("/emulate")})
            text = await full_text(w)
            # (The tokyo tab may still fetch its favicon through its proxy, late: not this session's.)
            assert [r for r in proxy.requests if not r.endswith("/favicon.ico")] == [], proxy.requests
            assert "WardenTestAgent" not in text and "TZ: Asia/Tokyo" not in text, text
    finally:
        proxy.close()
