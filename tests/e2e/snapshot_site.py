"""Pages shaped like the web for the snapshot tests: div-heavy layouts, documentation sites
with fixed or sticky sidebars (mdBook, rustdoc), a modal with a backdrop, a cookie banner
over the text, a 3,000-row shop table with a "Buy" button per row, and form controls whose
only label is the text beside them. Served by `browser_site.Site` through its `pages`.

Words of text the page hides (display:none, aria-hidden, screen-reader-only boxes, closed
<details>...) all start with "hidden", so a test can check none of them reaches a snapshot.
"""

from __future__ import annotations

from browser_site import page

LOREM = (
    "The chapter explains how the parts fit together, why each one exists and what a reader "
    "should try next; examples follow the explanation and every example can be run as shown."
)

# The example from the issue, inside the kind of layout most sites are built from.
DIVS = page(
    "Task",
    """<style>
.app{display:flex;gap:16px;font-family:sans-serif}.nav{width:180px}.nav div{padding:4px}
.cards{display:grid;grid-template-columns:1fr 1fr;gap:8px}.card{border:1px solid #ccc;padding:8px}
.price{font-weight:bold}.badge{display:inline-block;background:#eef;padding:0 4px;margin-left:4px}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)}
.collapsed{height:0;overflow:hidden}
</style>
<div class=app>
  <div class=nav><div><span>Workspace</span></div><div><span>Inbox</span><span class=badge>3</span></div>
    <div style="display:none">hiddenmenu hiddenentry</div></div>
  <div class=main>
    <div id="query">Click on the "Ok" button.</div>
    <div id="area"><div> lorem ipsum dolor</div><span>sit amet: </span><input type=text><br><button>Ok</button></div>
    <p>A paragraph.</p><div>Another <b>bold</b> div text.</div>
    <div class=cards>
      <div class=card><div class=title>Starter plan</div><div><span class=price>$9</span> per month, billed <i>yearly</i></div></div>
      <div class=card><div class=title>Team plan</div><div><span class=price>$29</span> per month for up to ten people</div></div>
    </div>
    <div><span>Status:</span> <span>all systems normal</span></div>
    <span class=sr-only>hiddenscreenreader hiddenonly</span>
    <div aria-hidden=true>hiddenaria hiddendecoration</div>
    <div style="visibility:hidden">hiddenvisibility hiddentext</div>
    <div class=collapsed>hiddencollapsed hiddenpanel</div>
    <div style="position:absolute;left:-9999px">hiddenoffscreen hiddenskip hiddenlink</div>
    <details><summary>Show more</summary>hiddendetails hiddenbody</details>
  </div>
</div>""",
)

SIDEBAR_LINKS = "".join(f'<li><a href="#ch{i}">{i}. Chapter {i}</a></li>' for i in range(1, 41))
CHAPTER = "".join(f"<h2 id=ch{i}>Chapter {i}</h2><p>{LOREM}</p><p>{LOREM}</p>" for i in range(1, 13))

# mdBook: a fixed sidebar beside the page, which leaves room for it; a sticky menu bar.
MDBOOK = page(
    "The Book",
    f"""<style>
body{{margin:0;font-family:sans-serif}}
.sidebar{{position:fixed;left:0;top:0;bottom:0;width:300px;overflow-y:auto;background:#fafafa;z-index:10}}
.page-wrapper{{margin-left:300px}}
#menu-bar{{position:sticky;top:0;height:50px;background:#fff;display:flex;align-items:center;gap:8px;z-index:5}}
.content{{padding:0 15px;max-width:750px}}
</style>
<nav id=sidebar class=sidebar aria-label="Table of contents"><div class=sidebar-scrollbox><ol class=chapter>{SIDEBAR_LINKS}</ol></div></nav>
<div id=page-wrapper class=page-wrapper>
  <div id=menu-bar><button aria-label="Toggle Table of Contents">☰</button><button aria-label="Search">🔍</button>
    <h1 class=menu-title>The Book</h1><a href="/print" title="Print this book">🖨</a></div>
  <main class=content>{CHAPTER}</main>
</div>""",
)

METHODS = "".join(
    f"""<details class="toggle method-toggle" open><summary><section id="method.op{i}" class="method">
<a class="src rightside" href="/src/lib.rs.html#{i * 10}">Source</a><a href="#method.op{i}" class=anchor>§</a>
<h4 class=code-header>pub fn op{i}(&amp;self, n: usize) -&gt; Result&lt;u{i}&gt;</h4></section></summary>
<div class=docblock><p>Runs operation {i} on the value. {LOREM}</p></div></details>"""
    for i in range(1, 31)
)

# rustdoc: a sticky sidebar in a flex row, a fixed search bar the content is padded for.
RUSTDOC = page(
    "Widget in widgets - Rust",
    f"""<style>
body{{margin:0;display:flex;font-family:sans-serif}}
.sidebar{{position:sticky;top:0;height:100vh;width:250px;flex:none;overflow-y:auto;background:#f5f5f5}}
.search-bar{{position:fixed;top:0;left:250px;right:0;height:44px;background:#fff;z-index:2}}
main{{padding:52px 16px 0}}
.rightside{{float:right}}
</style>
<nav class=sidebar><a class=logo href="/widgets/index.html">widgets</a><h3>Methods</h3>
<ul class=block>{"".join(f'<li><a href="#method.op{i}">op{i}</a></li>' for i in range(1, 31))}</ul></nav>
<div class=search-bar><input class=search-input name=search placeholder="Type S or / to search"><a href="/help.html">Help</a></div>
<main><h1>Struct <span class=struct>Widget</span></h1><div class=docblock><p>A widget. {LOREM}</p></div>
<h2 id=implementations>Implementations</h2>{METHODS}</main>""",
)

ARTICLE = "".join(f"<p>{LOREM}</p>" for _ in range(25))

MODAL = page(
    "Shop front",
    f"""<style>
.backdrop{{position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;justify-content:center;z-index:50}}
.box{{background:#fff;padding:24px;width:420px;border-radius:8px}}
</style>
<div class=top><a href="/">Shop</a> <a href="/deals">Deals</a></div>
<h1>New arrivals</h1>{ARTICLE}
<div class=backdrop id=newsletter><div class=box role=dialog aria-modal=true aria-labelledby=nl-title>
<h2 id=nl-title>Get 10% off your first order</h2><input type=email placeholder="Email address">
<button onclick="document.getElementById('newsletter').remove()">Subscribe</button>
<button onclick="document.getElementById('newsletter').remove()">No thanks</button></div></div>""",
)

COOKIE = page(
    "Morning briefing",
    f"""<div class=masthead><a href="/">Briefing</a></div><h1>Morning briefing</h1>{ARTICLE}
<div id=consent-banner style="position:fixed;left:0;right:0;bottom:0;padding:16px 24px;background:#222;color:#fff;z-index:99">
<div>We and our partners use cookies to personalise content.</div>
<button onclick="document.getElementById('consent-banner').remove()">Accept all</button>
<button onclick="document.getElementById('consent-banner').remove()">Manage choices</button></div>""",
)

# A region picker laid over the page by an absolutely placed veil (no role, not fixed).
VEIL = page(
    "Store",
    f"""<div class=page style="position:relative"><h1>Store</h1>{ARTICLE}
<div class=veil style="position:absolute;left:0;top:0;width:100%;height:100%;background:rgba(0,0,0,.3)">
<div style="margin:120px auto;width:320px;background:#fff;padding:16px"><div>Choose your region</div>
<button onclick="document.querySelector('.veil').remove()">Europe</button></div></div></div>""",
)

# Fixed parts that cover nothing: a header the body is padded for, a small chat button, and
# a decorative background behind everything.
FIXED_CHROME = page(
    "Blog",
    f"""<style>
body{{margin:0;padding-top:64px;font-family:sans-serif}}
header{{position:fixed;top:0;left:0;right:0;height:56px;background:#fff;display:flex;gap:12px;align-items:center;z-index:10}}
.chat{{position:fixed;right:16px;bottom:16px;width:56px;height:56px;z-index:10}}
.bg{{position:fixed;inset:0;z-index:-1;background:linear-gradient(#fff,#eef)}}
main{{padding:0 24px}}
</style>
<div class=bg></div>
<header><a href="/">Blog</a><a href="/archive">Archive</a><input placeholder="Search posts"><button>Subscribe</button></header>
<main><h1>Notes</h1>{ARTICLE}</main>
<div class=chat><button aria-label="Open chat">💬</button></div>""",
)

LABELS = page(
    "Checkout",
    """<style>.row{display:flex;gap:8px;margin:6px 0}.lbl{width:140px}</style>
<h1>Checkout</h1>
<div class=form>
  <div class=row><div class=lbl>Full name</div><div class=ctl><input id=fullname></div></div>
  <div class=row><span>Phone number</span> <input type=tel id=phone></div>
  <div class=row><div class=lbl>Country</div><select id=country><option>Germany</option><option>France</option></select></div>
  <div class=row><input placeholder="Discount code" id=code></div>
  <div class=row><input type=checkbox id=gift><span>This is a gift</span></div>
  <div class=row><input type=text aria-label="Card number" id=card></div>
  <p><label>Password</label><input type=password id=pw></p>
  <p><label>Verify password</label><input type=password id=pw2></p>
  <div class=row><button onclick="document.getElementById('out').textContent =
    'Ordered for ' + fullname.value + ' / ' + phone.value + ' / ' + code.value + ' / gift ' + gift.checked">Place order</button></div>
</div>
<p id=out></p>""",
)


def shop_page(rows: int) -> str:
    names = ["Ceramic Vase", "Oak Chair", "Linen Throw", "Brass Lamp", "Wool Rug"]
    body = []
    for i in range(1, rows + 1):
        name = f"{names[(i + 2) % len(names)]} {i}"
        body.append(
            f'<tr class=product-row><td><a href="/product/{i}">{name}</a></td><td class=price>${i % 90 + 10}.00</td>'
            f"<td>{'In stock' if i % 7 else 'Low stock'}</td>"
            f"<td><button class=buy onclick=\"document.getElementById('cart').textContent='Added {name} to the cart'\">Buy</button>"
            f' <a href="/product/{i}#reviews">Reviews</a></td></tr>'
        )
    return page(
        "Shop",
        f"""<div class=header><a href="/">Shop</a><div id=cart>Cart is empty</div></div>
<h1>All products</h1><table><thead><tr><th>Product</th><th>Price</th><th>Stock</th><th></th></tr></thead>
<tbody>{"".join(body)}</tbody></table>""",
    )


def api_index(entries: int) -> str:
    """A documentation site's index of every item, built of divs like a generated one: a fixed
    sidebar, then thousands of entries in document order. Dozens of names contain "map"
    (`HashMap`, `map_err`, `Mapping…`), and the one named exactly `Map` comes late."""
    stems = ["Mapping", "HashMap", "map_err", "flat_map", "BTreeMap", "MapEntry", "Heatmap", "Roadmap"]
    others = ["Vec", "String", "Option", "Result", "Iterator", "Reader", "Writer", "Buffer"]
    rows = []
    for i in range(entries):
        name = f"{stems[i % len(stems)]}{i}" if i % 30 == 0 else f"{others[i % len(others)]}{i}"
        desc = "Returns a map of the entries." if i % 400 == 7 else f"Item number {i} of the crate."
        if i == entries - 40:
            name, desc = "Map", "The trait every map type implements."
        rows.append(
            f'<div class="idx-row"><div class="idx-name"><a href="/api/{name}">{name}</a></div>'
            f'<div class="idx-desc">{desc}</div></div>'
        )
    return page(
        "Index — docs",
        f"""<style>.side{{position:fixed;left:0;top:0;width:180px}}.main{{margin-left:200px}}
.idx-row{{display:flex;gap:12px}}.idx-name{{width:240px}}</style>
<div class=side><div class=logo>docs</div><div><a href="/">Home</a></div><div><a href="/api">API</a></div></div>
<div class=main><div class=title>All items</div><div class=list>{"".join(rows)}</div></div>""",
    )


# A task page like a benchmark's: the instruction in a div, its quoted words to be typed
# exactly (set in bold by a span, with no space around it), an unlabeled box below it, and a
# div for a button.
TASK = page(
    "Task",
    """<div id=wrap><div id=query>Type "<span class=bold>Harbor 7</span>" into the box, then press "Go".</div>
<div id=area><input type=text id=tt><div class=btn role=button tabindex=0
  onclick="document.getElementById('done').textContent = 'got ' + tt.value">Go</div></div>
<div id=done></div></div>""",
)


# A file tree as jQuery treeview draws it (an empty div with a background icon and a click
# listener before each folder's name, the folder's list hidden while closed) and a mail row
# whose only action is an icon named by its class.
TREE = page(
    "Files",
    """<style>li{list-style:none}.hitarea{display:inline-block;width:12px;height:12px;cursor:pointer;
  background:#ccc url(/icons/plus.gif)}.folder,.file{cursor:pointer;margin-left:4px}
.email-trash{display:inline-block;width:14px;height:14px;background:url(/img/trash-can.png);cursor:pointer}</style>
<div id=query>Find and click on the file named "Deneen".</div>
<div class=tree><ul>
  <li><div class="hitarea expandable-hitarea"></div><span class=folder>Alan</span>
    <ul style="display:none"><li><span class=file>Deneen</span></li></ul></li>
  <li><div class="hitarea collapsable-hitarea"></div><span class=folder>Chas</span>
    <ul><li><span class=file>Rory</span></li></ul></li>
</ul></div>
<div class=mail><div class=row><span class=sender>Cathrine</span> <span class=email-trash></span></div></div>
<p id=out></p>
<script>
const out = (t) => { document.getElementById('out').textContent = t; };
document.querySelectorAll('.hitarea').forEach((h) => h.addEventListener('click', () => {
  const ul = h.parentElement.querySelector('ul');
  ul.style.display = ul.style.display === 'none' ? '' : 'none';
}));
document.querySelectorAll('.folder, .file').forEach((f) => f.addEventListener('click', () => out('opened ' + f.textContent)));
document.querySelector('.email-trash').addEventListener('click', () => out('deleted'));
</script>""",
)


# A mail list as web mail draws it: each row a div with a click listener that opens the mail,
# holding the sender and subject and two icon-only actions with listeners of their own; a
# footer of social links that are a bare SVG each.
INBOX = page(
    "Inbox",
    """<style>.email-thread{display:flex;gap:8px;padding:6px;border-bottom:1px solid #ddd;cursor:pointer}
.icon{display:inline-block;width:14px;height:14px;background:#aaa}</style>
<div class=inbox>
  <div class=email-thread data-id=1><span class=email-sender>Cathrine</span>
    <span class=email-subject>Scelerisque feugiat</span><span class="icon trash"></span><span class="icon star"></span></div>
  <div class=email-thread data-id=2><span class=email-sender>Rory</span>
    <span class=email-subject>Lunch on Friday</span><span class="icon trash"></span><span class="icon star"></span></div>
</div>
<div class=foot><a href="https://github.com/acme-mail"><svg width=16 height=16 viewBox="0 0 16 16"><path d="M8 0a8 8 0 0 0-2.5 15.6c.4 0 .5-.2.5-.4v-1.5C3.8 14.2 3.3 12.8 3.3 12.8"/></svg></a>
  <a href="https://mastodon.example/@acme"><svg width=16 height=16 viewBox="0 0 16 16"><circle cx=8 cy=8 r=7 /></svg></a>
  <a href="/help">Help</a></div>
<p id=out></p>
<script>
const out = (t) => { document.getElementById('out').textContent = t; };
document.querySelectorAll('.email-thread').forEach((row) => {
  row.addEventListener('click', () => out('opened ' + row.querySelector('.email-sender').textContent));
  row.querySelector('.trash').addEventListener('click', (e) => { e.stopPropagation(); out('deleted ' + row.dataset.id); });
  row.querySelector('.star').addEventListener('click', (e) => { e.stopPropagation(); out('starred ' + row.dataset.id); });
});
</script>""",
)


PAGES = {
    "/inbox": INBOX,
    "/tree": TREE,
    "/task": TASK,
    "/divs": DIVS,
    "/mdbook": MDBOOK,
    "/rustdoc": RUSTDOC,
    "/modal": MODAL,
    "/cookie": COOKIE,
    "/chrome": FIXED_CHROME,
    "/veil": VEIL,
    "/labels": LABELS,
    "/shop": shop_page(3000),
    "/api-index": api_index(3000),
}
