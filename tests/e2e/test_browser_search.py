"""`browse_search` through the MCP server: a local search backend that speaks SearXNG's JSON
wire format (`GET /search?q=...&format=json&pageno=N`), results opened with
`browse_navigate {"url": "rN"}` in a real Chromium, and the rules around it: the backend's
origin must be granted like any page's, a result's origin too, hostile answers are cut down
to http(s) results, and the audit names the backend and never the query."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator

import pytest

from browser_helpers import CHROMIUM, err, ok
from browser_site import Site, start_site
from local_site import LocalSite, QuietHandler

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


class Backend(LocalSite):
    """A SearXNG stand-in: answers what `results` holds and records every query it got."""

    def __init__(self) -> None:
        self.queries: list[dict[str, list[str]]] = []
        self.results: list[dict] = []
        self.raw: bytes | None = None
        # The Brave Search API stand-in at /brave: the key it wants, the keys it got.
        self.key = ""
        self.tokens: list[str | None] = []
        backend = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                path, _, query = self.path.partition("?")
                args = urllib.parse.parse_qs(query)
                backend.queries.append(args)
                if path == "/brave":
                    self.brave()
                    return
                if path != "/search" or args.get("format") != ["json"]:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = backend.raw or json.dumps({
                    "query": args.get("q", [""])[0],
                    "number_of_results": len(backend.results),
                    "results": backend.results,
                    "answers": [], "suggestions": [], "unresponsive_engines": [],
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def brave(self) -> None:
                token = self.headers.get("X-Subscription-Token")
                backend.tokens.append(token)
                if token != backend.key:
                    self.send_response(401)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                web = [{"url": r["url"], "title": f"<strong>{r['title']}</strong>", "description": r.get("content", "")} for r in backend.results]
                # A backend that echoes the request: the key in a result's URL and its text.
                web.append({"url": f"https://echo.example/?token={token}", "title": "echo", "description": ""})
                web.append({"url": backend.url("/echo"), "title": "Echo", "description": f"you sent {token}"})
                body = json.dumps({"type": "search", "query": {"original": args_q(self.path)}, "web": {"type": "search", "results": web}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(Handler)


def args_q(path: str) -> str:
    return urllib.parse.parse_qs(path.partition("?")[2]).get("q", [""])[0]


@pytest.fixture()
def web() -> Iterator[tuple[Backend, Site, Site]]:
    backend, site, other = Backend(), start_site(), start_site()
    backend.results = [
        {"url": site.url("/news"), "title": "Daily news", "content": "All the news, every day.", "engine": "duckduckgo"},
        {"url": site.url("/login"), "title": "Sign in \u2014 Shop", "content": "Members get saved carts.", "engine": "brave"},
        {"url": other.url("/news"), "title": "Elsewhere", "content": "A site this plugin may not open.", "engine": "bing"},
    ]
    yield backend, site, other
    for s in (backend, site, other):
        s.close()


def manifest(write_manifest, origins: list[str], search: str | None, section: str = "") -> object:
    quoted = ", ".join(f'"{o}"' for o in origins)
    section = section or (f"[search]\nendpoint = \"{search}\"\n\n" if search else "")
    return write_manifest(f"""
{section}[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = [{quoted}] }}
""")


async def test_search_then_open_a_result(start_warden, write_manifest, web) -> None:
    backend, site, other = web
    m = manifest(write_manifest, [backend.origin, site.origin], backend.url("/search"))
    async with start_warden(m) as w:
        query = 'cheap "red" shoes & socks'
        found = await ok(w, "browse_search", {"query": query})
        assert found.splitlines()[0] == 'Search "cheap \\"red\\" shoes & socks", page 1: 3 result(s)', found
        assert f'[r1] "Daily news" {site.url("/news")}' in found and "  All the news, every day." in found, found
        assert f'[r2] "Sign in \u2014 Shop" {site.url("/login")}' in found, found
        # The backend got the query as typed, and the JSON format.
        assert backend.queries[-1] == {"q": [query], "format": ["json"], "pageno": ["1"]}, backend.queries

        page = await ok(w, "browse_navigate", {"url": "r2"})
        assert page.startswith('Page: "Sign in"'), page
        # A result is a URL like any other: its origin must be granted.
        refused = await err(w, "browse_navigate", {"url": "r3"})
        assert "grants.browser.origins" in refused and other.origin in refused, refused
        missing = await err(w, "browse_navigate", {"url": "r9"})
        assert "no search result r9: the last browse_search gave 3 result(s)" in missing, missing

        await ok(w, "browse_search", {"query": "shoes", "page": 2})
        assert backend.queries[-1]["pageno"] == ["2"], backend.queries
        refused = await err(w, "browse_search", {"query": "   "})
        assert "1-500 characters" in refused, refused
    used = [a for a in m.audit_lines() if a.get("capability") == "browser.search"]
    assert [a["event"] for a in used] == ["capability_used"] * 2, used
    assert used[0]["target"] == backend.url("/search") and used[0]["detail"] == "page 1, 3 result(s)", used
    assert not any("shoes" in json.dumps(a) for a in m.audit_lines()), "the query reached the audit log"


async def test_a_backend_whose_origin_is_not_granted_is_never_asked(start_warden, write_manifest, web) -> None:
    backend, site, _ = web
    m = manifest(write_manifest, [site.origin], backend.url("/search"))
    async with start_warden(m) as w:
        refused = await err(w, "browse_search", {"query": "shoes"})
        assert refused.startswith("access denied") and "grants.browser.origins" in refused, refused
        assert backend.origin in refused, refused
    assert backend.queries == []
    denied = [a for a in m.audit_lines() if a["event"] == "capability_denied"]
    assert denied, m.audit_lines()


async def test_without_a_backend_search_says_what_the_admin_adds(start_warden, write_manifest, web) -> None:
    _, site, _ = web
    async with start_warden(manifest(write_manifest, [site.origin], None)) as w:
        refused = await err(w, "browse_search", {"query": "shoes"})
        assert "no web search is configured" in refused and "[search] endpoint" in refused, refused


async def test_a_hostile_backend_gives_only_http_results_and_nothing_else(start_warden, write_manifest, web) -> None:
    backend, site, _ = web
    m = manifest(write_manifest, [backend.origin, site.origin], backend.url("/search"))
    backend.results = [
        {"url": "javascript:alert(document.cookie)", "title": "Click me", "content": ""},
        {"url": "data:text/html,<script>alert(1)</script>", "title": "Data", "content": ""},
        {"url": "file:///etc/passwd", "title": "File", "content": ""},
        {"url": site.url("/news"), "title": "x" * 5000, "content": "y\n" * 5000},
    ]
    async with start_warden(m) as w:
        found = await ok(w, "browse_search", {"query": "anything"})
        assert "javascript:" not in found and "data:" not in found and "file:" not in found, found
        assert found.splitlines()[0].endswith("1 result(s)"), found
        assert len(found) < 1500, len(found)
        backend.raw = b"<html><body>not json</body></html>"
        broken = await err(w, "browse_search", {"query": "anything"})
        assert "not a SearXNG JSON result list" in broken, broken
        backend.raw = b"[" * 3_000_000
        huge = await err(w, "browse_search", {"query": "anything"})
        assert "larger than 2 MiB" in huge, huge
        # The server is still up and the plugin answers.
        backend.raw = None
        assert "1 result(s)" in await ok(w, "browse_search", {"query": "anything"})


async def test_a_brave_key_stays_in_the_host(start_warden, write_manifest, web) -> None:
    backend, site, _ = web
    backend.key = "brave-k3y-0123456789abcdef"
    section = f"""[search]
provider = "brave"
endpoint = "{backend.url('/brave')}"
key_env = "WARDEN_TEST_SEARCH_KEY"
max_results = 5

"""
    m = manifest(write_manifest, [backend.origin, site.origin], None, section)
    async with start_warden(m, env={"WARDEN_TEST_SEARCH_KEY": backend.key}) as w:
        found = await ok(w, "browse_search", {"query": "red shoes", "page": 2})
        assert f'[r1] "Daily news" {site.url("/news")}' in found and "<strong>" not in found, found
        # The echoed key is masked in text, and the result whose URL carried it is gone.
        assert "you sent [key]" in found and "echo.example" not in found, found
        assert backend.key not in found, found
        assert backend.queries[-1] == {"q": ["red shoes"], "count": ["5"], "offset": ["1"]}, backend.queries
        assert backend.tokens[-1] == backend.key
        stderr = w.stderr()
    async with start_warden(m, env={"WARDEN_TEST_SEARCH_KEY": "a-wrong-key-0000"}) as w:
        refused = await err(w, "browse_search", {"query": "shoes"})
        assert refused.startswith("access denied") and "refused the key (401)" in refused, refused
    async with start_warden(m) as w:
        refused = await err(w, "browse_search", {"query": "shoes"})
        assert "WARDEN_TEST_SEARCH_KEY" in refused and "not set" in refused, refused
    assert backend.key not in m.audit.read_text() and backend.key not in stderr
