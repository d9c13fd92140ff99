"""The no-JavaScript fast path: `browse_navigate` on static pages read by the host itself,
against the same Warden reading them in a Chromium tab (`static_pages = false`), against
Playwright MCP's `browser_navigate`, side by side in one run.

    .venv/bin/python tests/bench/static_bench.py [--runs 15] [--warden target/release/warden]
        [--warden-only] [--pages docs,api,form,spa]

Needs a warden binary (cargo build --release -p warden), /usr/bin/chromium, and, unless
`--warden-only`, the pinned Playwright MCP in tests/bench/node_modules (see browser_bench.py).

The pages are served by this script on 127.0.0.1, generated with a fixed seed, shaped like
documentation sites and without a script, except the control:
  docs  an article: top bar, a fixed sidebar of ~150 links in nested divs and lists,
        breadcrumbs, headings, code blocks, a 40-row options table, edit/prev/next, footer
  api   an index of 2,000 links in a multi-column list, under a filter form whose input has
        no label but the text "Filter" beside it
  form  a sign-up form: labels, a select, checkboxes, a submit button
  spa   the control: an app shell whose script fills a div with 10 buttons, so both Warden
        configurations must load it in Chromium (the fast path falls back)

Three servers: Warden with the default manifest (fast path on), the same binary with
`static_pages = false`, and Playwright MCP. Each is warmed (a page with a script, so that
Chromium is launched, then every page once); then each page is navigated `--runs` times per
server, the servers alternating call by call. Per page it prints the median and p95 (nearest
rank) of the call as the client sees it, the ratios, and the answer's size in tokens
(characters / 4; Warden answers a long page's first snapshot page only; Playwright MCP answers
with a link to a snapshot file, whose content is counted with the answer). The "route" is who
read the document: "chromium" when the browser loaded it (each load asks for the page's
stylesheet again: it is served no-cache, with an ETag, as many sites do), "host" when the
document was fetched but not its stylesheet (the host reads the HTML alone; its request looks
like the browser's, headers and all).

Then: the fidelity check (for each page, the fast server's element lines against the Chromium
server's, every snapshot page, `[role] "name"` pairs compared as multisets with the `@eN` refs
stripped); the memory of each server's process tree (the server, found by its manifest or
output directory in argv, and its descendants); and a cold first call: a fresh Warden
process whose first call is `browse_navigate` to the docs page, fast path against off, 3 runs
each, medians.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import http.server
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_bench import node_bin, text_of, timed, tokens  # noqa: E402

CHROMIUM = os.environ.get("WARDEN_CHROMIUM", "/usr/bin/chromium")
PAGES = ["docs", "api", "form", "spa"]
STATIC = {"docs", "api", "form"}
COLD_RUNS = 3
# Environment variable every process of a server inherits (unless the server clears its
# children's environment), to find its process tree.
TAG_VAR = "WARDEN_STATIC_BENCH_TAG"

# ---------------------------------------------------------------------------------------
# The pages

WORDS = (
    "request response manifest plugin grant origin session cache token header body stream "
    "buffer handler route server client config module crate build release deploy index query "
    "filter schema field value record event queue worker thread task process signal timeout "
    "retry policy limit quota audit log trace metric span context scope secret key proxy "
    "socket port address host domain path file folder archive image layer registry mirror "
    "snapshot page element frame cookie storage profile replica lease backend listener"
).split()
KINDS = ["struct", "enum", "trait", "fn", "macro", "type", "const", "mod"]

CSS = """body{margin:0;font:15px/1.6 system-ui,sans-serif;color:#1c1e21}
a{color:#2e6fd8;text-decoration:none}code,pre{font-family:ui-monospace,monospace}
.topbar{position:sticky;top:0;height:56px;background:#fff;border-bottom:1px solid #e3e3e3;z-index:20}
.topbar .wrap{display:flex;align-items:center;gap:24px;padding:0 20px;height:56px}
.top-nav ul{display:flex;gap:16px;list-style:none;margin:0;padding:0}
.skip{position:absolute;left:-9999px}.skip:focus{left:8px}
footer{background:#1c1e21;color:#ccc;padding:32px 20px}footer a{color:#eee}
.cols-footer{display:flex;gap:64px}.cols-footer ul{list-style:none;padding:0}
"""

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect width="24" height="24" fill="#2e6fd8"/></svg>'

APP_JS = """(function () {
  var app = document.getElementById('app');
  app.innerHTML = '';
  var h = document.createElement('h1'); h.textContent = 'Workspace'; app.appendChild(h);
  var bar = document.createElement('div'); bar.className = 'toolbar'; app.appendChild(bar);
  var out = document.createElement('p'); out.id = 'status'; out.textContent = 'Ready.';
  ['New file', 'Open', 'Save', 'Share', 'Rename', 'Duplicate', 'Archive', 'Delete', 'Settings', 'Help']
    .forEach(function (name) {
      var b = document.createElement('button'); b.textContent = name;
      b.onclick = function () { out.textContent = name + ' clicked'; };
      bar.appendChild(b);
    });
  app.appendChild(out);
})();
"""


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 18))]
    if rng.random() < 0.3:
        i = rng.randrange(len(words))
        words[i] = f"<code>{words[i]}_{rng.choice(WORDS)}</code>"
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random, links: bool = True) -> str:
    parts = [sentence(rng) for _ in range(rng.randint(3, 5))]
    if links and rng.random() < 0.6:
        w = rng.choice(WORDS)
        parts.insert(rng.randint(1, len(parts)), f'See <a href="/docs/reference/{w}">the {w} reference</a>.')
    return "<p>" + " ".join(parts) + "</p>"


def title(rng: random.Random, n: int = 2) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).title()


def document(title_text: str, body: str, head: str = "") -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<title>{title_text}</title><link rel=stylesheet href="site.css">{head}</head><body>{body}</body></html>'
    )


def topbar() -> str:
    items = "".join(
        f'<li><a href="/{p.lower()}/">{p}</a></li>' for p in ["Guide", "Reference", "API", "Blog", "Changelog", "Community"]
    )
    return f"""<a class=skip href="#content">Skip to content</a>
<header class=topbar><div class=wrap>
<a class=logo href="/"><img src="logo.svg" alt="Acme Docs" width=24 height=24></a>
<nav class=top-nav aria-label=Main><ul>{items}</ul></nav>
<form class=site-search action="/search" role=search><input type=search name=q placeholder="Search docs" aria-label="Search docs">
<button type=submit>Search</button></form>
<a class=gh href="https://github.com/acme/acme">GitHub</a></div></header>"""


def footer(rng: random.Random) -> str:
    cols = []
    for head in ["Docs", "Community", "More"]:
        links = "".join(f'<li><a href="/{head.lower()}/{i}">{title(rng)}</a></li>' for i in range(5))
        cols.append(f"<div><div class=ft-title>{head}</div><ul>{links}</ul></div>")
    older = "".join(f'<li><a href="/v{v}/docs/">Version {v}</a></li>' for v in ["3.1", "3.0", "2.9", "2.8"])
    return f"""<footer><div class=cols-footer>{"".join(cols)}</div>
<details><summary>Older versions</summary><ul>{older}</ul></details>
<p>Copyright © 2026 Acme, Inc. Built with a static site generator.</p></footer>"""


def docs_page(seed: int = 1) -> str:
    rng = random.Random(seed)
    sections = []
    n = 0
    for s in range(12):
        items = []
        for _ in range(rng.randint(5, 7)):
            n += 1
            name = title(rng)
            sub = ""
            if rng.random() < 0.3:
                subs = []
                for _ in range(rng.randint(2, 3)):
                    n += 1
                    subs.append(f'<li><a href="/docs/{s}/{n}">{title(rng)}</a></li>')
                sub = f"<ul class=sb-sub>{''.join(subs)}</ul>"
            cls = ' class="active" aria-current="page"' if (s, len(items)) == (3, 2) else ""
            items.append(f'<li class=sb-item><div class=sb-row><a href="/docs/{s}/{n}"{cls}>{name}</a></div>{sub}</li>')
        sections.append(
            f'<div class=sb-section><div class=sb-title><span>{title(rng)}</span></div><ul class=sb-list>{"".join(items)}</ul></div>'
        )
    # Pad to ~150 sidebar links.
    while n < 150:
        n += 1
        sections[-1] = sections[-1].replace(
            "</ul></div>", f'<li class=sb-item><div class=sb-row><a href="/docs/11/{n}">{title(rng)}</a></div></li></ul></div>', 1
        )
    sidebar = f"""<aside class=sidebar><nav aria-label="Docs navigation"><div class=sb-version><span>v3.2</span></div>
<div class=sb-scroll>{"".join(sections)}</div></nav></aside>"""

    article: list[str] = [
        "<h1>Configuring sessions</h1>",
        f"<p class=lead>{sentence(rng)} {sentence(rng)}</p>",
    ]
    toc = []
    code_left = 3
    for i in range(8):
        h = title(rng, 3)
        slug = f"s{i}-" + h.lower().replace(" ", "-")
        toc.append(f'<li><a href="#{slug}">{h}</a></li>')
        article.append(f'<h2 id="{slug}">{h} <a class=anchor href="#{slug}" aria-hidden="true">#</a></h2>')
        article.extend(paragraph(rng) for _ in range(rng.randint(2, 3)))
        if code_left and i % 2 == 0:
            code_left -= 1
            lines = [f"[{rng.choice(WORDS)}]"] + [
                f'{rng.choice(WORDS)}_{rng.choice(WORDS)} = "{rng.choice(WORDS)}"' for _ in range(rng.randint(4, 9))
            ]
            article.append(f'<div class=code-block><pre><code class="language-toml">{chr(10).join(lines)}</code></pre></div>')
        if i % 3 == 1:
            h3 = title(rng, 2)
            article.append(f"<h3>{h3}</h3>{paragraph(rng)}")
    rows = []
    for r in range(40):
        opt = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"
        typ = rng.choice(["string", "integer", "boolean", "duration", "list of strings"])
        default = rng.choice(["none", "true", "false", "30s", "100", '""'])
        rows.append(
            f'<tr id="opt-{r}"><td><a href="#opt-{r}"><code>{opt}</code></a></td><td>{typ}</td>'
            f"<td><code>{default}</code></td><td>{sentence(rng)}</td></tr>"
        )
    toc.append('<li><a href="#options">Options</a></li>')
    article.append(
        '<h2 id=options>Options <a class=anchor href="#options" aria-hidden="true">#</a></h2>'
        f"{paragraph(rng, links=False)}<div class=table-wrap><table><thead><tr><th>Option</th><th>Type</th>"
        f"<th>Default</th><th>Description</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
    main = f"""<main id=content class=main>
<nav class=breadcrumbs aria-label=Breadcrumb><ol><li><a href="/">Home</a></li><li><a href="/docs/">Docs</a></li>
<li><a href="/docs/guides/">Guides</a></li><li aria-current=page>Configuring sessions</li></ol></nav>
<article class=markdown>{"".join(article)}</article>
<div class=page-meta><a href="https://github.com/acme/acme/edit/main/docs/guides/sessions.md">Edit this page</a>
<span class=updated>Last updated on 3 November 2026 by Jo Doe</span></div>
<nav class=pager aria-label="Docs pages"><a class=prev href="/docs/guides/grants"><div class=sub>Previous</div><div>Managing grants</div></a>
<a class=next href="/docs/guides/audit"><div class=sub>Next</div><div>Audit logs</div></a></nav>
</main>"""
    aside = f'<aside class=toc><div class=toc-title>On this page</div><ul>{"".join(toc)}</ul></aside>'
    style = """<style>.layout{display:flex}.sidebar{position:fixed;top:56px;bottom:0;left:0;width:280px;overflow-y:auto;
border-right:1px solid #e3e3e3;background:#fafafa}.sb-list,.sb-sub{list-style:none;margin:0;padding-left:12px}
.sb-title{font-weight:600;margin-top:12px}.main{margin-left:300px;max-width:760px;padding:24px;flex:1}
.toc{position:sticky;top:72px;width:220px;align-self:flex-start;font-size:13px}
.breadcrumbs ol{display:flex;gap:8px;list-style:none;padding:0}pre{background:#f6f8fa;padding:12px;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px}.anchor{opacity:0}
.pager{display:flex;justify-content:space-between;margin:32px 0}</style>"""
    body = f'{topbar()}<div class=layout>{sidebar}{main}{aside}</div>{footer(rng)}'
    return document("Configuring sessions | Acme Docs", body, style)


def api_page(entries: int = 2000, seed: int = 2) -> str:
    rng = random.Random(seed)
    syll = ["ab", "ar", "be", "co", "da", "el", "fi", "ga", "ha", "in", "jo", "ka", "lo", "ma", "ne", "or",
            "pa", "qu", "ra", "se", "ti", "un", "ve", "wa", "xe", "yo", "ze"]
    items = []
    for _ in range(entries):
        stem = "".join(rng.choice(syll) for _ in range(rng.randint(2, 4)))
        kind = rng.choice(KINDS)
        name = stem.capitalize() + rng.choice(["", "Builder", "Error", "Config", "Handle", "Ref", "Iter"])
        if kind in ("fn", "mod", "const", "macro"):
            name = stem + rng.choice(["", "_into", "_with", "_mut", "_all"])
            if kind == "const":
                name = name.upper()
            elif kind == "macro":
                name += "!"
        module = rng.choice(WORDS)
        items.append((name.lower(), name, kind, module))
    items.sort()
    groups: dict[str, list[str]] = collections.OrderedDict()
    for _, name, kind, module in items:
        groups.setdefault(name[0].upper(), []).append(
            f'<div class=item><a href="/api/{module}/{kind}.{name.rstrip("!")}.html">{name}</a>'
            f" <span class=kind>{kind}</span> <span class=mod>{module}</span></div>"
        )
    letters = "".join(f'<a href="#letter-{c}">{c}</a>' for c in groups)
    body_groups = "".join(
        f'<div class=group><h2 id="letter-{c}">{c}</h2><div class=cols>{"".join(g)}</div></div>' for c, g in groups.items()
    )
    style = """<style>.main{max-width:1200px;margin:0 auto;padding:24px}.cols{column-count:4;column-gap:24px}
.item{break-inside:avoid}.kind,.mod{color:#777;font-size:12px}.letters{display:flex;gap:6px;flex-wrap:wrap}
.filter{display:flex;gap:8px;align-items:center;margin:16px 0}</style>"""
    body = f"""{topbar()}<div class=main id=content>
<nav class=breadcrumbs aria-label=Breadcrumb><a href="/">Home</a> / <a href="/api/">API</a> / <span>All items</span></nav>
<h1>All items</h1><p>{sentence(rng)}</p>
<form class=filter action="/api/search" method=get><div class=filter-row><span class=filter-label>Filter</span>
<input type=text name=q autocomplete=off></div><button type=submit>Go</button></form>
<div class=letters>{letters}</div>
<div class=index>{body_groups}</div></div>{footer(rng)}"""
    return document("All items — acme 3.2 API", body, style)


def form_page(seed: int = 3) -> str:
    rng = random.Random(seed)
    countries = ["Argentina", "Australia", "Brazil", "Canada", "Denmark", "Egypt", "France", "Germany", "India",
                 "Japan", "Kenya", "Mexico", "Norway", "Portugal", "Spain", "Sweden", "United Kingdom", "United States"]
    options = '<option value="">Choose a country</option>' + "".join(f"<option>{c}</option>" for c in countries)
    style = """<style>.card{max-width:480px;margin:40px auto;padding:24px;border:1px solid #ddd;border-radius:8px}
.field{display:flex;flex-direction:column;margin-bottom:12px}fieldset{border:0;padding:0}</style>"""
    body = f"""{topbar()}<main id=content><div class=card>
<h1>Create your account</h1><p>{sentence(rng)}</p>
<form method=post action="/signup">
<input type=hidden name=csrf value="{rng.getrandbits(64):016x}">
<div class=field><label for=name>Full name</label><input id=name name=name autocomplete=name required></div>
<div class=field><label for=email>Work email</label><input id=email name=email type=email required></div>
<div class=field><label for=password>Password</label><input id=password name=password type=password minlength=12 required>
<small>At least 12 characters.</small></div>
<div class=field><label for=company>Company <span class=optional>(optional)</span></label><input id=company name=company></div>
<div class=field><label for=country>Country</label><select id=country name=country required>{options}</select></div>
<div class=field><label for=size>Team size</label><select id=size name=size>
<option>Just me</option><option>2-10</option><option>11-50</option><option>51-200</option><option>More than 200</option></select></div>
<fieldset><legend>Stay in touch</legend>
<label><input type=checkbox name=news checked> Product news, once a month</label><br>
<label><input type=checkbox name=tips> Tips for getting started</label><br>
<label><input type=checkbox name=events> Invitations to events near me</label></fieldset>
<p><label><input type=checkbox name=terms required> I agree to the <a href="/terms">Terms of Service</a>
and the <a href="/privacy">Privacy Policy</a></label></p>
<button type=submit>Create account</button>
</form>
<p>Already have an account? <a href="/signin">Sign in</a></p></div></main>{footer(rng)}"""
    return document("Sign up | Acme", body, style)


def spa_page() -> str:
    return document(
        "Acme Workspace",
        '<div id=app><noscript>You need to enable JavaScript to run this app.</noscript></div>'
        '<script src="app.js" defer></script>',
    )


WARM = document("Warm", "<h1>Warm</h1><p id=o></p><script>document.getElementById('o').textContent = 'ready'</script>")


@dataclass
class Request:
    tag: str
    path: str


@dataclass
class StaticSite:
    """The pages under /TAG/NAME for each server's TAG, so that every request says whose it is."""

    server: http.server.ThreadingHTTPServer
    files: dict[str, tuple[str, str, bytes]] = field(default_factory=dict)  # name -> (type, cache, body)
    requests: list[Request] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, tag: str, name: str) -> str:
        return f"{self.origin}/{tag}/{name}"

    def mark(self) -> int:
        return len(self.requests)

    def route_since(self, mark: int, tag: str, name: str) -> str:
        """Who read TAG's document NAME since MARK: "chromium" if the browser loaded a page (it
        asked for the stylesheet), else "host" if the document was fetched, else "none"."""
        seen = {r.path for r in self.requests[mark:] if r.tag == tag}
        return "chromium" if "site.css" in seen else "host" if name in seen else "none"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_static_site(pages: dict[str, str]) -> StaticSite:
    holder: dict[str, StaticSite] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            site = holder["site"]
            path = self.path.split("?", 1)[0]
            parts = path.lstrip("/").split("/", 1)
            tag, name = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
            site.requests.append(Request(tag, name))
            etag = None
            if name in site.files:
                ctype, cache, data = site.files[name]
                status = 200
                if name == "site.css":
                    etag = f'"{len(data):x}"'
                    if self.headers.get("If-None-Match") == etag:
                        data, status = b"", 304
            elif path == "/favicon.ico":
                ctype, cache, data, status = "image/x-icon", "max-age=86400", b"", 204
            else:
                ctype, cache, data, status = "text/html; charset=utf-8", "no-cache", b"<h1>Not found</h1>", 404
            try:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Cache-Control", cache)
                if etag:
                    self.send_header("ETag", etag)
                if status != 304:
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the browser went on to another page before this one arrived

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    site = StaticSite(server)
    html = "text/html; charset=utf-8"
    site.files = {name: (html, "no-cache", body.encode()) for name, body in pages.items()}
    site.files.update({
        "warm": (html, "no-cache", WARM.encode()),
        "site.css": ("text/css", "no-cache", CSS.encode()),
        "logo.svg": ("image/svg+xml", "max-age=3600", SVG.encode()),
        "app.js": ("application/javascript", "max-age=3600", APP_JS.encode()),
    })
    holder["site"] = site
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site


# ---------------------------------------------------------------------------------------
# The servers


@contextlib.asynccontextmanager
async def session(params: StdioServerParameters, errlog_path: Path):
    """A started MCP session; if it fails, the tail of the server's stderr is printed."""
    with open(errlog_path, "w") as errlog:
        try:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as s:
                    with anyio.fail_after(60):
                        await s.initialize()
                    yield s
        except BaseException:
            errlog.flush()
            tail = errlog_path.read_text(errors="replace")[-1500:].strip()
            if tail:
                print(f"{params.command} {' '.join(params.args)}: its stderr ends with:\n{tail}", file=sys.stderr)
            raise


def audit_route(work: Path) -> str:
    """Who read the last page a Warden server navigated to, by its audit line: "host" (the
    fast path) or "chromium". The site cannot tell: the host fetches the stylesheet too."""
    path = work / "audit.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    for raw in reversed(lines):
        if '"browser.navigate"' in raw:
            return "host" if '"read by the host, no script"' in raw else "chromium"
    return "none"


def warden_params(tmp: Path, origin: str, binary: Path, static_pages: bool | None) -> StdioServerParameters:
    """Warden on the browser alone; `static_pages` None leaves the key out (the default)."""
    tmp.mkdir(parents=True, exist_ok=True)
    manifest = tmp / "warden.toml"
    key = "" if static_pages is None else f"static_pages = {'true' if static_pages else 'false'}\n"
    manifest.write_text(f"""
[server]
audit_log = "audit.jsonl"

[browser]
executable = "{CHROMIUM}"
{key}
[[plugin]]
name = "browser"
source = "builtin:browser"
grants.browser = {{ origins = ["{origin}"] }}
""")
    return StdioServerParameters(
        command=str(binary),
        args=["serve", "--manifest", str(manifest)],
        env={**os.environ, "RUST_LOG": "warn", "XDG_STATE_HOME": str(tmp / "state"), TAG_VAR: str(manifest)},
        cwd=str(tmp),
    )


def playwright_params(tmp: Path) -> StdioServerParameters:
    tmp.mkdir(parents=True, exist_ok=True)
    cli = REPO / "tests" / "bench" / "node_modules" / "@playwright" / "mcp" / "cli.js"
    if not cli.is_file():
        sys.exit(f"{cli} is missing: run npm ci in tests/bench (see browser_bench.py), or pass --warden-only")
    args = [str(cli), "--headless", "--isolated", "--executable-path", CHROMIUM, "--output-dir", str(tmp)]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    return StdioServerParameters(command=node_bin(), args=args, env={**os.environ, TAG_VAR: str(tmp)}, cwd=str(tmp))


def answer_tokens(text: str, output_dir: Path | None) -> int:
    """The answer's tokens, plus those of the snapshot file Playwright MCP links instead of
    answering it (the agent has to read it to act on the page)."""
    total = tokens(text)
    m = re.search(r"\[Snapshot\]\(([^)]+)\)", text)
    if m and output_dir is not None:
        for base in (output_dir, output_dir.parent):
            f = base / m.group(1)
            if f.is_file():
                return total + tokens(f.read_text(errors="replace"))
        raise RuntimeError(f"Playwright's snapshot file {m.group(1)} is not in {output_dir}")
    return total


# ---------------------------------------------------------------------------------------
# Process trees and their memory


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


class ProcTrees:
    """Each server's processes: the one whose argv holds its marker (manifest path or output
    directory), its descendants, and any process whose environment holds its tag."""

    def __init__(self, markers: dict[str, str]):
        self.markers = markers  # name -> marker in argv, also the value of TAG_VAR
        self._env: dict[tuple[int, str], str | None] = {}
        self.peak_kb = {name: 0 for name in markers}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def scan(self) -> dict[str, tuple[int | None, set[int]]]:
        parent: dict[int, int] = {}
        start: dict[int, str] = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            stat = _read(f"/proc/{d}/stat")
            if not stat:
                continue
            fields = stat.rsplit(")", 1)[-1].split()
            parent[int(d)] = int(fields[1])
            start[int(d)] = fields[19]
        children: dict[int, list[int]] = collections.defaultdict(list)
        for pid, ppid in parent.items():
            children[ppid].append(pid)
        argv = {pid: _read(f"/proc/{pid}/cmdline").replace("\0", " ") for pid in parent}
        out: dict[str, tuple[int | None, set[int]]] = {}
        for name, marker in self.markers.items():
            # The server is our child (the stdio client spawns it) whose argv holds the marker.
            found = sorted(pid for pid in parent if marker in argv[pid] and pid != os.getpid())
            root = next((pid for pid in found if parent[pid] == os.getpid()), found[0] if found else None)
            pids: set[int] = set()
            stack = [root] if root else []
            while stack:
                p = stack.pop()
                if p not in pids:
                    pids.add(p)
                    stack.extend(children.get(p, []))
            for pid in parent:
                key = (pid, start[pid])
                if key not in self._env:
                    env = _read(f"/proc/{pid}/environ").split("\0")
                    self._env[key] = next((e.split("=", 1)[1] for e in env if e.startswith(TAG_VAR + "=")), None)
                if self._env[key] == marker:
                    pids.add(pid)
            out[name] = (root, pids)
        return out

    @staticmethod
    def status_kb(pid: int, key: str) -> int:
        m = re.search(rf"^{key}:\s+(\d+) kB", _read(f"/proc/{pid}/status"), re.M)
        return int(m.group(1)) if m else 0

    @staticmethod
    def pss_kb(pid: int) -> int:
        m = re.search(r"^Pss:\s+(\d+) kB", _read(f"/proc/{pid}/smaps_rollup"), re.M)
        return int(m.group(1)) if m else 0

    def sample(self) -> None:
        for name, (_, pids) in self.scan().items():
            self.peak_kb[name] = max(self.peak_kb[name], sum(self.status_kb(p, "VmRSS") for p in pids))

    def start(self, every: float = 1.0) -> None:
        def loop() -> None:
            while not self._stop.wait(every):
                self.sample()

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()

    def report(self) -> list[str]:
        self.sample()
        lines = []
        for name, (root, pids) in self.scan().items():
            if root is None:
                lines.append(f"memory {name:<9} server process not found")
                continue
            others = pids - {root}
            rss = sum(self.status_kb(p, "VmRSS") for p in pids)
            pss = sum(self.pss_kb(p) for p in pids)
            lines.append(
                f"memory {name:<9} {len(pids):>2} processes: server peak {self.status_kb(root, 'VmHWM') / 1024:.0f} MB"
                f" (now {self.status_kb(root, 'VmRSS') / 1024:.0f}), children peaks summed"
                f" {sum(self.status_kb(p, 'VmHWM') for p in others) / 1024:.0f} MB;"
                f" tree RSS now {rss / 1024:.0f} MB, peak sampled {self.peak_kb[name] / 1024:.0f} MB, PSS now {pss / 1024:.0f} MB"
            )
        return lines


# ---------------------------------------------------------------------------------------
# Measurements


ELEMENT = re.compile(r'^\s*@e\d+ (\[[^\]]*\])(?: ("(?:[^"\\]|\\.)*"))?(.*)$')


def element_lines(text: str) -> list[tuple[str, str]]:
    """Each element line as (`[role] "name"`, the rest of the line), its ref stripped."""
    out = []
    for line in text.splitlines():
        m = ELEMENT.match(line)
        if m:
            out.append((f"{m.group(1)} {m.group(2) or ''}".rstrip(), m.group(3).strip()))
    return out


async def read_all_pages(s: ClientSession, url: str, work: Path) -> dict:
    """Navigate and read every page of the snapshot; notes who read the document (the audit
    line of the navigation, `work` the server's directory) before and after paging."""
    text, _ = await timed(s, "browse_navigate", {"url": url})
    route = audit_route(work)
    header = text.splitlines()[0] if text else ""
    lines = element_lines(text)
    page, error = 2, None
    while f'"page": {page}}}' in text and page < 500:
        try:
            text, _ = await timed(s, "browse_snapshot", {"page": page})
        except RuntimeError as e:
            error = str(e)[:200]
            break
        lines += element_lines(text)
        page += 1
    later = audit_route(work)
    return {"lines": lines, "pages": page - 1, "header": header, "route": route, "later_route": later, "error": error}


def fidelity(name: str, fast: dict, slow: dict) -> list[str]:
    def norm(h: str) -> str:
        return re.sub(r"http://127\.0\.0\.1:\d+/\w+/", "URL/", re.sub(r"~\d+ tokens", "~N tokens", h))

    pairs_f = collections.Counter(p for p, _ in fast["lines"])
    pairs_c = collections.Counter(p for p, _ in slow["lines"])
    only_f, only_c = pairs_f - pairs_c, pairs_c - pairs_f
    full_f = collections.Counter(f"{p} {r}".strip() for p, r in fast["lines"])
    full_c = collections.Counter(f"{p} {r}".strip() for p, r in slow["lines"])
    attr_diff = sum((full_f - full_c).values()) + sum((full_c - full_f).values())
    differ = sum(only_f.values()) + sum(only_c.values())
    same_order = [p for p, _ in fast["lines"]] == [p for p, _ in slow["lines"]]
    out = [
        f"fidelity {name:<5} fast route {fast['route']}: {len(fast['lines'])} element lines over {fast['pages']} page(s)"
        f" vs chromium {len(slow['lines'])} over {slow['pages']}; [role] \"name\" pairs differing: {differ};"
        f" lines differing with attributes: {attr_diff}; same order: {'yes' if same_order else 'no'};"
        f" header same: {'yes' if norm(fast['header']) == norm(slow['header']) else 'no'}"
    ]
    if fast["later_route"] != fast["route"]:
        out.append(f"  (the fast server's later snapshot pages were read after a fetch by {fast['later_route']})")
    for which, d in (("fast", fast), ("chromium", slow)):
        if d["error"]:
            out.append(f"  paging the {which} snapshot failed: {d['error']}")
    if norm(fast["header"]) != norm(slow["header"]):
        out.append(f"  header fast:     {fast['header'][:160]}")
        out.append(f"  header chromium: {slow['header'][:160]}")
    examples = [f"  only fast:     {p} (x{n})" for p, n in only_f.items()] + [
        f"  only chromium: {p} (x{n})" for p, n in only_c.items()
    ]
    if not examples and attr_diff:
        examples = [f"  attributes, only fast:     {line}" for line in (full_f - full_c)] + [
            f"  attributes, only chromium: {line}" for line in (full_c - full_f)
        ]
    out += [e[:200] for e in examples[:5]]
    return out


def p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]


@dataclass
class Server:
    name: str
    tool: str
    session: ClientSession
    marker: str
    output_dir: Path | None = None  # Playwright's, for its snapshot files


async def bench(site: StaticSite, opts, tmp: Path) -> tuple[dict, list[str], list[str]]:
    static_off = None if opts.no_key else False
    specs: dict[str, tuple[StdioServerParameters, str, str, Path | None]] = {}
    for name, key in (("fast", None), ("chromium", static_off)):
        params = warden_params(tmp / name, site.origin, opts.warden, key)
        specs[name] = (params, "browse_navigate", str(tmp / name / "warden.toml"), None)
    if not opts.warden_only:
        specs["pw"] = (playwright_params(tmp / "pw"), "browser_navigate", str(tmp / "pw"), tmp / "pw")
    times: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    toks: dict[tuple[str, str], int] = {}
    routes: dict[tuple[str, str], collections.Counter] = collections.defaultdict(collections.Counter)
    async with contextlib.AsyncExitStack() as stack:
        servers: list[Server] = []
        for name, (params, tool, marker, out_dir) in specs.items():
            s = await stack.enter_async_context(session(params, tmp / f"{name}.stderr"))
            servers.append(Server(name, tool, s, marker, out_dir))
        trees = ProcTrees({sv.name: sv.marker for sv in servers})
        trees.start()
        # Warm: a page with a script, so every server has launched its Chromium; then each page.
        for sv in servers:
            await timed(sv.session, sv.tool, {"url": site.url(sv.name, "warm")})
            for page in opts.pages:
                await timed(sv.session, sv.tool, {"url": site.url(sv.name, page)})
        for run in range(opts.runs):
            for page in opts.pages:
                k = run % len(servers)
                for sv in servers[k:] + servers[:k]:
                    mark = site.mark()
                    text, dt = await timed(sv.session, sv.tool, {"url": site.url(sv.name, page)})
                    route = site.route_since(mark, sv.name, page) if sv.name == "pw" else audit_route(tmp / sv.name)
                    routes[(page, sv.name)][route] += 1
                    times[(page, sv.name)].append(dt * 1000)
                    toks[(page, sv.name)] = answer_tokens(text, sv.output_dir)
        trees.stop()
        memory = trees.report()
        checks = []
        by_name = {sv.name: sv for sv in servers}
        for page in opts.pages:
            got = {}
            for name in ("fast", "chromium"):
                got[name] = await read_all_pages(by_name[name].session, site.url(name, page), tmp / name)
            checks += fidelity(page, got["fast"], got["chromium"])
            if page == "spa":
                buttons = sum(1 for p, _ in got["fast"]["lines"] if p.startswith("[button]"))
                checks.append(f"  control: the fast server's snapshot shows {buttons} of the script's 10 buttons")
    return {"times": times, "tokens": toks, "routes": routes}, memory, checks


async def cold(site: StaticSite, opts, tmp: Path) -> list[str]:
    """A fresh Warden per run whose first call navigates to the docs page."""
    static_off = None if opts.no_key else False
    res: dict[str, list[tuple[float, float, str]]] = {"fast": [], "chromium": []}
    for i in range(COLD_RUNS):
        for name in (("fast", "chromium") if i % 2 == 0 else ("chromium", "fast")):
            work = tmp / f"cold-{name}-{i}"
            params = warden_params(work, site.origin, opts.warden, None if name == "fast" else static_off)
            t0 = time.perf_counter()
            async with session(params, work / "stderr") as s:
                ready = (time.perf_counter() - t0) * 1000
                mark = site.mark()
                _, dt = await timed(s, "browse_navigate", {"url": site.url(name, "docs")})
                res[name].append((ready, dt * 1000, audit_route(work)))
    lines = []
    for name, rows in res.items():
        lines.append(
            f"cold {name:<9} first browse_navigate to docs: median {statistics.median(r[1] for r in rows):.0f} ms"
            f" (runs {', '.join(f'{r[1]:.0f}' for r in rows)}; route {', '.join(r[2] for r in rows)});"
            f" spawn+initialize median {statistics.median(r[0] for r in rows):.0f} ms"
        )
    f, c = (statistics.median(r[1] for r in res[n]) for n in ("fast", "chromium"))
    lines.append(f"cold first call: fast/chromium {f / c:.2f}")
    return lines


def ms(xs: list[float] | None) -> str:
    return f"{statistics.median(xs):.1f}/{p95(xs):.1f}" if xs else "-"


# ---------------------------------------------------------------------------------------
# A corpus of real pages: how many keep the fast path, and what their CSS costs


def start_corpus_site(root: Path) -> tuple[http.server.ThreadingHTTPServer, dict]:
    """`root` served as files; `flags["strip_css"]` answers every .css with an empty sheet."""
    flags = {"strip_css": False}

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, directory=str(root), **k)

        def do_GET(self) -> None:  # noqa: N802
            if flags["strip_css"] and self.path.split("?", 1)[0].endswith(".css"):
                self.send_response(200)
                self.send_header("Content-Type", "text/css")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            super().do_GET()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, flags


def last_detail(work: Path) -> str:
    path = work / "audit.jsonl"
    for raw in reversed(path.read_text().splitlines() if path.exists() else []):
        if '"browser.navigate"' in raw:
            return json.loads(raw).get("detail") or "loaded in the browser"
    return "none"


async def corpus(opts) -> None:
    """Each page of the corpus through the fast path (one Warden), then the pages the host read
    again with every style sheet answered empty: the share read by the host, why the others were
    not, and the median time of a host read with and without the pages' CSS."""
    root = opts.corpus.resolve()
    files = sorted(p for p in root.rglob("*.html") if p.is_file())
    step = max(1, len(files) // opts.corpus_pages)
    files = files[::step][: opts.corpus_pages]
    server, flags = start_corpus_site(root)
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    reasons: collections.Counter = collections.Counter()
    host: dict[str, float] = {}
    browser: list[float] = []
    with tempfile.TemporaryDirectory(prefix="static-corpus-") as tmp_dir:
        work = Path(tmp_dir) / "fast"
        async with session(warden_params(work, origin, opts.warden, None), Path(tmp_dir) / "stderr") as s:
            await timed(s, "browse_navigate", {"url": origin + "/" + files[0].relative_to(root).as_posix()})
            for f in files:
                url = origin + "/" + urllib.parse.quote(f.relative_to(root).as_posix())
                try:
                    _, dt = await timed(s, "browse_navigate", {"url": url})
                except RuntimeError as e:
                    reasons[f"error: {str(e)[:60]}"] += 1
                    continue
                detail = last_detail(work)
                if detail == "read by the host, no script":
                    host[url] = dt * 1000
                else:
                    reasons[re.sub(r"\d+", "N", detail.removeprefix("loaded in the browser: "))[:90]] += 1
                    browser.append(dt * 1000)
            flags["strip_css"] = True
            bare: dict[str, float] = {}
            for url in host:
                _, dt = await timed(s, "browse_navigate", {"url": url})
                if last_detail(work) == "read by the host, no script":
                    bare[url] = dt * 1000
    server.shutdown()
    n = len(files)
    print(f"corpus {root}: {n} pages (every {step}th .html file)")
    print(f"read by the host: {len(host)} ({100 * len(host) / max(n, 1):.0f}%), loaded in the browser: {n - len(host)}")
    for why, k in reasons.most_common(12):
        print(f"  {k:>4}  {why}")
    both = [u for u in host if u in bare]
    if both:
        with_css = statistics.median(host[u] for u in both)
        without = statistics.median(bare[u] for u in both)
        print(f"host read, median of {len(both)} pages: {with_css:.1f} ms with their CSS, {without:.1f} ms with empty"
              f" sheets: the CSS costs {with_css - without:.1f} ms ({100 * (with_css - without) / without:.0f}%)")
    if browser:
        print(f"pages loaded in the browser: median {statistics.median(browser):.1f} ms")



async def main(opts) -> None:
    builders = {"docs": docs_page, "api": api_page, "form": form_page, "spa": spa_page}
    site = start_static_site({p: builders[p]() for p in PAGES})
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="static-bench-") as tmp_dir:
        tmp = Path(tmp_dir)
        r, memory, checks = await bench(site, opts, tmp)
        colds = await cold(site, opts, tmp)
    site.close()
    T, K, R = r["times"], r["tokens"], r["routes"]
    print(f"warden {opts.warden}, {opts.runs} runs per page and server; times in ms, median/p95")
    if opts.no_key:
        print("--no-key: the manifests leave static_pages out, so both Warden servers run the same configuration")
    head = (f"{'page':<5} {'fast ms':>13} {'chromium ms':>13} {'playwright ms':>13} {'fast/chr':>8} {'fast/pw':>7}"
            f" {'tok fast':>8} {'tok chr':>8} {'tok pw':>7}  route fast / chromium")
    print(head)
    ratios_c, ratios_p = [], []
    for page in opts.pages:
        f, c, p = T.get((page, "fast")), T.get((page, "chromium")), T.get((page, "pw"))
        rc = statistics.median(f) / statistics.median(c)
        rp = statistics.median(f) / statistics.median(p) if p else None
        if page in STATIC:
            ratios_c.append(rc)
            if rp:
                ratios_p.append(rp)

        def route(name: str) -> str:
            return ",".join(f"{k}" + (f"x{n}" if len(R[(page, name)]) > 1 else "") for k, n in R[(page, name)].items())

        print(
            f"{page:<5} {ms(f):>13} {ms(c):>13} {ms(p):>13} {rc:>8.2f} {(f'{rp:.2f}' if rp else '-'):>7}"
            f" {K[(page, 'fast')]:>8} {K[(page, 'chromium')]:>8} {K.get((page, 'pw'), '-'):>7}"
            f"  {route('fast')} / {route('chromium')}"
        )
    for line in colds + memory + checks:
        print(line)
    summary = "summary:"
    if ratios_c:
        summary += (f" on static pages the fast path takes {min(ratios_c):.2f}-{max(ratios_c):.2f} of a Chromium tab's time"
                    f" (speed-up {1 / max(ratios_c):.2f}-{1 / min(ratios_c):.2f}x)")
    if ratios_p:
        summary += (f", {min(ratios_p):.2f}-{max(ratios_p):.2f} of Playwright MCP's"
                    f" (speed-up {1 / max(ratios_p):.2f}-{1 / min(ratios_p):.2f}x)")
    if "spa" in opts.pages:
        spa = statistics.median(T[("spa", "fast")]) / statistics.median(T[("spa", "chromium")])
        summary += f"; on the script page (fallback) fast/chromium {spa:.2f}"
    print(summary + f"; whole run {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--warden", type=Path, default=REPO / "target" / "release" / "warden",
                        help="the warden binary, for both Warden servers (default target/release/warden)")
    parser.add_argument("--warden-only", action="store_true", help="skip Playwright MCP")
    parser.add_argument("--pages", default=",".join(PAGES), help=f"a comma-separated subset of {','.join(PAGES)}")
    # Leaves `static_pages` out of every manifest: the plumbing, against a build without the key.
    parser.add_argument("--no-key", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help="instead: a folder of real .html pages, served as files")
    parser.add_argument("--corpus-pages", type=int, default=200, help="how many of its pages (spread evenly)")
    opts = parser.parse_args()
    opts.pages = [p for p in opts.pages.split(",") if p]
    if unknown := set(opts.pages) - set(PAGES):
        parser.error(f"unknown pages: {', '.join(sorted(unknown))} (choose from {', '.join(PAGES)})")
    if not opts.warden.is_file():
        sys.exit(f"{opts.warden} is missing: cargo build --release -p warden, or pass --warden PATH")
    opts.warden = opts.warden.resolve()
    if opts.corpus:
        anyio.run(corpus, opts)
    else:
        anyio.run(main, opts)
