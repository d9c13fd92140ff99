"""The browser plugin through the MCP server: a real Chromium driven by `warden serve`,
against fixture sites this test serves on 127.0.0.1 (see browser_site.py)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import anyio
import psutil
import pytest

from browser_site import PASSWORD, Site, start_site
from browser_helpers import CHROMIUM, chromium_processes, err, ok, ref_of

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]



@pytest.fixture()
def sites() -> Iterator[tuple[Site, Site, Site]]:
    """(main, other granted origin, blocked origin)."""
    main, other, blocked = start_site(), start_site(), start_site()
    for s in (main, other):
        s.links = {"other": other.origin, "blocked": blocked.origin}
    yield main, other, blocked
    for s in (main, other, blocked):
        s.close()


def browser_manifest(write_manifest, main: Site, other: Site, grants: str = "") -> object:
    body = f"""
[browser]
executable = "{CHROMIUM}"

[browser.secrets]
APP_PASSWORD = {{ env = "WARDEN_TEST_APP_PASSWORD", origins = ["{main.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{main.origin}", "{other.origin}"]{grants} }}
"""
    return write_manifest(body)


ENV = {"WARDEN_TEST_APP_PASSWORD": PASSWORD}


async def test_login_behind_cookie_banner_with_secret(start_warden, write_manifest, sites, tmp_path) -> None:
    main, other, _ = sites
    manifest = browser_manifest(write_manifest, main, other, ', secrets = ["APP_PASSWORD"]')
    outputs: list[str] = []
    async with start_warden(manifest, env=ENV) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/login")})
        outputs.append(snap)
        lines = snap.splitlines()
        assert lines[0].startswith('Page: "Sign in"') and "[login form]" in lines[0], snap
        assert lines[1].startswith("⚠ OVERLAY: [cookie_banner]"), snap
        accept = ref_of(snap, "button", "Accept all")
        assert f"@e{accept}" in lines[1], "the overlay line names the button to deal with it"
        # The overlay's controls come before the page's own.
        assert snap.index("Accept all") < snap.index("[button] \"Sign in\"")

        outputs.append(await ok(w, "browse_click", {"ref": accept}))
        snap = await ok(w, "browse_snapshot")
        outputs.append(snap)
        assert "OVERLAY" not in snap
        email = ref_of(snap, "textbox", "Email")
        password = ref_of(snap, "password", "Password")
        refused = await err(w, "browse_fill", {"ref": email, "secret": "APP_PASSWORD"})
        assert "not a password field" in refused, refused
        outputs.append(await ok(w, "browse_fill", {"ref": email, "value": "user@example.com"}))
        filled = await ok(w, "browse_fill", {"ref": f"e{password}", "secret": "APP_PASSWORD"})
        outputs.append(filled)
        assert "value=\"••••\"" in filled or "••••" in await ok(w, "browse_snapshot"), filled
        sign_in = ref_of(snap, "button", "Sign in")
        after = await ok(w, "browse_click", {"ref": f"@e{sign_in}"})
        outputs.append(after)
        assert "Welcome back" in await ok(w, "browse_snapshot", {"mode": "full"})
        # An unknown secret, and one the plugin was not granted, are refused clearly.
        denied = await err(w, "browse_fill", {"ref": email, "secret": "OTHER"})
        assert "grants.browser.secrets" in denied or "browser.secrets" in denied, denied
        stderr = w.stderr()
    for text in outputs:
        assert PASSWORD not in text
    assert PASSWORD not in stderr
    assert PASSWORD not in manifest.audit.read_text()


async def test_batch_fill_checks_every_field_before_filling_any(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    manifest = browser_manifest(write_manifest, main, other, ', secrets = ["APP_PASSWORD"]')
    outputs: list[str] = []
    async with start_warden(manifest, env=ENV) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/login")})
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Accept all")})
        snap = await ok(w, "browse_snapshot")
        email = ref_of(snap, "textbox", "Email")
        password = ref_of(snap, "password", "Password")
        sign_in = ref_of(snap, "button", "Sign in")
        typed = {"ref": email, "value": "user@example.com"}
        secret = {"ref": password, "secret": "APP_PASSWORD"}

        # Each bad batch is refused before anything is typed: the email field stays empty.
        bad_batches = [
            ([typed, secret, {"ref": sign_in, "value": "x"}], f"@e{sign_in}", "not a text field"),
            ([typed, {"ref": email, "secret": "APP_PASSWORD"}], f"@e{email}", "given twice"),
            ([typed, {"ref": password, "secret": "OTHER"}], "", "browser.secrets"),
            ([typed, {"ref": password}], f"@e{password}", "exactly one of value or secret"),
            ([typed, {"ref": 999, "value": "x"}], "e999", ""),
        ]
        for fields, names, says in bad_batches:
            refused = await err(w, "browse_fill", {"fields": fields})
            outputs.append(refused)
            assert names in refused and says in refused, (fields, refused)
            assert "user@example.com" not in await ok(w, "browse_snapshot"), f"{fields} changed the page"
        both = await err(w, "browse_fill", {"fields": [typed], "ref": email, "value": "x"})
        assert "not both" in both, both

        filled = await ok(w, "browse_fill", {"fields": [typed, secret]})
        outputs.append(filled)
        assert filled.startswith(f"Filled @e{email}, @e{password} (secret APP_PASSWORD)."), filled
        await ok(w, "browse_click", {"ref": sign_in})
        assert "Welcome back, user@example.com" in await ok(w, "browse_snapshot", {"mode": "full"})
        stderr = w.stderr()
    for text in outputs:
        assert PASSWORD not in text
    assert PASSWORD not in stderr
    assert PASSWORD not in manifest.audit.read_text()


async def test_js_list_wait_and_stable_refs(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        await ok(w, "browse_navigate", {"url": main.url("/list")})
        waited = await ok(w, "browse_wait_for", {"text": "Item 5", "timeout_ms": 10000})
        assert waited.startswith("Done waiting."), waited
        snap = await ok(w, "browse_snapshot")
        item3 = ref_of(snap, "button", "Item 3")
        again = await ok(w, "browse_snapshot")
        assert ref_of(again, "button", "Item 3") == item3, "refs stay the same for the same node"
        clicked = await ok(w, "browse_click", {"ref": item3})
        assert "Clicked" in clicked
        assert "Picked item 3" in await ok(w, "browse_snapshot", {"mode": "full"})
        timeout = await err(w, "browse_wait_for", {"text": "never there", "timeout_ms": 500})
        assert "timeout" in timeout.lower() and "never there" in timeout


async def test_form_select_checkbox_radio_and_enabled_button(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/form")})
        submit = ref_of(snap, "button", "Place order")
        assert re.search(rf"@e{submit} \[button\] \"Place order\".*\[disabled\]", snap), snap
        refused = await err(w, "browse_click", {"ref": submit})
        assert "disabled" in refused, refused
        await ok(w, "browse_fill", {"ref": ref_of(snap, "textbox", "Name"), "value": "Ada"})
        selected = await ok(w, "browse_select", {"ref": ref_of(snap, "combobox", "Country"), "values": ["France"]})
        assert "Selected fr" in selected, selected
        await ok(w, "browse_click", {"ref": ref_of(snap, "radio", "Pro")})
        after = await ok(w, "browse_click", {"ref": ref_of(snap, "checkbox", "I accept the terms")})
        assert "[checked]" in after, after
        snap = await ok(w, "browse_snapshot")
        assert not re.search(r"\"Place order\".*\[disabled\]", snap), snap
        await ok(w, "browse_click", {"ref": submit})
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Submitted: Ada / fr / pro / true" in full, full


async def test_tabs_popups_and_blocked_window_open(start_warden, write_manifest, sites) -> None:
    main, other, blocked = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/tabs")})
        opened = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Open help")})
        # The click answers once the new tab shows its page, and names it.
        assert re.search(r"A new tab opened: \[\d\] http://[^ ]+/popup ", opened), opened
        tabs = await ok(w, "browse_tabs")
        assert "2 tab(s)" in tabs and "/popup" in tabs, tabs
        n = re.search(r"\[(\d)\] \"Help\"", tabs) or re.search(r"\[(\d)\] [^\n]*/popup", tabs)
        assert n, tabs
        switched = await ok(w, "browse_tabs", {"action": "switch", "tab": int(n.group(1))})
        assert "Close help" in switched
        await ok(w, "browse_tabs", {"action": "switch", "tab": 3 - int(n.group(1))})
        denied = await err(w, "browse_click", {"ref": ref_of(snap, "button", "Open partner site")})
        assert blocked.origin in denied and "grants.browser.origins" in denied, denied
        denied = await err(w, "browse_click", {"ref": ref_of(snap, "link", "Partner link")})
        assert blocked.origin in denied, denied
    assert blocked.requests == [], "a blocked origin never receives a request"


async def test_redirect_and_meta_refresh_to_blocked_origin(start_warden, write_manifest, sites) -> None:
    main, other, blocked = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        denied = await err(w, "browse_navigate", {"url": main.url("/redirect-out")})
        assert blocked.origin in denied and "grants.browser.origins" in denied, denied
        denied = await err(w, "browse_navigate", {"url": blocked.url("/evil")})
        assert "grants.browser.origins" in denied, denied
        denied = await err(w, "browse_navigate", {"url": main.url("/meta-out")})
        assert blocked.origin in denied, denied
    assert blocked.requests == [], "a blocked origin never receives a request"


async def test_blocked_navigation_is_audited(start_warden, write_manifest, sites) -> None:
    main, other, blocked = sites
    manifest = browser_manifest(write_manifest, main, other)
    async with start_warden(manifest) as w:
        await err(w, "browse_navigate", {"url": main.url("/redirect-out")})
    denied = [l for l in manifest.audit_lines() if l["event"] == "capability_denied"]
    assert any(blocked.origin in l["target"] and l["capability"] == "browser" for l in denied), denied


async def test_frames_same_and_cross_origin(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/frames")})
        same = ref_of(snap, "button", "same frame button")
        cross = ref_of(snap, "button", "cross frame button")
        assert "(frame same)" in snap and "(frame cross)" in snap, snap
        after = await ok(w, "browse_click", {"ref": cross})
        assert "cross clicked" in after, after
        after = await ok(w, "browse_click", {"ref": same})
        assert "same clicked" in after, after


async def test_alert_confirm_prompt(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/dialogs")})
        shown = await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Alert")})
        assert "DIALOG [alert] \"Hello there\"" in shown, shown
        blocked = await ok(w, "browse_snapshot")
        assert "DIALOG [alert]" in blocked and "browse_dialog" in blocked, blocked
        answered = await ok(w, "browse_dialog", {"accept": True})
        assert "alert done" in await ok(w, "browse_snapshot", {"mode": "full"}), answered
        shown = await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Confirm")})
        assert "[confirm] \"Really delete?\"" in shown
        await ok(w, "browse_dialog", {"accept": False})
        assert "cancelled" in await ok(w, "browse_snapshot", {"mode": "full"})
        shown = await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Prompt")})
        assert "[prompt]" in shown and "anon" in shown
        await ok(w, "browse_dialog", {"accept": True, "text": "Grace"})
        assert "name: Grace" in await ok(w, "browse_snapshot", {"mode": "full"})


async def test_big_page_stays_in_budget_and_find_reaches_the_end(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/big")}, timeout=90)
        assert len(snap) / 4 <= 2100, f"{len(snap) / 4} tokens"
        assert "browse_snapshot {\"page\": 2}" in snap and "browse_find" in snap, snap[-400:]
        found = await ok(w, "browse_find", {"query": "Edit row 3000"}, timeout=90)
        last = ref_of(found, "button", "Edit row 3000")
        await ok(w, "browse_click", {"ref": last}, timeout=90)
        title = await ok(w, "browse_snapshot", {"max_tokens": 200}, timeout=90)
        assert title.startswith('Page: "edited 3000"'), title[:200]


async def test_stale_ref_is_a_clear_error(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/stale")})
        old = ref_of(snap, "button", "Old button")
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Replace")})
        stale = await err(w, "browse_click", {"ref": old})
        assert f"@e{old} is gone from the page" in stale and "snapshot" in stale, stale
        unknown = await err(w, "browse_click", {"ref": 999})
        assert "@e999" in unknown, unknown
        # A ref from a page the tab has left is gone too, never an element of the new page.
        replace = ref_of(await ok(w, "browse_snapshot"), "button", "Replace")
        snap = await ok(w, "browse_navigate", {"url": main.url("/form")})
        assert f"@e{replace} " not in snap, snap
        stale = await err(w, "browse_click", {"ref": replace})
        assert f"@e{replace} is gone from the page" in stale, stale


async def test_eval_js_and_cookies_need_their_grants(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    manifest = browser_manifest(write_manifest, main, other)
    async with start_warden(manifest) as w:
        await ok(w, "browse_navigate", {"url": main.url("/form")})
        denied = await err(w, "browse_eval_js", {"expression": "document.title"})
        assert "grants.browser.eval_js" in denied or "browser.eval_js" in denied, denied
        denied = await err(w, "browse_cookies")
        assert "browser.cookies" in denied, denied
    kinds = [l["target"] for l in manifest.audit_lines() if l["event"] == "capability_denied"]
    assert any("JavaScript" in k for k in kinds) and any("cookies" in k for k in kinds), kinds


async def test_eval_js_and_cookies_with_grants(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    # No secrets: a plugin that may evaluate script could read any field it had the host fill.
    manifest = browser_manifest(write_manifest, main, other, ", eval_js = true, cookies = true")
    async with start_warden(manifest, env=ENV) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/login")})
        assert await ok(w, "browse_eval_js", {"expression": "document.title"}) == '"Sign in"'
        assert await ok(w, "browse_eval_js", {"expression": "Promise.resolve(6 * 7)"}) == "42"
        thrown = await err(w, "browse_eval_js", {"expression": "nope.nope"})
        assert "ReferenceError" in thrown
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Accept all")})
        await ok(w, "browse_fill", {"ref": ref_of(snap, "textbox", "Email"), "value": "a@b.c"})
        await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "value": PASSWORD})
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Sign in")})
        cookies = await ok(w, "browse_cookies")
        assert "sid=s3ss10n-token" in cookies and "httpOnly" in cookies, cookies


async def test_chromium_killed_then_recovery(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        await ok(w, "browse_navigate", {"url": main.url("/list")})
        procs = chromium_processes(w.pid)
        assert procs, "Chromium runs under warden"
        for p in procs:
            # Killing the browser ends its children too: one may be gone already.
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        await anyio.sleep(0.5)
        gone = await err(w, "browse_snapshot")
        assert "browser" in gone and ("exited" in gone or "killed" in gone), gone
        snap = await ok(w, "browse_navigate", {"url": main.url("/form")})
        assert "Place order" in snap
    # warden stopped: no Chromium is left behind.
    for p in procs:
        assert not p.is_running() or p.status() == psutil.STATUS_ZOMBIE


async def test_upload_only_from_granted_dirs(start_warden, write_manifest, sites, tmp_path) -> None:
    main, other, _ = sites
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    report = uploads / "report.txt"
    report.write_text("quarterly numbers\n")
    outside = tmp_path / "private.txt"
    outside.write_text("not for upload\n")
    (uploads / "escape.txt").symlink_to(outside)
    manifest = browser_manifest(write_manifest, main, other, f', upload_dirs = ["{uploads}"]')
    async with start_warden(manifest) as w:
        snap = await ok(w, "browse_navigate", {"url": main.url("/upload")})
        field = ref_of(snap, "file", "Attachment")
        await ok(w, "browse_upload", {"ref": field, "paths": [str(report)]})
        assert "report.txt 18 bytes" in await ok(w, "browse_snapshot", {"mode": "full"})
        for path in (str(outside), str(uploads / "escape.txt"), str(uploads / ".." / "private.txt"), "/etc/passwd"):
            denied = await err(w, "browse_upload", {"ref": field, "paths": [path]})
            assert "grants.browser.upload_dirs" in denied or "upload_dirs" in denied, denied
        # A hard link the upload directory holds to Warden's manifest is Warden's file, not an upload.
        (uploads / "innocent.txt").hardlink_to(manifest.path)
        denied = await err(w, "browse_upload", {"ref": field, "paths": [str(uploads / "innocent.txt")]})
        assert "one of Warden's own files" in denied, denied
        not_file_input = await err(w, "browse_upload", {"ref": ref_of(await ok(w, "browse_navigate", {"url": main.url("/form")}), "textbox", "Name"), "paths": [str(report)]})
        assert "not a file input" in not_file_input, not_file_input


async def test_extract_main_content_as_markdown_and_text_in_parts(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        await ok(w, "browse_navigate", {"url": main.url("/news")})
        md = await ok(w, "browse_extract")
        assert md.startswith(f"# Daily News\n{main.url('/news')} ("), md[:200]
        # The teasers are there with absolute links; navigation, search and the footer are not.
        assert f"[Story 1: markets, weather and the week ahead]({main.url('/story/1')})" in md, md[:800]
        assert "Summary of story 20." in md
        for furniture in ("Technology", "Search news", "Careers", "Subscribe"):
            assert furniture not in md, furniture
        text = await ok(w, "browse_extract", {"format": "text"})
        assert "Story 3: markets" in text and "](" not in text, text[:400]
        html = await ok(w, "browse_extract", {"format": "html", "max_tokens": 100})
        assert "<nav>" in html and "[part 1 of " in html, html[-200:]
        # A long answer comes in parts; the last part says so without a "More" hint.
        first = await ok(w, "browse_extract", {"max_tokens": 200})
        parts = int(re.search(r"\[part 1 of (\d+);", first).group(1))
        assert parts > 1 and 'browse_extract {"page": 2}' in first, first[-200:]
        last = await ok(w, "browse_extract", {"max_tokens": 200, "page": parts})
        assert f"[part {parts} of {parts};" in last and "More:" not in last, last[-200:]
        past = await err(w, "browse_extract", {"max_tokens": 200, "page": parts + 1})
        assert "past the end" in past, past
