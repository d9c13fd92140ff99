"""What the snapshot shows on pages shaped like the web (snapshot_site.py): every visible
word in `full` mode and no hidden one, labels inferred from the text beside a control,
overlays only where something covers the page, and browse_find matches with the row's
controls, usable as they are."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from browser_helpers import browser_manifest, ok
from browser_site import Site, news_page, start_site
from snapshot_site import PAGES

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

# The words of every text node the page shows, computed in the page itself.
VISIBLE_WORDS = """(() => {
  const words = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    const p = n.parentElement;
    if (p.closest('script, style, select, textarea, [aria-hidden=true]')) continue;
    if (!p.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    if (!Array.from(range.getClientRects()).some((r) => r.width > 0 && r.height > 0)) continue;
    words.push(n.data);
  }
  return words.join(' ');
})()"""


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"\w+", text)}


@pytest.fixture()
def site() -> Iterator[Site]:
    s = start_site()
    s.pages.update(PAGES)
    s.pages["/news"] = news_page()
    yield s
    s.close()


def manifest(write_manifest, site: Site) -> object:
    # eval_js only so the test can read the page's own words to compare against.
    return browser_manifest(write_manifest, site.origin, ", eval_js = true")


async def full(w) -> str:
    return await ok(w, "browse_snapshot", {"mode": "full", "max_tokens": 200_000}, timeout=90)


async def test_full_snapshot_has_every_visible_word_and_no_hidden_one(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        for path in ["/divs", "/mdbook", "/rustdoc", "/labels", "/news", "/chrome"]:
            await ok(w, "browse_navigate", {"url": site.url(path)})
            shown = json.loads(await ok(w, "browse_eval_js", {"expression": VISIBLE_WORDS}))
            expected = {x for x in words(shown) if not x.startswith("hidden")}
            snap = await full(w)
            got = words(snap)
            assert expected <= got, f"{path}: missing {sorted(expected - got)[:20]}\n{snap[:3000]}"
            assert not [x for x in got if x.startswith("hidden")], f"{path}: hidden text shown\n{snap}"

        # The example, line by line: one line per block, inline text merged, the
        # label before the text box as its (inferred) name, and still its own line of text
        # (it may be an instruction the agent must match word for word).
        await ok(w, "browse_navigate", {"url": site.url("/divs")})
        snap = await full(w)
        for line in [
            '- Click on the "Ok" button.',
            "- lorem ipsum dolor",
            '[textbox] ~"sit amet:"',
            '[button] "Ok"',
            "- A paragraph.",
            "- Another bold div text.",
            "- $9 per month, billed yearly",
            "- Status: all systems normal",
            "- Inbox 3",
        ]:
            assert line in snap, f"{line!r} not in\n{snap}"
        assert snap.index("- sit amet:") < snap.index('[textbox] ~"sit amet:"'), snap


async def test_default_snapshot_stays_small(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/rustdoc")})
        # Interactive elements only: none of the page's prose.
        assert "Runs operation" not in snap and "@e" in snap, snap
        snap = await ok(w, "browse_navigate", {"url": site.url("/news")})
        assert len(snap) / 4 < 1100, f"{len(snap) / 4} tokens"


async def test_labels_are_inferred_from_the_text_beside_a_control(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/labels")})

        def ref(role: str, name: str, inferred: bool = True) -> int:
            mark = "~" if inferred else ""
            m = re.search(rf'@e(\d+) \[{role}\] {mark}"{re.escape(name)}"', snap)
            assert m, f'no [{role}] {mark}"{name}" in\n{snap}'
            return int(m.group(1))

        name, phone = ref("textbox", "Full name"), ref("textbox", "Phone number")
        ref("combobox", "Country")
        code = ref("textbox", "Discount code")
        gift = ref("checkbox", "This is a gift")
        ref("textbox", "Card number", inferred=False)
        # A <label> tied to no field (no `for`, not around it) still names the field after it.
        pw, pw2 = ref("password", "Password"), ref("password", "Verify password")
        assert pw != pw2
        assert 'placeholder="Discount code"' not in snap, "the placeholder is the name, not repeated"
        await ok(w, "browse_fill", {"ref": name, "value": "Ada Lovelace"})
        await ok(w, "browse_fill", {"ref": phone, "value": "555 0100"})
        await ok(w, "browse_fill", {"ref": code, "value": "SPRING"})
        await ok(w, "browse_click", {"ref": gift})
        await ok(w, "browse_click", {"ref": ref("button", "Place order", inferred=False)})
        assert "Ordered for Ada Lovelace / 555 0100 / SPRING / gift true" in await full(w)


async def test_overlays_only_where_something_covers_the_page(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        for path in ["/mdbook", "/rustdoc", "/chrome", "/divs"]:
            snap = await ok(w, "browse_navigate", {"url": site.url(path)})
            assert "OVERLAY" not in snap, f"{path}: false overlay\n{snap[:600]}"
            # Scrolled, the content passes under the fixed bars: still nothing to handle.
            await ok(w, "browse_scroll", {"direction": "down", "amount": 1500})
            snap = await ok(w, "browse_snapshot")
            assert "OVERLAY" not in snap, f"{path} scrolled: false overlay\n{snap[:600]}"

        snap = await ok(w, "browse_navigate", {"url": site.url("/modal")})
        lines = snap.splitlines()
        assert lines[1].startswith('⚠ OVERLAY: [modal] "Get 10% off your first order" @e'), snap[:600]
        # The overlay's controls come first, with their refs.
        assert re.match(r'@e\d+ \[textbox\] ~"Email address"', lines[2]), snap[:600]
        await ok(w, "browse_click", {"ref": int(re.search(r'@e(\d+) \[button\] "No thanks"', snap).group(1))})
        assert "OVERLAY" not in await ok(w, "browse_snapshot")

        snap = await ok(w, "browse_navigate", {"url": site.url("/cookie")})
        assert snap.splitlines()[1].startswith("⚠ OVERLAY: [cookie_banner]"), snap[:600]
        await ok(w, "browse_click", {"ref": int(re.search(r'@e(\d+) \[button\] "Accept all"', snap).group(1))})
        assert "OVERLAY" not in await ok(w, "browse_snapshot")

        snap = await ok(w, "browse_navigate", {"url": site.url("/veil")})
        assert snap.splitlines()[1].startswith('⚠ OVERLAY: [overlay] "Choose your region" @e'), snap[:600]
        await ok(w, "browse_click", {"ref": int(re.search(r'@e(\d+) \[button\] "Europe"', snap).group(1))})
        assert "OVERLAY" not in await ok(w, "browse_snapshot")


async def test_find_gives_each_match_its_rows_controls(start_warden, write_manifest, site) -> None:
    async with start_warden(manifest(write_manifest, site)) as w:
        await ok(w, "browse_navigate", {"url": site.url("/shop")}, timeout=90)
        found = await ok(w, "browse_find", {"query": "Ceramic Vase 2718"}, timeout=90)
        lines = found.splitlines()
        assert lines[0].startswith("1 match(es)"), found
        assert re.match(r'@e\d+ \[link\] "Ceramic Vase 2718"', lines[1]), found
        m = re.match(r'  in row: "\$\d+\.00 \| (In|Low) stock" @e(\d+) \[button\] "Buy", @e\d+ \[link\] "Reviews"$', lines[2])
        assert m, found
        await ok(w, "browse_click", {"ref": int(m.group(2))}, timeout=90)
        cart = await ok(w, "browse_find", {"query": "to the cart"}, timeout=90)
        assert "- Added Ceramic Vase 2718 to the cart" in cart, cart

        # Many matches: bounded, with the hint to narrow.
        many = await ok(w, "browse_find", {"query": "Oak Chair", "limit": 5}, timeout=90)
        assert many.startswith("600 match(es)") and "shown: 1 to 5; offset 5 shows the next" in many, many[:300]
        assert len(many.splitlines()) <= 11, many

        # Documentation: a method's heading comes with the "Source" link beside it.
        await ok(w, "browse_navigate", {"url": site.url("/rustdoc")})
        found = await ok(w, "browse_find", {"query": "pub fn op17("})
        assert re.search(r'in section: .*@e\d+ \[link\] "Source"', found), found


async def test_find_ranks_the_exact_name_first_and_pages_through_the_rest(start_warden, write_manifest, site) -> None:
    """On a huge index, the entry named exactly like the query comes first, however late it is
    in the document; the count says how many there are and `offset` gets every one, once."""
    async with start_warden(manifest(write_manifest, site)) as w:
        await ok(w, "browse_navigate", {"url": site.url("/api-index")}, timeout=90)
        found = await ok(w, "browse_find", {"query": "map", "limit": 5}, timeout=90)
        lines = found.splitlines()
        m = re.match(r"(\d+) match\(es\) for \"map\" .*best first: 1 exact, (\d+) whole word", lines[0])
        assert m, found
        total = int(m.group(1))
        assert total > 90, found
        first = re.match(r'@e(\d+) \[link\] "Map"', lines[1])
        assert first, found
        # The next are the whole-word matches ("Returns a map of …", "every map type").
        assert "- Returns a map of the entries." in found or "every map type" in found, found

        # Paging: every match once, in the order promised.
        seen: list[str] = []
        offset = 0
        while offset < total:
            page_text = await ok(w, "browse_find", {"query": "map", "limit": 50, "offset": offset}, timeout=90)
            header, *rest = page_text.splitlines()
            assert f"shown: {offset + 1} to {min(offset + 50, total)}" in header, header
            seen += [line for line in rest if not line.startswith("  ")]
            offset += 50
        assert len(seen) == total, (len(seen), total)
        assert seen[0].startswith("@e") and '"Map"' in seen[0], seen[:3]
        past = await ok(w, "browse_find", {"query": "map", "offset": total}, timeout=90)
        assert f"none from offset {total}" in past, past

        # The ref is usable as it is.
        await ok(w, "browse_click", {"ref": int(first.group(1))}, timeout=90)
        assert "/api/Map" in site.requests, site.requests[-5:]


async def test_a_snapshot_repeats_the_pages_quotes_as_they_are(start_warden, write_manifest, site) -> None:
    """The words an agent must type come back character for character: a quote of the page's
    is escaped, never turned into another character."""
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/task")}, timeout=90)
        # The instruction names the unlabeled box (`~"..."`), its quotes escaped.
        assert '~"Type \\"Harbor 7\\" into the box, then press \\"Go\\"."' in snap, snap
        everything = await full(w)
        found = await ok(w, "browse_find", {"query": "Harbor"}, timeout=90)
        for text in (snap, everything, found):
            assert "'Harbor 7'" not in text and "'Go'" not in text, text


def png_pixels(data: bytes, max_rows: int) -> tuple[int, int, list[bytes]]:
    """Width, height and the first rows (RGB or RGBA bytes) of an 8-bit, non-interlaced PNG."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(min(height, max_rows)):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def mark_pixels(png: bytes) -> int:
    """How many pixels of the top of the image have the marks' colour (#e0218a)."""
    width, _, rows = png_pixels(png, 320)
    channels = len(rows[0]) // width
    return sum(
        1 for row in rows for x in range(0, len(row), channels)
        if abs(row[x] - 0xE0) < 8 and abs(row[x + 1] - 0x21) < 8 and abs(row[x + 2] - 0x8A) < 8
    )


async def test_marked_screenshot_labels_the_refs_and_leaves_no_trace(start_warden, write_manifest, site) -> None:
    import base64

    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/labels")})
        refs = set(re.findall(r"^@e(\d+) ", snap, re.M))
        plain = await w.call("browse_screenshot", {})
        marked = await w.call("browse_screenshot", {"marks": True})
        assert not marked.is_error, marked
        image = next(b for b in marked.content if getattr(b, "type", "") == "image")
        caption = "".join(getattr(b, "text", "") for b in marked.content)
        assert f"{len(refs)} element(s) marked with their @eN ref" in caption, caption
        png = base64.b64decode(image.data)
        before = base64.b64decode(next(b for b in plain.content if getattr(b, "type", "") == "image").data)
        assert mark_pixels(before) == 0 and mark_pixels(png) > 200, "the marks are drawn"
        # Nothing of the marks stays in the page, and the refs are the snapshot's.
        assert await ok(w, "browse_eval_js", {"expression": "document.querySelector('warden-marks') === null"}) == "true"
        assert await ok(w, "browse_snapshot") == snap


async def test_nameless_expanders_and_icons_are_named_by_what_they_open_or_show(start_warden, write_manifest, site) -> None:
    """A tree's expand icon is an empty div with a click listener: named after the item it opens
    and marked expanded while its list shows; an icon-only action is named by its class."""
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/tree")})
        alan = re.search(r'@e(\d+) \[generic\] ~"Alan"$', snap, re.M)
        assert alan, snap
        assert re.search(r'@e\d+ \[generic\] ~"Chas" \[expanded\]$', snap, re.M), snap
        assert '[generic] "Deneen"' not in snap, f"the closed folder's file is hidden\n{snap}"
        trash = re.search(r'@e(\d+) \[generic\] ~"trash"$', snap, re.M)
        assert trash, snap
        snap = await ok(w, "browse_click", {"ref": int(alan.group(1))})
        snap = await ok(w, "browse_snapshot")
        assert re.search(r'~"Alan" \[expanded\]$', snap, re.M), snap
        deneen = re.search(r'@e(\d+) \[generic\] "Deneen"$', snap, re.M)
        assert deneen, snap
        await ok(w, "browse_click", {"ref": int(deneen.group(1))})
        assert "opened Deneen" in await full(w)
        await ok(w, "browse_click", {"ref": int(trash.group(1))})
        assert "deleted" in await full(w)


async def test_a_clickable_row_around_icon_actions_keeps_its_own_ref(start_warden, write_manifest, site) -> None:
    """A mail row opens the mail; its trash and star icons have listeners of their own. The row
    is not swallowed by its icons: it keeps a ref named by its words, and each icon has one."""
    async with start_warden(manifest(write_manifest, site)) as w:
        snap = await ok(w, "browse_navigate", {"url": site.url("/inbox")})
        rory = re.search(r'@e(\d+) \[generic\] "Rory Lunch on Friday"$', snap, re.M)
        assert rory, snap
        trashes = re.findall(r'@e(\d+) \[generic\] ~"trash"$', snap, re.M)
        stars = re.findall(r'@e(\d+) \[generic\] ~"star"$', snap, re.M)
        assert len(trashes) == 2 and len(stars) == 2, snap
        # A link that is a bare icon has no name; where it goes is what tells it apart, so
        # its href is shown, while a named link's is left out.
        assert re.search(r'^@e\d+ \[link\] "" href="https://github.com/acme-mail"$', snap, re.M), snap
        assert re.search(r'^@e\d+ \[link\] "" href="https://mastodon.example/@acme"$', snap, re.M), snap
        assert re.search(r'^@e\d+ \[link\] "Help"$', snap, re.M), snap
        await ok(w, "browse_click", {"ref": int(rory.group(1))})
        assert "opened Rory" in await full(w)
        await ok(w, "browse_click", {"ref": int(trashes[0])})
        assert "deleted 1" in await full(w)
