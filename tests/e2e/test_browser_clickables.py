"""Everything a user can click is reachable, and the snapshot repeats what the page says:
spans and divs that are clickable only through a listener or a pointer cursor get refs (a
framework's root that holds every listener does not), each item of a suggestion list is its
own ref, and a sentence read as a field's label stays in the full snapshot word for word.
A snapshot kept for paging is never an old one. Fixture pages: clickables_site.py."""

from __future__ import annotations

import re
from collections.abc import Iterator

import anyio
import pytest

from browser_helpers import browser_manifest, ok, ref_of
from clickables_site import ClickablesSite

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


@pytest.fixture()
def site() -> Iterator[ClickablesSite]:
    s = ClickablesSite()
    yield s
    s.close()


async def test_what_a_listener_or_a_pointer_makes_clickable_gets_a_ref(start_warden, write_manifest, site) -> None:
    async with start_warden(browser_manifest(write_manifest, site.origin)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/board")})
        priority = ref_of(snap, "generic", "priority")
        archive = ref_of(snap, "generic", "Archive")
        ref_of(snap, "generic", "Inbox")
        done = ref_of(snap, "generic", "Done 3")
        ref_of(snap, "generic", "Open 12")
        # Not clickable: plain words, and the root whose listener serves the whole board.
        assert '"the guide"' not in snap, snap
        assert not re.search(r'\[generic\] "Acme tasks', snap), snap
        # A link's inner words with a listener of their own are the link's (through a heading).
        ref_of(snap, "link", "Guide")
        assert '[generic] "Guide"' not in snap, snap
        # A chip is one ref, not one more for its bold word.
        assert not re.search(r'\[generic\] "Done"', snap), snap

        clicked = await ok(w, "browse_click", {"ref": priority})
        assert "Priority filter on" in await ok(w, "browse_snapshot", {"mode": "full"}), clicked
        await ok(w, "browse_click", {"ref": done})
        assert "Showing done" in await ok(w, "browse_snapshot", {"mode": "full"})
        await ok(w, "browse_click", {"ref": archive})
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "View archive" in full, full
        # The sentence around the span is still read.
        assert "Turn on the" in full and "the guide first." in full, full


async def test_each_suggestion_of_a_focusable_list_is_its_own_ref(start_warden, write_manifest, site) -> None:
    async with start_warden(browser_manifest(write_manifest, site.origin)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/suggest")})
        field = int(re.search(r'@e(\d+) \[textbox\] ~"Fruit"', snap).group(1))
        await ok(w, "browse_fill", {"ref": field, "value": "a"})
        snap = await ok(w, "browse_snapshot", {})
        for fruit in ("Apple", "Apricot", "Banana"):
            ref_of(snap, "generic", fruit)
        # The list itself is no ref named by all its items.
        assert "Apple Apricot" not in snap, snap
        await ok(w, "browse_click", {"ref": ref_of(snap, "generic", "Banana")})
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Picked: Banana" in full, full


async def test_a_sentence_read_as_a_label_stays_in_the_full_snapshot(start_warden, write_manifest, site) -> None:
    sentence = """Type "K7-Q" from the card 'Acme "Gold"' below:"""
    async with start_warden(browser_manifest(write_manifest, site.origin)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/instruction")})
        # The field takes it as its label.
        assert '[textbox] ~"Type \\"K7-Q\\"' in snap, snap
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        # As a line of text, not only inside the field's label.
        assert f"- {sentence}" in full.splitlines(), full


async def test_a_kept_snapshot_never_shows_a_page_that_changed(start_warden, write_manifest, site) -> None:
    """The host answers an unchanged page's snapshot from the one it read last (paging a
    huge page costs milliseconds); changes no DOM mutation tells must still show."""
    async with start_warden(browser_manifest(write_manifest, site.origin)) as w:
        first = await ok(w, "browse_navigate", {"url": site.url("/live")})
        assert '"page": 2}' in first, first
        # Paging: another page, and the same page again.
        second = await ok(w, "browse_snapshot", {"page": 2})
        assert "Row link" in second and second != first
        assert second == await ok(w, "browse_snapshot", {"page": 2})
        await ok(w, "browse_click", {"ref": ref_of(first, "button", "Fill later")})
        await anyio.sleep(1.0)
        # A value and a check set as properties, a URL moved by pushState: no mutation.
        now = await ok(w, "browse_snapshot", {})
        assert 'value="set by script"' in now, now
        assert re.search(r'\[checkbox\] ~?"Agree".*\[checked\]', now), now
        assert "/live?step=2" in now.splitlines()[0], now


async def test_a_kept_snapshot_shows_what_a_hover_opened(start_warden, write_manifest, site) -> None:
    async with start_warden(browser_manifest(write_manifest, site.origin)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/live")})
        assert '"Profile"' not in snap, snap
        assert snap == await ok(w, "browse_snapshot", {})
        await ok(w, "browse_hover", {"ref": ref_of(snap, "button", "Account")})
        snap = await ok(w, "browse_snapshot", {})
        assert '"Profile"' in snap and '"Sign out"' in snap, snap
