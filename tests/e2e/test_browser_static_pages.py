"""The no-JavaScript fast path through the MCP server against a real Chromium: a page that runs
no script is read by the host and answers with the snapshot the browser gives; its refs act
in the browser (which loads the page from the response the host holds: the site sees one
request); a page that needs script, sets cookies or redirects goes to the browser, again with
one request; the session's cookies go with the host's request; the admin can turn it off;
a hostile page cannot hide script from the check. Pages Chromium builds, decodes or styles
otherwise (a declarative shadow root, an ISO-2022-JP page, menus hidden by a <style> block and by a
linked sheet) read as Chromium shows them, line for line; the host's requests cannot reach what the
network guard forbids (a listener of the test's own on a guard's port receives nothing)."""

from __future__ import annotations

import random
import re

import pytest

from browser_helpers import CHROMIUM, browser_manifest, chromium_processes, listening_ports_of, ok, ref_of
from browser_site import Site, page, start_site
from conftest import text_of, wait_for
from local_site import LocalSite, PortRecorder, QuietHandler

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

FAST = "read by the host, no script"

# A documentation page as sites build them: a top bar of div-wrapped links, a search form
# whose field has no label (the words before it name it), a sidebar of link groups, a
# breadcrumb, a long table, a closed <details>, a pager; a JSON-LD block (data, not script)
# and a mobile menu the page hides with the `hidden` attribute.
SIDEBAR = "".join(
    f'<div class="nav-group"><div class="nav-title">{group}</div><div class="nav-links">'
    + "".join(f'<div class="nav-item"><a class="nav-link" href="/docs/{group.lower()}-{i}">{group} topic {i}</a></div>' for i in range(1, 9))
    + "</div></div>"
    for group in ("Start", "Guides", "Reference")
)
ROWS = "".join(f"<tr><td>platform-{i}</td><td><code>acme install --target {i}</code></td><td>{i * 3} MB</td></tr>" for i in range(1, 31))
DOCS = page(
    "Install · Acme Docs",
    f"""
<div class="topbar"><div class="brand"><a href="/docs">Acme Docs</a></div>
  <div class="topnav"><div><a href="/docs/guide">Guide</a></div><div><a href="/docs/api">API</a></div><div><a href="/blog">Blog</a></div></div>
  <form class="search" action="/search"><div class="search-box"><span class="search-label">Search docs</span> <input name="q" autocomplete="off"></div><button class="btn">Go</button></form>
</div>
<div class="mobile-menu" hidden><a href="/docs/mobile-only">Mobile only link</a></div>
<div class="layout"><div class="sidebar">{SIDEBAR}</div>
<div class="content"><div class="crumbs"><a href="/docs">Docs</a> <span>/</span> <span>Install</span></div>
<div class="article"><h1>Install Acme</h1>
<div class="para">Acme runs on every platform below. Pick yours and run the command; it needs about a minute.</div>
<h2>Platforms</h2>
<div class="table-wrap"><table><tr><th>Platform</th><th>Command</th><th>Size</th></tr>{ROWS}</table></div>
<details><summary>Troubleshooting</summary><div>Check that the install directory is on your PATH.</div></details>
<div class="pager"><a class="prev" href="/docs/start-1">← Start topic 1</a><a class="next" href="/docs/configure">Configure Acme →</a></div>
</div></div></div>
<div class="footer"><span>© Acme</span> <a href="/privacy">Privacy</a></div>
""",
    '<meta name="description" content="How to install Acme on any platform">'
    '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "TechArticle"}</script>'
    "<style>.sidebar{width:240px}.layout{display:flex}</style>",
)
CONFIGURE = page("Configure · Acme Docs", "<h1>Configure Acme</h1><div><a href='/docs'>Back to install</a></div>")
# A single-page app's shell: the page is what its script builds.
APP = page(
    "Acme App",
    """<div id="root"></div><div><a href="/a">a</a><a href="/b">b</a><a href="/c">c</a><a href="/d">d</a><a href="/e">e</a></div>
<script>
const root = document.getElementById('root');
for (let i = 1; i <= 6; i++) {
  const b = document.createElement('div');
  b.setAttribute('role', 'button');
  b.tabIndex = 0;
  b.textContent = 'Built by script ' + i;
  root.appendChild(b);
}
</script>""",
)
LINKS = "".join(f'<div><a href="/docs/x{i}">Harmless link {i}</a></div>' for i in range(1, 7))
# Pages that look static but run script another way: each goes to the browser.
HOSTILE = {
    "/hostile-onerror": page("Img", LINKS + '<img src="/missing.png" onerror="document.title=\'ran\'">'),
    "/hostile-svg": page("Svg", LINKS + "<svg><script>document.title='ran'</script></svg>"),
    "/hostile-jsurl": page("Js", LINKS + '<a href=" JaVaScRiPt:document.title=\'ran\'">Run</a>'),
    "/hostile-module": page("Mod", LINKS, "<script type=module>document.title='ran'</script>"),
    "/hostile-element": page("El", LINKS + "<acme-widget>Loading</acme-widget>"),
    "/hostile-refresh": page("Refresh", LINKS, '<meta http-equiv="Refresh" content="5;url=/docs">'),
    "/hostile-frame": page("Frame", LINKS + '<iframe src="/docs"></iframe>'),
}


def docs_site() -> tuple[Site, list[tuple[str, str]]]:
    """The site, and (path, Cookie header) of every request it got."""
    site = start_site()
    site.pages.update({"/docs": DOCS, "/docs/configure": CONFIGURE, "/app": APP, **HOSTILE})
    site.pages["/search"] = page("Search", "<h1>Results</h1><div><a href='/docs'>Install Acme</a></div>")
    seen: list[tuple[str, str]] = []
    render = site.render

    def recording(path: str, cookies: str):
        seen.append((path, cookies))
        if path == "/old-docs":
            return 301, {"Location": "/docs"}, ""
        return render(path, cookies)

    site.render = recording  # type: ignore[method-assign]
    return site, seen


def hits(seen: list[tuple[str, str]], path: str) -> int:
    return sum(1 for p, _ in seen if p == path)


def navigations(manifest) -> list[dict]:
    return [a for a in manifest.audit_lines() if a.get("event") == "capability_used" and a.get("capability") == "browser.navigate"]


def element_lines(snapshot: str) -> list[str]:
    """The element lines of a snapshot without their refs: what two reads of a page compare."""
    return [re.sub(r"@e\d+ ", "", line).strip() for line in snapshot.splitlines() if "@e" in line]


@pytest.fixture()
def site():
    s, seen = docs_site()
    yield s, seen
    s.close()


async def test_a_static_page_is_read_by_the_host_and_reads_as_the_browser_shows_it(start_warden, write_manifest, site) -> None:
    s, seen = site
    fast = browser_manifest(write_manifest, s.origin)
    async with start_warden(fast) as w:
        quick = await ok(w, "browse_navigate", {"url": s.url("/docs")})
        quick_full = await ok(w, "browse_snapshot", {"mode": "full"})
    assert [a.get("detail") for a in navigations(fast)] == [FAST], navigations(fast)
    slow = browser_manifest(write_manifest, s.origin, browser="static_pages = false")
    async with start_warden(slow) as w:
        browser = await ok(w, "browse_navigate", {"url": s.url("/docs")})
        browser_full = await ok(w, "browse_snapshot", {"mode": "full"})
    # The second server's line: the browser loaded the page.
    assert navigations(slow)[-1].get("detail") is None, navigations(slow)
    assert quick.splitlines()[0] == browser.splitlines()[0], (quick, browser)
    assert element_lines(quick) == element_lines(browser), (quick, browser)
    assert element_lines(quick_full) == element_lines(browser_full), (quick_full, browser_full)
    # The field without a label is named by the words before it; the hidden menu is not shown;
    # the table's rows are read in full mode.
    assert '[textbox] ~"Search docs"' in quick, quick
    assert "Mobile only" not in quick_full, quick_full
    assert "platform-30 | acme install --target 30 | 90 MB" in quick_full, quick_full


async def test_its_refs_act_in_the_browser_which_loads_the_page_the_host_read(start_warden, write_manifest, site) -> None:
    s, seen = site
    manifest = browser_manifest(write_manifest, s.origin)
    async with start_warden(manifest) as w:
        snap = await ok(w, "browse_navigate", {"url": s.url("/docs")})
        field = int(re.search(r'@e(\d+) \[textbox\] ~"Search docs"', snap).group(1))
        filled = await ok(w, "browse_fill", {"ref": field, "value": "proxy settings"})
        assert "Search docs" in filled, filled
        # The browser loaded /docs from the response the host held: the site saw one request.
        assert hits(seen, "/docs") == 1, seen
        done = await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Go")})
        assert '"Search"' in done and "/search?q=proxy+settings" in done, done
        assert any(p.startswith("/search?q=proxy+settings") for p, _ in seen), seen
        # Back to the page the host read: the browser has it in its history now (restored
        # from its back/forward cache, the field still filled).
        back = await ok(w, "browse_back", {})
        assert back.startswith('Page: "Install · Acme Docs"') and 'value="proxy settings"' in back, back
        # A ref of a page read by the host, clicked at once: a link.
        snap = await ok(w, "browse_navigate", {"url": s.url("/docs")})
        assert navigations(manifest)[-1].get("detail") == FAST
        clicked = await ok(w, "browse_click", {"ref": ref_of(snap, "link", "Configure Acme →")})
        assert '"Configure · Acme Docs"' in clicked and "/docs/configure" in clicked, clicked


async def test_pages_that_need_the_browser_go_to_it_with_one_request(start_warden, write_manifest, site) -> None:
    s, seen = site
    manifest = browser_manifest(write_manifest, s.origin)
    async with start_warden(manifest) as w:
        app = await ok(w, "browse_navigate", {"url": s.url("/app")})
        assert '[button] "Built by script 6"' in app, app
        assert hits(seen, "/app") == 1, seen
        # A redirect: the browser follows it from the held answer.
        moved = await ok(w, "browse_navigate", {"url": s.url("/old-docs")})
        assert moved.startswith(f'Page: "Install · Acme Docs" {s.url("/docs")}'), moved
        assert hits(seen, "/old-docs") == 1, seen
        # A page that sets a cookie goes to the browser, whose jar keeps it; the host's next
        # request of the session carries it.
        await ok(w, "browse_navigate", {"url": s.url("/prefs")})
        assert hits(seen, "/prefs") == 1, seen
        await ok(w, "browse_navigate", {"url": s.url("/docs")})
        assert any(p == "/docs" and "theme=dark" in c for p, c in seen), seen
    details = [a.get("detail") or "" for a in navigations(manifest)]
    assert details[0] == "loaded in the browser: it runs scripts", details
    assert details[1] == "loaded in the browser: it answered 301", details
    assert details[2].startswith("loaded in the browser: "), details
    assert details[3] == FAST, details


async def test_a_hostile_page_cannot_hide_script_from_the_check(start_warden, write_manifest, site) -> None:
    s, seen = site
    manifest = browser_manifest(write_manifest, s.origin)
    async with start_warden(manifest) as w:
        for path in HOSTILE:
            await ok(w, "browse_navigate", {"url": s.url(path)})
            assert hits(seen, path) == 1, (path, seen)
    details = [a.get("detail") or "" for a in navigations(manifest)]
    assert len(details) == len(HOSTILE), details
    for path, detail in zip(HOSTILE, details):
        assert detail.startswith("loaded in the browser: "), (path, detail)


# ---------------------------------------------------------------------------- what Chromium builds
# Pages whose bytes, tree or style the host must read exactly as Chromium does, or hand over.


class RawSite(LocalSite):
    """A site answering each path with the exact bytes and headers the test gives, recording
    every request (method and path), POSTs included."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[dict[str, str], bytes]] = {}
        self.requests: list[str] = []
        site = self

        class Handler(QuietHandler):
            def _answer(self) -> None:
                site.requests.append(f"{self.command} {self.path}")
                length = int(self.headers.get("Content-Length", "0") or "0")
                if length:
                    self.rfile.read(length)
                headers, body = site.pages.get(self.path.split("?")[0], ({"Content-Type": "text/plain"}, b"no such page"))
                self.send_response(200 if self.path.split("?")[0] in site.pages else 404)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = _answer  # noqa: N815
            do_POST = _answer  # noqa: N815

        super().__init__(Handler)


HTML = {"Content-Type": "text/html; charset=utf-8"}
NAV = "".join(f'<div class="nav-item"><a href="/docs/p{i}">Page {i}</a></div>' for i in range(1, 7))
# The account page of an admin console: a delete form whose Cancel button the agent means.
DANGER = """<div class="card"><h2>Remove the project</h2>
<form method=post action=/delete><button class="btn danger">Delete everything</button></form>
<form method=get action=/kept><button class="btn">Cancel</button></form></div>"""
SHADOW = page(
    "Project settings",
    f"""<div class="topbar">{NAV}</div>
<div class="notice"><template shadowrootmode="open"><div class="banner"><button>Dismiss</button><p>Shadow words</p></div>
<script>document.title = 'ran in the shadow root'</script></template></div>
{DANGER}""",
)
# Read as ASCII, the script is in a comment; read as ISO-2022-JP (as the meta says), the
# escape sequence turns "<!--" into one character and the script runs.
CHARSET = (
    b'<!DOCTYPE html><html><head><meta charset="iso-2022-jp"><title>Charset</title></head><body>'
    + NAV.encode()
    + b"<p>\x1b$B<!--\x1b(B<script>document.title = 'ran in the browser'</script>--></p>"
    + b'<div class="content"><a href="/docs/after">After the trick</a></div></body></html>'
)
MENU = """<a class="skip" href="#main">Skip to content</a><div class="header"><div class="brand"><a href="/">Acme Console</a></div>
<div class="user-menu"><a href="/profile">Profile</a><div class="dropdown"><a href="/admin">Admin</a>
<button class="danger">Delete everything</button></div></div></div>
<div class="content" id="main"><h1>Projects</h1><span class="sr-only">Screen reader note</span>""" + NAV + "</div>"
SKIP = ".skip, .sr-only { position: absolute; left: -9999px } .skip:focus { left: 8px }"
STYLED = page("Console", MENU, f"<style>.dropdown {{ display: none }} .content h1 {{ font-size: 2em }} {SKIP}</style>")
LINKED = page("Console (linked)", MENU, '<link rel="stylesheet" href="/site.css">')
SITE_CSS = b".header { display: flex } .dropdown { display: none } .brand a { color: #222 }\n" + SKIP.encode()


def raw_site() -> RawSite:
    s = RawSite()
    s.pages.update({
        "/shadow": (HTML, SHADOW.encode()),
        "/charset": ({"Content-Type": "text/html"}, CHARSET),
        "/styled": (HTML, STYLED.encode()),
        "/linked": (HTML, LINKED.encode()),
        "/site.css": ({"Content-Type": "text/css"}, SITE_CSS),
        "/kept": (HTML, page("Kept", "<h1>Nothing was deleted</h1>").encode()),
        "/delete": (HTML, page("Deleted", "<h1>Deleted</h1>").encode()),
    })
    return s


async def test_pages_chromium_builds_otherwise_read_as_chromium_shows_them(start_warden, write_manifest) -> None:
    s = raw_site()
    try:
        paths = ["/shadow", "/charset", "/styled", "/linked"]
        fast = browser_manifest(write_manifest, s.origin)
        quick: dict[str, tuple[str, str]] = {}
        async with start_warden(fast) as w:
            for path in paths:
                shown = await ok(w, "browse_navigate", {"url": s.url(path)})
                quick[path] = (shown, await ok(w, "browse_snapshot", {"mode": "full"}))
            # The agent clicks the Cancel it was shown on the page with a shadow root: the
            # delete form is never submitted.
            await ok(w, "browse_navigate", {"url": s.url("/shadow")})
            snap = await ok(w, "browse_snapshot", {"mode": "full"})
            done = await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Cancel")})
            assert 'Page: "Kept"' in done, done
        assert not any(r.startswith("POST /delete") for r in s.requests), s.requests
        details = [a.get("detail") or "" for a in navigations(fast)]
        assert details[0].startswith("loaded in the browser: it has a declarative shadow root"), details
        assert details[1].startswith("loaded in the browser: its encoding"), details
        assert details[2] == FAST and details[3] == FAST, details
        # The linked sheet was read by the host, as the page's request was.
        assert "GET /site.css" in s.requests, s.requests
        slow = browser_manifest(write_manifest, s.origin, browser="static_pages = false")
        async with start_warden(slow) as w:
            for path in paths:
                shown = await ok(w, "browse_navigate", {"url": s.url(path)})
                full = await ok(w, "browse_snapshot", {"mode": "full"})
                assert shown.splitlines()[0] == quick[path][0].splitlines()[0], (path, shown, quick[path][0])
                assert element_lines(shown) == element_lines(quick[path][0]), (path, shown, quick[path][0])
                assert element_lines(full) == element_lines(quick[path][1]), (path, full, quick[path][1])
        for path in ("/styled", "/linked"):
            assert "Admin" not in quick[path][1] and "Delete everything" not in quick[path][1], quick[path][1]
        assert "ran in the browser" in quick["/charset"][0].splitlines()[0], quick["/charset"][0]
    finally:
        s.close()


# ---------------------------------------------------------------------------- the guard's rules


async def test_the_fast_path_cannot_reach_what_the_guard_forbids(start_warden, write_manifest) -> None:
    s = raw_site()
    recorders: list[PortRecorder] = []
    try:
        # A grant of every port of another loopback address: each of Warden's own listening
        # ports there is a listener of the test's own, which a guard port stands for.
        m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{s.origin}", "http://127.0.0.2:*"] }}
""")
        async with start_warden(m) as w:
            await ok(w, "browse_navigate", {"url": s.url("/styled")})
            # The guards listen in the browser's network namespace when Warden runs as root.
            ports = sorted(listening_ports_of([w.pid], [w.pid] + [p.pid for p in chromium_processes(w.pid)]))
            assert ports, "the network guards listen on loopback"
            for port in ports:
                recorders.append(PortRecorder("127.0.0.2", port))
                await w.call("browse_navigate", {"url": f"http://127.0.0.2:{port}/probe"}, timeout=60)
            for port, r in zip(ports, recorders):
                assert r.received == [], (port, r.received)
            def refusals() -> list[dict]:
                return [
                    a for a in m.audit_lines()
                    if a.get("event") == "capability_denied" and "127.0.0.2" in (a.get("target") or "")
                    and "read by the host" in (a.get("reason") or "")
                ]

            # The guard writes its aggregated lines within ~0.5 s.
            await wait_for(lambda: len(refusals()) >= len(ports), timeout=5)
            assert len(refusals()) >= len(ports), (ports, m.audit_lines())
    finally:
        for r in recorders:
            r.close()
        s.close()


# A construct html5ever builds otherwise than Chromium and the host does not model: an
# element that leaves SVG content inside a MathML annotation that holds HTML. html5ever closes
# the formula there (the <div> goes to the body); Chromium keeps it in the annotation. The
# elements are the same, in the same order, but not with the same parents: the host's refs
# must not be taken by the browser's document.
FORMULA = page(
    "Billing · Acme Console",
    f"""<div class="topbar">{NAV}</div>
<div class="formula"><math><annotation-xml encoding="text/html"><svg><div class="note">Price per seat</div></svg></annotation-xml></math></div>
{DANGER}""",
)


async def test_a_ref_the_browser_document_does_not_prove_is_refused(start_warden, write_manifest) -> None:
    s = raw_site()
    s.pages["/billing"] = (HTML, FORMULA.encode())
    try:
        m = browser_manifest(write_manifest, s.origin)
        async with start_warden(m) as w:
            snap = await ok(w, "browse_navigate", {"url": s.url("/billing")})
            assert navigations(m)[-1].get("detail") == FAST, navigations(m)
            cancel = ref_of(snap, "button", "Cancel")
            s.requests.clear()
            refused = await w.call("browse_click", {"ref": cancel}, timeout=60)
            text = text_of(refused)
            assert refused.is_error, text
            assert "take a new snapshot" in text, text
            # Nothing was clicked: neither form reached the site (the page itself was loaded
            # from the response the host held).
            assert not any(r.startswith("POST /delete") or r.startswith("GET /kept") for r in s.requests), s.requests
            # A new snapshot is the browser's, and its refs act.
            fresh = await ok(w, "browse_snapshot", {})
            done = await ok(w, "browse_click", {"ref": ref_of(fresh, "button", "Cancel")})
            assert 'Page: "Kept"' in done, done
        assert not any(r.startswith("POST /delete") for r in s.requests), s.requests
        clicks = [a for a in m.audit_lines() if a.get("event") == "tool_call" and a.get("tool") == "browse_click"]
        assert clicks and clicks[0].get("outcome") != "ok", clicks
    finally:
        s.close()


# ---------------------------------------------------------------------------- differential
# Generated pages through both paths: each the host reads must read as Chromium shows it.


def generated_page(seed: int) -> str:
    """A page built at random (seeded) from what sites are made of: navigation in divs and
    lists, a <style> block hiding and showing things by class, id and attribute, inline
    styles, hidden menus, closed details, tables, a form, display: contents and flex boxes."""
    rng = random.Random(seed)
    classes = ["menu", "panel", "item", "card", "note", "extra", "side", "tip"]
    rules = []
    for c in rng.sample(classes, 4):
        decl = rng.choice([
            "display: none", "display: block", "visibility: hidden", "display: flex",
            "display: inline-block", "opacity: 0", "display: contents", "visibility: visible",
            "display: none !important", "cursor: pointer", "float: left", "display: table-cell",
        ])
        sel = rng.choice([f".{c}", f"div.{c}", f".wrap > .{c}", f".wrap .{c}", f"[data-k={c}]", f".{c}:first-child",
                          f".{c} + .{c}", f":is(.{c}, .zz)", f".{c}:not(.open)", f"ul .{c}"])
        rules.append(f"{sel} {{ {decl} }}")
    rules.append(".open { display: block }")
    blocks = []
    for i in range(rng.randint(6, 12)):
        c = rng.choice(classes)
        extra = rng.choice(["", " open", " zz"])
        style = rng.choice(["", ' style="display:none"', ' style="visibility:hidden"', ' style="display:block"', ""])
        hidden = rng.choice(["", "", " hidden"])
        inner = rng.choice([
            f'<a href="/g/{i}">Link {i}</a>',
            f'<button type=button>Button {i}</button>',
            f'<span>Words {i}</span> <a href="/g/{i}b">More {i}</a>',
            f'<ul><li class="{c}"><a href="/l/{i}">Item {i}</a></li><li>Plain {i}</li></ul>',
            f'<details><summary>Open {i}</summary><a href="/d/{i}">Inside {i}</a></details>',
            f'<table><tr><td class="{c}">Cell {i}</td><td><a href="/t/{i}">Row {i}</a></td></tr></table>',
            f'<label>Field {i} <input name=f{i}></label>',
            f'<div class="{c}"><div><a href="/n/{i}">Nested {i}</a></div></div>',
        ])
        blocks.append(f'<div class="{c}{extra}" data-k="{c}"{style}{hidden}>{inner}</div>')
    links = "".join(f'<div class="nav-item"><a href="/nav/{i}">Nav {i}</a></div>' for i in range(5))
    body = f'<div class="top">{links}</div><div class="wrap">{"".join(blocks)}</div>'
    return page(f"Generated {seed}", body, "<style>" + "\n".join(rules) + "</style>")


async def test_generated_pages_read_by_the_host_read_as_chromium_shows_them(start_warden, write_manifest) -> None:
    s = raw_site()
    seeds = list(range(1, 13))
    for seed in seeds:
        s.pages[f"/gen/{seed}"] = (HTML, generated_page(seed).encode())
    try:
        fast = browser_manifest(write_manifest, s.origin)
        quick = {}
        async with start_warden(fast) as w:
            for seed in seeds:
                await ok(w, "browse_navigate", {"url": s.url(f"/gen/{seed}")})
                quick[seed] = await ok(w, "browse_snapshot", {"mode": "full"})
        details = [a.get("detail") or "" for a in navigations(fast)]
        read = [seed for seed, d in zip(seeds, details) if d == FAST]
        assert len(read) >= len(seeds) // 2, details
        slow = browser_manifest(write_manifest, s.origin, browser="static_pages = false")
        async with start_warden(slow) as w:
            for seed in read:
                await ok(w, "browse_navigate", {"url": s.url(f"/gen/{seed}")})
                full = await ok(w, "browse_snapshot", {"mode": "full"})
                assert element_lines(full) == element_lines(quick[seed]), (seed, generated_page(seed), full, quick[seed])
    finally:
        s.close()
