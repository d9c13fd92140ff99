"""The no-JavaScript fast path through the MCP server against a real Chromium: a page that runs
no script is read by the host and answers with the snapshot the browser gives; its refs act
in the browser (which loads the page from the response the host holds: the site sees one
request); a page that needs script, sets cookies or redirects goes to the browser, again with
one request; the session's cookies go with the host's request; the admin can turn it off;
a hostile page cannot hide script from the check."""

from __future__ import annotations

import re

import pytest

from browser_helpers import browser_manifest, ok, ref_of
from browser_site import Site, page, start_site

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
