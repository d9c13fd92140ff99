"""Actions on a web app as agents meet them (webapp_site.py: a div-built single-page app with
hash and history routes, forms that post, chained dialogs, new tabs, a disabled button with a
tooltip), through the MCP server against a real Chromium.

Each action answers as soon as the page is done with it: none waits for a load event that a
same-document route never sends, for a fixed window, or behind a dialog. The bound asserted
(ACTION_BOUND) is generous on purpose: it catches "waits for a fixed timeout" bugs, not speed
(tests/bench/action_bench.py measures that)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from browser_helpers import browser_manifest, err, ok, ref_of
from webapp_site import WebAppSite, start_webapp_site

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

# Well above what these actions take on a loaded machine (a few hundred ms), well below the
# fixed waits they must not take (2 s, 5 s, 15 s, the call timeout).
ACTION_BOUND = 1.0


@pytest.fixture()
def site() -> Iterator[WebAppSite]:
    s = start_webapp_site()
    yield s
    s.close()


def manifest(write_manifest, site: WebAppSite) -> object:
    return browser_manifest(write_manifest, site.origin)


class Timed:
    """Tool calls that must each answer within ACTION_BOUND; keeps every timing for the report."""

    def __init__(self, w) -> None:
        self.w = w
        self.times: list[tuple[str, float]] = []

    async def ok(self, what: str, tool: str, args: dict | None = None) -> str:
        start = time.monotonic()
        text = await ok(self.w, tool, args, timeout=30)
        self.times.append((what, time.monotonic() - start))
        print(f"{what}: {self.times[-1][1] * 1000:.0f} ms")
        return text

    def check(self) -> None:
        report = ", ".join(f"{what} {t * 1000:.0f} ms" for what, t in self.times)
        print(f"\naction timings: {report}")
        slow = [(what, round(t, 2)) for what, t in self.times if t > ACTION_BOUND]
        assert not slow, f"actions slower than {ACTION_BOUND} s: {slow} (all: {report})"


def link(snapshot: str, name: str) -> int:
    return ref_of(snapshot, "link", name)


def button(snapshot: str, name: str) -> int:
    return ref_of(snapshot, "button", name)


async def test_routes_forms_and_dialogs_answer_at_once(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        t = Timed(w)
        # The first navigation starts the browser: not timed.
        snap = await ok(w, "browse_navigate", {"url": site.url("/app")})
        assert "Printer on floor 2 is jammed" in await ok(w, "browse_snapshot", {"mode": "full"})

        # Hash route: a same-document navigation, no load event comes.
        out = await t.ok("hash link", "browse_click", {"ref": link(snap, "Reports")})
        assert (await ok(w, "browse_snapshot", {"mode": "full"})).count("Open tickets: 12") == 1, out
        # History route: pushState, no navigation event at all.
        snap = await ok(w, "browse_snapshot")
        out = await t.ok("history link", "browse_click", {"ref": link(snap, "Settings")})
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "/app/settings" in full and "Theme" in full, full
        # Back over a history route stays in the document: no load event to wait for.
        out = await t.ok("back (same document)", "browse_back", {})
        assert "#/reports" in out, out
        snap = await ok(w, "browse_snapshot")
        out = await t.ok("hash link", "browse_click", {"ref": link(snap, "Inbox")})
        # The answer already shows the view the router rendered on hashchange.
        note = ref_of(out, "textbox", "Note")

        # The note form posts with fetch and re-renders: the answer shows the new note.
        await t.ok("fill", "browse_fill", {"ref": note, "value": "Toner low"})
        snap = await ok(w, "browse_snapshot")
        await t.ok("select", "browse_select", {"ref": ref_of(snap, "combobox", "Priority"), "values": ["High"]})
        await t.ok("submit (fetch)", "browse_click", {"ref": button(snap, "Add note")})
        assert site.posts[-1] == {"note": "Toner low", "priority": "High"}
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Note: Toner low (High)" in full, full

        # A button that opens confirm(): the answer reports the dialog at once.
        snap = await ok(w, "browse_snapshot")
        out = await t.ok("confirm button", "browse_click", {"ref": button(snap, "Delete ticket")})
        assert 'DIALOG [confirm] "Delete ticket #42?"' in out, out
        out = await t.ok("dismiss", "browse_dialog", {"accept": False})
        assert "DIALOG" not in out.split("\n", 1)[1], out
        assert "Kept ticket #42" in await ok(w, "browse_snapshot", {"mode": "full"})

        # A classic form that posts and is answered with a new page.
        snap = await t.ok("navigate", "browse_navigate", {"url": site.url("/support")})
        await t.ok("fill", "browse_fill", {"ref": ref_of(snap, "textbox", "Subject"), "value": "VPN down"})
        await t.ok("submit (post)", "browse_click", {"ref": button(snap, "Send request")})
        assert "Ticket created: VPN down" in await ok(w, "browse_snapshot", {"mode": "full"})

        await t.ok("screenshot", "browse_screenshot", {})
        t.check()


async def test_chained_confirm_prompt_alert(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        t = Timed(w)
        snap = await ok(w, "browse_navigate", {"url": site.url("/app")})
        out = await t.ok("confirm button", "browse_click", {"ref": button(snap, "Archive all")})
        assert 'DIALOG [confirm] "Archive all 12 tickets?"' in out, out
        # Accepting the confirm opens a prompt: the answer says so, and does not hang.
        out = await t.ok("accept confirm", "browse_dialog", {"accept": True})
        assert out.startswith('Accepted the confirm dialog "Archive all 12 tickets?".'), out
        assert 'DIALOG [prompt] "Why archive them?" (default: "cleanup")' in out, out
        out = await t.ok("answer prompt", "browse_dialog", {"accept": True, "text": "old tickets"})
        assert 'DIALOG [alert] "Archived 12 tickets: old tickets"' in out, out
        out = await t.ok("accept alert", "browse_dialog", {"accept": True})
        assert "DIALOG" not in out.split("\n", 1)[1], out
        assert "Archived: old tickets" in await ok(w, "browse_snapshot", {"mode": "full"})
        assert "no dialog is open" in await err(w, "browse_dialog", {"accept": True})
        t.check()


def tab_lines(listing: str) -> list[str]:
    return re.findall(r"^\[\d+\] .*$", listing, re.M)


async def test_new_tabs_are_listed_after_their_opener_and_close(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        t = Timed(w)
        snap = await ok(w, "browse_navigate", {"url": site.url("/app")})
        out = await t.ok("target=_blank link", "browse_click", {"ref": link(snap, "Help center")})
        assert "A new tab opened: [2]" in out and "/docs" in out, out
        out = await t.ok("window.open button", "browse_click", {"ref": button(snap, "Pop out")})
        assert "A new tab opened: [3]" in out and "/popout" in out, out
        listing = await ok(w, "browse_tabs", {"action": "list"})
        lines = tab_lines(listing)
        assert [re.sub(r"^\[\d+\] \"[^\"]*\" (\S+).*$", r"\1", line) for line in lines] == [
            site.url("/app"),
            site.url("/docs"),
            site.url("/popout"),
        ], listing

        out = await t.ok("tab switch", "browse_tabs", {"action": "switch", "tab": 1})
        assert "Acme Desk" in out, out
        # A tab behind the others still gives a screenshot.
        await t.ok("screenshot (background tab)", "browse_screenshot", {})
        out = await t.ok("tab switch", "browse_tabs", {"action": "switch", "tab": 3})
        assert "Ticket #42" in out, out
        # Closing any tab closes it: the answer no longer lists it.
        out = await t.ok("tab close", "browse_tabs", {"action": "close", "tab": 2})
        assert "/docs" not in out and len(tab_lines(out)) == 2, out
        out = await t.ok("tab close", "browse_tabs", {"action": "close", "tab": 1})
        assert len(tab_lines(out)) == 1 and "/popout" in out, out
        assert len(tab_lines(await ok(w, "browse_tabs", {"action": "list"}))) == 1
        await t.ok("screenshot", "browse_screenshot", {})
        t.check()


async def test_hover_on_a_disabled_button_shows_its_tooltip(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/app")})
        export = button(snap, "Export CSV")
        assert "Export needs the admin role" not in await ok(w, "browse_snapshot", {"mode": "full"})
        await ok(w, "browse_hover", {"ref": export})
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Export needs the admin role" in full, full
        # A click still refuses a disabled element.
        assert "disabled" in await err(w, "browse_click", {"ref": export})
