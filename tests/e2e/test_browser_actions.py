"""Pointer and output actions of the browser plugin through the MCP server, against a real
Chromium: drag (mouse, native HTML5, touch swipe), tap, forced click, focus and typing with a
delay, scrolling into view, and printing to PDF. Fixture pages: browser_actions_site.py."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator

import pytest

from browser_actions_site import ActionsSite, start_actions_site
from browser_helpers import browser_manifest, err, ok, ref_of

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


@pytest.fixture()
def site() -> Iterator[ActionsSite]:
    s = start_actions_site()
    yield s
    s.close()


def manifest(write_manifest, site: ActionsSite) -> object:
    return browser_manifest(write_manifest, site.origin)


def ref_line(snapshot: str, ref: int) -> str:
    m = re.search(rf"^.*@e{ref} .*$", snapshot, re.M)
    assert m, f"no @e{ref} in:\n{snapshot}"
    return m.group(0)


async def test_html5_drag_reorders_a_sortable_list(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/sortable")})
        apple = ref_of(snap, "generic", "Apple")
        cherry = ref_of(snap, "generic", "Cherry")
        assert 'draggable="true"' in ref_line(snap, cherry), snap
        dragged = await ok(w, "browse_drag", {"ref": cherry, "to_ref": apple})
        assert dragged.startswith(f"Dragged @e{cherry} to @e{apple} (HTML5 drag and drop)."), dragged
        # The answer is the page in its new order (a reorder is no +/- diff).
        assert dragged.index('"Cherry"') < dragged.index('"Apple"') < dragged.index('"Banana"'), dragged
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Order: Cherry, Apple, Banana" in full, full
        # Refs follow the nodes, not their places.
        assert ref_of(full, "generic", "Cherry") == cherry


async def test_mouse_drag_moves_a_slider(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/slider")})
        thumb = ref_of(snap, "slider", "Volume")
        assert 'value="0"' in ref_line(snap, thumb), snap
        # The thumb's center starts 10 px into the 300 px track: +150 px is 160/300 = 53 %.
        dragged = await ok(w, "browse_drag", {"ref": thumb, "dx": 150, "dy": 0})
        assert dragged.startswith(f"Dragged @e{thumb} to +150, +0 px."), dragged
        assert f'+ @e{thumb} [slider] "Volume" value="53"' in dragged, dragged
        refused = await err(w, "browse_drag", {"ref": thumb})
        assert "say where to drop" in refused, refused


async def test_tap_and_swipe_with_touch(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/touch")})
        tapped = await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Tap me"), "touch": True})
        assert tapped.startswith("Tapped @e"), tapped
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        events = re.search(r"Events:[^\n]*", full)
        assert events, full
        for seen in ("pointerdown:touch", "touchstart", "touchend", "click"):
            assert seen in events.group(0), events.group(0)
        assert "pointerdown:mouse" not in events.group(0)

        slide = ref_of(snap, "button", "Slide 1")
        swiped = await ok(w, "browse_drag", {"ref": slide, "dx": -150, "dy": 0, "touch": True})
        assert swiped.startswith(f"Swiped @e{slide}"), swiped
        assert f'@e{slide} [button] "Slide 2"' in swiped, swiped
        refused = await err(w, "browse_click", {"ref": slide, "touch": True, "count": 2})
        assert "leave out button, count and modifiers" in refused, refused


async def test_force_click_reaches_a_covered_element(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/covered")})
        hidden = ref_of(snap, "button", "Hidden action")
        refused = await err(w, "browse_click", {"ref": hidden})
        assert "covered by another element" in refused, refused
        forced = await ok(w, "browse_click", {"ref": hidden, "force": True})
        assert "actionability checks (enabled, not covered) were skipped" in forced, forced
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Clicked under the layer" in full and "Layer clicked" not in full, full


async def test_focus_type_with_delay_and_scroll_into_view(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/focus")})
        # Keys reach an element that is not a text field once it has the focus.
        typed = await ok(w, "browse_type", {"ref": ref_of(snap, "button", "Key pad"), "text": "hi", "delay_ms": 30})
        assert typed.startswith("Typed 2 character(s)."), typed
        assert "Keys: h i" in await ok(w, "browse_snapshot", {"mode": "full"})
        note = ref_of(snap, "textbox", "Note")
        typed = await ok(w, "browse_type", {"ref": note, "text": "slow", "delay_ms": 20})
        assert f'@e{note} [textbox] "Note" value="slow" [focused]' in typed, typed
        scrolled = await ok(w, "browse_scroll", {"ref": ref_of(snap, "button", "Far button")})
        assert scrolled.startswith("Scrolled it into view."), scrolled
        assert "Scrolled: far" in await ok(w, "browse_snapshot", {"mode": "full"})


async def test_what_a_field_starts_is_in_its_answer(start_warden, write_manifest, site) -> None:
    """Filling a field and choosing an option answer without a fixed watch window: the
    answer waits for what the page's handlers started (a fetch, a navigation)."""
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/search")})
        filled = await ok(w, "browse_fill", {"ref": ref_of(snap, "textbox", "Search"), "value": "blue"})
        assert "blue lamp" in filled and "blue vase" in filled, filled
        chosen = await ok(w, "browse_select", {"ref": ref_of(snap, "combobox", "Sort by"), "values": ["Price"]})
        assert 'Page: "Sorted"' in chosen and "/sorted?by=price" in chosen, chosen
        assert '[link] "Back to search"' in chosen, chosen


async def test_what_a_load_handler_starts_is_in_the_navigation_answer(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        bounced = await ok(w, "browse_navigate", {"url": site.url("/bounce")})
        assert "/sorted?by=bounce" in bounced and '[link] "Back to search"' in bounced, bounced
        loaded = await ok(w, "browse_navigate", {"url": site.url("/loader")})
        assert '[button] "Open order lamp"' in loaded and '[button] "Open order vase"' in loaded, loaded


async def test_pdf_is_an_embedded_resource(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        await ok(w, "browse_navigate", {"url": site.url("/sortable")})
        result = await w.call("browse_pdf", {"paper": "a4", "landscape": True, "print_background": True})
        assert not result.is_error, result
        texts = [b.text for b in result.content if getattr(b, "type", "") == "text"]
        blobs = [b.resource for b in result.content if getattr(b, "type", "") == "resource"]
        assert len(texts) == 1 and len(blobs) == 1, result.content
        resource = blobs[0]
        assert resource.mime_type == "application/pdf"
        data = base64.b64decode(resource.blob)
        assert data.startswith(b"%PDF-")
        assert texts[0] == f"PDF of {site.url('/sortable')}: 1 page(s), {len(data)} bytes (a4, landscape).", texts[0]
        bad = await err(w, "browse_pdf", {"pages": "3-1"})
        assert "page ranges" in bad, bad
        bad = await err(w, "browse_pdf", {"paper": "b7"})
        assert "letter, legal" in bad, bad


async def test_a_request_the_navigation_cut_off_holds_up_nothing(start_warden, write_manifest, site) -> None:
    """The search button reports to a tracker that answers after 20 s, then submits the form.
    The results page is the click's answer, and the cut-off report is finished in the network
    log (the page that sent it is gone), not pending: nothing will ever wait for it."""
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/flights")})
        search = ref_of(snap, "button", "Search flights")
        clicked = await ok(w, "browse_click", {"ref": search})
        assert "/sorted?from=BER&by=cheapest" in clicked, clicked
        log = await ok(w, "browse_network", {"url": "*/api/track*"})
        line = next((l for l in log.splitlines() if "/api/track" in l), "")
        assert line and "(pending)" not in line and "FAILED" in line, log
        # And the next action is not held up by it either.
        back = await ok(w, "browse_navigate", {"url": site.url("/flights")})
        assert "Search flights" in back, back

