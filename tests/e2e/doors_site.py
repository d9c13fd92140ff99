"""Fixture sites for the document-door tests: a storefront SPA on the origin the plugin may
navigate to, whose promotions area (written by a hostile marketing script) tries every way a
document can load to bring in a page of the shop's CDN, an origin granted only for
resources, and a partner page that is granted at first and narrowed later.

- `shop`: the granted origin; serves the storefront.
- `cdn`: granted only in `resource_origins`; serves `/doc-<door>` pages that say "You should
  never see this", opted in to cross-origin prerendering (`Supports-Loading-Mode`).
- `partner`: a cacheable offer page (the back/forward cache keeps it), granted to navigate to
  until the test narrows the manifest.

Every server records every request with what the browser said it was for (`Sec-Fetch-Dest`,
`Sec-Purpose`), so a test asserts on what a server got."""

from __future__ import annotations

import json
from dataclasses import dataclass

from local_site import RecordingSite

HIDDEN = "You should never see this"

# The doors that need a click on a link: (link text, door number, what brings the page in).
LINKS = (
    ("Spring sale", 1, "speculation rules, list, prefetch, immediate"),
    ("Summer sale", 2, "speculation rules, list, prerender, immediate"),
    ("Autumn sale", 3, "speculation rules, document, prefetch, eager"),
    ("Winter sale", 4, "speculation rules, document, prerender, moderate (hover)"),
    ("Gift cards", 5, "<link rel=prerender>"),
    ("Outlet", 6, "<link rel=prefetch>"),
    ("Clearance", 7, "<link rel=preload>"),
)

# The doors behind a button: (button label, door number, how the page goes there).
BUTTONS = (
    ("Pay with a form", 8, "a GET form"),
    ("Pay by post", 9, "a POST form"),
    ("Open the receipt", 10, "window.open"),
    ("Continue to checkout", 11, "location"),
    ("Refresh prices", 12, "a meta refresh"),
    ("Show the widget", 13, "a frame"),
    ("Show the brochure", 14, "an <object>"),
    ("Show the flyer", 15, "an <embed>"),
)


def store(cdn: str) -> str:
    doc = lambda n: f"{cdn}/doc-{n}"  # noqa: E731
    rules = {
        "prefetch": [
            {"source": "list", "urls": [doc(1)], "eagerness": "immediate"},
            {"source": "document", "where": {"href_matches": doc(3)}, "eagerness": "eager"},
        ],
        "prerender": [
            {"source": "list", "urls": [doc(2)], "eagerness": "immediate"},
            {"source": "document", "where": {"href_matches": doc(4)}, "eagerness": "moderate"},
        ],
    }
    links = "".join(f'<a class="promo" href="{doc(n)}">{text}</a>' for text, n, _ in LINKS)
    buttons = "".join(
        f'<div role="button" tabindex="0" class="btn" data-door="{n}">{label}</div>' for label, n, _ in BUTTONS
    )
    return f"""<!doctype html><html><head><meta charset=utf-8><title>Corner Shop</title>
<link rel="prerender" href="{doc(5)}"><link rel="prefetch" href="{doc(6)}">
<link rel="preload" as="fetch" crossorigin href="{doc(7)}">
<script type="speculationrules">{json.dumps(rules)}</script>
<style>
  body {{ margin: 0; font-family: sans-serif; background: #fafafa; }}
  .top {{ background: #243b53; color: #fff; padding: 14px 20px; font-weight: bold; }}
  .grid {{ display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; padding: 16px 20px; }}
  .tile {{ background: #fff; border-radius: 8px; padding: 12px; box-shadow: 0 1px 2px #0002; }}
  .promos, .actions {{ display: flex; flex-wrap: wrap; gap: 12px; padding: 0 20px 16px; }}
  .promo {{ color: #0b69a3; padding: 6px 0; }}
  .btn {{ background: #0b69a3; color: #fff; padding: 8px 14px; border-radius: 4px; cursor: pointer; }}
</style></head><body>
<div class="top">Corner Shop</div>
<div class="grid"><div class="tile">Tea, 4.50</div><div class="tile">Coffee, 6.00</div><div class="tile">Cocoa, 5.20</div><div class="tile">Mate, 4.90</div></div>
<div class="promos">{links}</div>
<div class="actions">{buttons}</div>
<div id="slot"></div>
<script>
const CDN = {json.dumps(cdn)};
const go = {{
  8: () => {{ const f = document.createElement('form'); f.action = CDN + '/doc-8'; f.method = 'get'; f.innerHTML = '<input name=card value=4111>'; document.body.append(f); f.submit(); }},
  9: () => {{ const f = document.createElement('form'); f.action = CDN + '/doc-9'; f.method = 'post'; f.innerHTML = '<input name=card value=4111>'; document.body.append(f); f.submit(); }},
  10: () => window.open(CDN + '/doc-10'),
  11: () => {{ location.href = CDN + '/doc-11'; }},
  12: () => {{ const m = document.createElement('meta'); m.httpEquiv = 'refresh'; m.content = '0;url=' + CDN + '/doc-12'; document.head.append(m); }},
  13: () => {{ document.getElementById('slot').innerHTML = '<iframe src="' + CDN + '/doc-13"></iframe>'; }},
  14: () => {{ document.getElementById('slot').innerHTML = '<object type="text/html" data="' + CDN + '/doc-14"></object>'; }},
  15: () => {{ document.getElementById('slot').innerHTML = '<embed type="text/html" src="' + CDN + '/doc-15">'; }},
}};
for (const b of document.querySelectorAll('[data-door]')) b.onclick = () => go[b.dataset.door]();
</script></body></html>"""


OFFER = """<!doctype html><html><head><meta charset=utf-8><title>Partner offer</title></head>
<body><div class="offer"><h1>Partner offer</h1><div>Ten percent off, today only</div></div></body></html>"""

HOME = """<!doctype html><html><head><meta charset=utf-8><title>Corner Shop home</title></head>
<body><div class="top">Corner Shop home</div></body></html>"""


@dataclass
class DoorSites:
    shop: RecordingSite
    cdn: RecordingSite
    partner: RecordingSite

    def close(self) -> None:
        for site in (self.shop, self.cdn, self.partner):
            site.close()


def start_door_sites() -> DoorSites:
    shop = RecordingSite()
    cdn = RecordingSite(headers={"Supports-Loading-Mode": "credentialed-prerender"})
    partner = RecordingSite(cacheable=True)
    shop.pages.update({"/store": ("text/html; charset=utf-8", store(cdn.origin)), "/home": ("text/html; charset=utf-8", HOME)})
    page = f"<!doctype html><title>CDN page</title><h1>{HIDDEN}</h1><script>fetch('/from-the-page')</script>"
    for n in range(1, 16):
        cdn.pages[f"/doc-{n}"] = ("text/html; charset=utf-8", page)
    partner.pages["/offer"] = ("text/html; charset=utf-8", OFFER)
    return DoorSites(shop, cdn, partner)
