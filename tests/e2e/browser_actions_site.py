"""Fixture pages for the pointer and output actions (drag, touch, forced click, focus, PDF),
served on 127.0.0.1 by the tests themselves: `start_actions_site()` answers GET PATH with
`PAGES[PATH]`."""

from __future__ import annotations

import contextlib
import html
import json
import time
import urllib.parse

from browser_site import page
from local_site import LocalSite, QuietHandler

# An HTML5 sortable list: the dropped item's id travels in the drag's dataTransfer, so only a
# real native drag (dragstart, dragover, drop) reorders it.
SORTABLE = page(
    "Sortable",
    """
<h1>Fruit</h1>
<ul id=list style="width:200px">
  <li draggable=true data-id=a style="height:40px">Apple</li>
  <li draggable=true data-id=b style="height:40px">Banana</li>
  <li draggable=true data-id=c style="height:40px">Cherry</li>
</ul>
<p id=order>Order: Apple, Banana, Cherry</p>
<script>
const list = document.getElementById('list');
list.addEventListener('dragstart', (e) => {
  e.dataTransfer.setData('text/plain', e.target.dataset.id);
  e.dataTransfer.effectAllowed = 'move';
});
list.addEventListener('dragover', (e) => e.preventDefault());
list.addEventListener('drop', (e) => {
  e.preventDefault();
  const onto = e.target.closest('li');
  const moved = list.querySelector(`[data-id="${e.dataTransfer.getData('text/plain')}"]`);
  if (onto && moved && onto !== moved) list.insertBefore(moved, onto);
  document.getElementById('order').textContent =
    'Order: ' + Array.from(list.children).map((li) => li.textContent).join(', ');
});
</script>
""",
)

# A slider driven by mouse events only (mousedown on the thumb, mousemove on the document).
SLIDER = page(
    "Slider",
    """
<div id=track style="position:relative;width:300px;height:20px;background:#ccc;margin:40px">
  <div id=thumb role=slider aria-label=Volume aria-valuemin=0 aria-valuemax=100 aria-valuenow=0 tabindex=0
       style="position:absolute;left:0;top:0;width:20px;height:20px;background:#333"></div>
</div>
<script>
const track = document.getElementById('track');
const thumb = document.getElementById('thumb');
let held = false;
thumb.addEventListener('mousedown', (e) => { held = true; e.preventDefault(); });
document.addEventListener('mousemove', (e) => {
  if (!held) return;
  const r = track.getBoundingClientRect();
  const v = Math.round(Math.max(0, Math.min(1, (e.clientX - r.left) / r.width)) * 100);
  thumb.style.left = (v / 100 * (r.width - 20)) + 'px';
  thumb.setAttribute('aria-valuenow', String(v));
});
document.addEventListener('mouseup', () => { held = false; });
</script>
""",
)

# A button that records the events a tap gives, and a carousel moved by swipes.
TOUCH = page(
    "Touch",
    """
<button id=tap>Tap me</button>
<p id=log>Events:</p>
<div id=carousel style="width:300px;height:120px;background:#eee;touch-action:none">
  <div id=slide role=button tabindex=0 aria-label="Slide 1" style="width:300px;height:120px">Slide 1</div>
</div>
<script>
const events = [];
const note = (what) => {
  events.push(what);
  document.getElementById('log').textContent = 'Events: ' + events.join(' ');
};
const tap = document.getElementById('tap');
tap.addEventListener('pointerdown', (e) => note('pointerdown:' + e.pointerType));
tap.addEventListener('touchstart', () => note('touchstart'));
tap.addEventListener('touchend', () => note('touchend'));
tap.addEventListener('click', () => note('click'));
const carousel = document.getElementById('carousel');
const slide = document.getElementById('slide');
let startX = null, lastX = null, index = 1;
carousel.addEventListener('touchstart', (e) => { startX = lastX = e.touches[0].clientX; });
carousel.addEventListener('touchmove', (e) => { lastX = e.touches[0].clientX; });
carousel.addEventListener('touchend', () => {
  const dx = lastX - startX;
  if (dx < -50) index = Math.min(3, index + 1);
  else if (dx > 50) index = Math.max(1, index - 1);
  slide.textContent = 'Slide ' + index;
  slide.setAttribute('aria-label', 'Slide ' + index);
});
</script>
""",
)

# A button under a full-page layer that is not a modal: a plain click is refused as covered.
COVERED = page(
    "Covered",
    """
<button onclick="document.getElementById('out').textContent = 'Clicked under the layer'">Hidden action</button>
<p id=out>Nothing clicked</p>
<div id=layer onclick="document.getElementById('out').textContent = 'Layer clicked'"
     style="position:fixed;top:0;left:0;width:100%;height:100%;background:rgba(0,0,0,.2)"></div>
""",
)

# Keys reach an element that is not a text field once it has the focus; a field far down the
# page is scrolled into view.
FOCUS = page(
    "Focus",
    """
<div id=pad role=button tabindex=0 aria-label="Key pad"
     onkeydown="document.getElementById('keys').textContent += ' ' + event.key">Key pad</div>
<p id=keys>Keys:</p>
<label>Note <input id=note></label>
<p id=where>Scrolled: top</p>
<div style="height:3000px"></div>
<button>Far button</button>
<script>
addEventListener('scroll', () => {
  document.getElementById('where').textContent = 'Scrolled: ' + (scrollY > 1000 ? 'far' : 'top');
});
</script>
""",
)

# A search box that asks the server for suggestions as the user types (fetch in the input
# handler, no debounce) and a sort menu whose change handler loads another page: what a
# field's action starts must be in that action's answer.
SEARCH = page(
    "Search",
    """
<div class=top><div class=brand>Shop</div>
  <div class=search><input id=q placeholder="Search products" aria-label=Search autocomplete=off>
  <div id=suggest role=listbox aria-label=Suggestions></div></div></div>
<div class=bar><span>Sort by</span>
  <select id=sort aria-label="Sort by" onchange="location.href = '/sorted?by=' + this.value">
    <option value=best>Best match</option><option value=price>Price</option><option value=new>Newest</option>
  </select></div>
<script>
document.getElementById('q').addEventListener('input', async (e) => {
  const r = await fetch('/api/suggest?q=' + encodeURIComponent(e.target.value));
  const names = await r.json();
  document.getElementById('suggest').innerHTML =
    names.map((n) => '<div role=option class=item>' + n + '</div>').join('');
});
</script>
""",
)

# A flight search whose button reports the search to a tracker (which answers only after
# TRACKER_DELAY seconds) and then submits the form: the navigation cuts the report off.
TRACKER_DELAY = 20
FLIGHTS = page(
    "Flights",
    """
<div class=app><div class=nav><div class=brand>Fly</div><div class=nav-item>Trips</div></div>
<form id=f action=/sorted class=panel>
  <div class=row><div class=lbl>From</div><input name=from aria-label=From value=BER></div>
  <div class=row><div class=lbl>Sort</div><input name=by aria-label=Sort value=cheapest></div>
  <div class=row><div class=btn role=button tabindex=0 onclick="
    fetch('/api/track?event=search', {method: 'POST', body: 'x'});
    setTimeout(() => document.getElementById('f').submit(), 30);">Search flights</div></div>
</form></div>
""",
)

# Pages that move on by themselves once loaded: a load handler that redirects, and one that
# fetches the page's data and renders it (what a navigation answers must be the page the
# agent will act on).
BOUNCE = page(
    "Bounce",
    """<p>Redirecting...</p><script>addEventListener('load', () => location.replace('/sorted?by=bounce'));</script>""",
)
LOADER = page(
    "Orders",
    """
<div class=app><div class=side><a href=/search>Search</a></div><div id=main class=main>Loading...</div></div>
<script>
addEventListener('load', async () => {
  const r = await fetch('/api/suggest?q=order');
  const rows = await r.json();
  document.getElementById('main').innerHTML =
    rows.map((n) => '<div class=row><span>' + n + '</span><button>Open ' + n + '</button></div>').join('');
});
</script>
""",
)

PAGES = {
    "/sortable": SORTABLE,
    "/slider": SLIDER,
    "/touch": TOUCH,
    "/covered": COVERED,
    "/focus": FOCUS,
    "/search": SEARCH,
    "/bounce": BOUNCE,
    "/loader": LOADER,
    "/flights": FLIGHTS,
}


class ActionsSite(LocalSite):
    def __init__(self) -> None:
        class Handler(QuietHandler):
            def do_POST(self) -> None:  # noqa: N802
                # The tracker: answers late, if the page is still there to hear it.
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(TRACKER_DELAY)
                with contextlib.suppress(OSError):
                    self.send_response(204)
                    self.end_headers()

            def do_GET(self) -> None:  # noqa: N802
                path, _, query = self.path.partition("?")
                kind = "text/html; charset=utf-8"
                body = PAGES.get(path)
                if path == "/api/suggest":
                    q = urllib.parse.parse_qs(query).get("q", [""])[0]
                    body, kind = json.dumps([f"{q} lamp", f"{q} vase"]), "application/json"
                elif path == "/sorted":
                    by = urllib.parse.parse_qs(query).get("by", [""])[0]
                    body = page("Sorted", f"<h1>Results sorted by {html.escape(by)}</h1><a href=/search>Back to search</a>")
                data = (body or page("Not found", "<h1>Not found</h1>")).encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(Handler)


def start_actions_site() -> ActionsSite:
    return ActionsSite()
