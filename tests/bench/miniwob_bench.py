"""MiniWoB++ benchmark: Warden's browse_* tools against Playwright MCP, side by side, in one run.

    .venv/bin/pip install -r tests/bench/requirements.txt
    .venv/bin/python tests/bench/miniwob_bench.py [--seeds 5] [--tasks click-button,enter-text] [--warden-only]

Needs a release warden (target/release/warden, or the binary WARDEN_BIN names; it is copied
first, so a rebuild during the run does not change it), /usr/bin/chromium (WARDEN_CHROMIUM), the
`miniwob` package in the venv (its task pages ship under miniwob/html/), and the pinned
Playwright MCP in tests/bench/node_modules (npm ci there, as browser_bench.py says).

This script serves MiniWoB's pages itself and adds a small script to each task page that seeds
the episode (`Math.seedrandom(seed)`, as MiniWoB's own environment does), starts it on load (what
clicking the START cover does) and POSTs the reward here when it ends, so neither server needs an
eval tool. Each task is played by a scripted agent that reads only the snapshot text a server
returns: it finds the instruction (MiniWoB's yellow `#query` box) in it, picks elements by the
names and text the snapshot shows, and acts through their refs. The agent is the same for both
servers; an adapter maps its actions to each server's tools and reads each snapshot format. An
episode keeps the task's own time limit (10 s for most; --episode-seconds changes it) and counts as
solved when the page's raw reward is 1.

Per task it prints the episodes solved, the tool calls, the tokens of the tool results
(characters / 4, as browser_bench.py counts) and the median time of an episode, for both servers;
then the totals, the Warden/Playwright ratios, and each failure: Warden's with the part of the
snapshot where the agent could not find an element, or around the one whose action did not count.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_bench import REPO, playwright_params, session, text_of, tokens, warden_params  # noqa: E402

TASKS = [
    "click-button", "click-link", "click-dialog", "click-dialog-2", "click-tab-2", "click-checkboxes",
    "click-option", "click-collapsible", "enter-text", "enter-password", "login-user", "focus-text",
    "choose-list", "use-autocomplete", "navigate-tree", "search-engine",
]

# Runs after the page's own load handler has built the START cover: seed, then start the episode
# as a click on the cover would; report the end of the episode (success, failure or time-out) once.
INJECT = """<script>
window.addEventListener('load', function () { setTimeout(function () {
  var q = new URLSearchParams(location.search);
  var end = core.endEpisode;
  core.endEpisode = function () {
    var live = core.EP_TIMER !== null;
    end.apply(core, arguments);
    if (live) fetch('/reward', {method: 'POST', body: JSON.stringify({run: q.get('run'),
      reward: WOB_REWARD_GLOBAL, raw: WOB_RAW_REWARD_GLOBAL, reason: WOB_REWARD_REASON})});
  };
  if (core.cover_div === null) core.startEpisode();
  if (q.get('limit')) core.EPISODE_MAX_TIME = Number(q.get('limit'));
  Math.seedrandom(Number(q.get('seed')));
  core.startEpisodeReal();
}, 0); });
</script>"""


# ---------------------------------------------------------------------------------------------
# The site: MiniWoB's pages, the injected script, and the rewards the pages report.

class Site:
    def __init__(self) -> None:
        import miniwob

        self.root = Path(miniwob.__file__).parent / "html"
        self.rewards: dict[str, dict] = {}
        self.lock = threading.Lock()
        site = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *a, **k):
                super().__init__(*a, directory=str(site.root), **k)

            def log_message(self, *_):
                pass

            def do_GET(self):
                path = self.path.split("?", 1)[0]
                if path.startswith("/miniwob/") and path.endswith(".html"):
                    page = site.root / path.lstrip("/")
                    if not page.is_file():
                        return self.send_error(404)
                    body = page.read_text().replace("</body>", INJECT + "</body>").encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif path == "/favicon.ico":
                    self.send_response(204)
                    self.end_headers()
                else:
                    super().do_GET()

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with contextlib.suppress(ValueError):
                    data = json.loads(body)
                    with site.lock:
                        site.rewards.setdefault(str(data.get("run")), data)
                self.send_response(204)
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, task: str, seed: int, run: str, limit_s: float | None) -> str:
        limit = f"&limit={int(limit_s * 1000)}" if limit_s is not None else ""
        return f"{self.origin}/miniwob/{task}.html?seed={seed}&run={run}{limit}"

    async def reward(self, run: str, wait_s: float) -> dict | None:
        deadline = time.monotonic() + wait_s
        while True:
            with self.lock:
                if run in self.rewards:
                    return self.rewards[run]
            if time.monotonic() >= deadline:
                return None
            await anyio.sleep(0.05)


# ---------------------------------------------------------------------------------------------
# Snapshots, read into one shape: elements and text in reading order.

@dataclass
class El:
    ref: str | None      # None for a text line
    role: str            # "text" for a text line
    name: str
    text: str            # Playwright's inline text (`generic [ref=e3]: words`)
    states: str          # the rest of the line: [checked], [selected], value=..., ...
    line: int            # index in Snap.lines
    depth: int = 0       # nesting in Playwright's tree; Warden's lines are flat

    @property
    def label(self) -> str:
        return self.name or self.text


@dataclass
class Snap:
    lines: list[str]
    items: list[El] = field(default_factory=list)

    def elements(self) -> list[El]:
        return [e for e in self.items if e.ref is not None]

    def texts(self) -> list[str]:
        return [e.label for e in self.items if e.label]

    def instruction(self, pattern: str) -> re.Match:
        for t in self.texts():
            m = re.search(pattern, t)
            if m:
                return m
        raise NotFound("the instruction", self, "")

    def find(self, label: str, roles: set[str] | None = None) -> El | None:
        for e in self.elements():
            if e.label == label and (roles is None or e.role in roles):
                return e
        return None

    def need(self, label: str, roles: set[str] | None = None, what: str | None = None) -> El:
        e = self.find(label, roles)
        if e is None:
            kind = "/".join(sorted(roles)) if roles else "element"
            raise NotFound(what or f'{kind} "{label}"', self, label)
        return e

    def of_roles(self, roles: set[str]) -> list[El]:
        return [e for e in self.elements() if e.role in roles]

    def text_before(self, el: El) -> str:
        """The nearest words before an element in reading order: what labels it on screen."""
        i = self.items.index(el)
        for e in reversed(self.items[:i]):
            if e.label:
                return e.label
        return ""

    def field(self, label: str) -> El:
        """A text field by its name or, for a field the page does not name, the text before it."""
        want = label.casefold()
        fields = self.of_roles(TEXT_FIELDS)
        for e in fields:
            if e.name.strip().rstrip(":").casefold() == want:
                return e
        for e in fields:
            if self.text_before(e).strip().rstrip(":").casefold() == want:
                return e
        raise NotFound(f'the "{label}" field', self, label)

    def excerpt(self, needle: str = "", around: El | None = None, radius: int = 4) -> str:
        at = around.line if around is not None else None
        if at is None and needle:
            at = next((i for i, l in enumerate(self.lines) if needle in l), None)
        if at is None:
            return "\n".join(self.lines[:16])
        return "\n".join(self.lines[max(0, at - radius): at + radius + 1])


TEXT_FIELDS = {"textbox", "password", "searchbox"}
CLOSE_NAMES = ["x", "×", "✕", "Close", "close"]

WD_EL = re.compile(r'^@e(\d+) \[([^\]]+)\] ~?"((?:[^"\\]|\\.)*)"(.*)$')


def unescape(s: str) -> str:
    try:
        return json.loads(f'"{s}"')
    except ValueError:
        return s


def parse_warden(text: str) -> Snap:
    snap = Snap(text.splitlines())
    for i, line in enumerate(snap.lines):
        m = WD_EL.match(line)
        if m:
            snap.items.append(El(m[1], m[2], unescape(m[3]), "", m[4], i))
        elif line.startswith("- "):
            snap.items.append(El(None, "text", "", line[2:], "", i))
        elif line.startswith("#"):
            snap.items.append(El(None, "text", "", line.lstrip("#").strip(), "", i))
    return snap


PW_NODE = re.compile(r'^([\w-]+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*)(?::(?: (.*))?)?$')


def yaml_scalar(s: str) -> str:
    s = s.strip()
    if s.startswith('"') and s.endswith('"') and len(s) > 1:
        return unescape(s[1:-1])
    if s.startswith("'") and s.endswith("'") and len(s) > 1:
        return s[1:-1].replace("''", "'")
    return s


def parse_playwright(text: str) -> Snap:
    body = text.split("```yaml", 1)[1].split("```", 1)[0] if "```yaml" in text else text
    snap = Snap(body.strip("\n").splitlines())
    for i, line in enumerate(snap.lines):
        node = line.strip()
        if not node.startswith("- "):
            continue
        node = node[2:]
        if node.startswith("'"):  # a YAML-quoted key: 'link "Tab #1" [ref=e7]':
            end = node.rfind("'")
            node = node[1:end].replace("''", "'") + node[end + 1:]
        m = PW_NODE.match(node)
        if not m or m[1].startswith("/"):
            continue
        role, name, attrs, rest = m[1], unescape(m[2] or ""), m[3] or "", m[4]
        if role == "text":
            snap.items.append(El(None, "text", "", yaml_scalar(rest or ""), "", i))
            continue
        ref = re.search(r"\[ref=([\w-]+)\]", attrs)
        depth = (len(line) - len(line.lstrip())) // 2
        snap.items.append(El(ref[1] if ref else None, role, name, yaml_scalar(rest or ""), attrs, i, depth))
    return snap


class NotFound(Exception):
    def __init__(self, what: str, snap: Snap, needle: str):
        super().__init__(f"{what} is not in the snapshot")
        self.snap, self.needle = snap, needle


class ActionFailed(Exception):
    def __init__(self, tool: str, answer: str, snap: Snap | None, el: El | None):
        first = next((l for l in re.sub(r"\x1b\[[0-9;]*m", "", answer).splitlines()
                      if l.strip() and not l.startswith("#")), "")
        super().__init__(f"{tool} failed: {first.strip()[:300]}")
        self.snap, self.el = snap, el


# ---------------------------------------------------------------------------------------------
# One adapter per server: the same moves, each server's tools and snapshot format.

class Browser:
    name = ""

    def __init__(self, s):
        self.s = s
        self.calls = 0
        self.tokens = 0
        self.last: Snap | None = None   # the last snapshot the agent read
        self.acted: El | None = None    # the last element it acted on

    async def call(self, tool: str, args: dict, el: El | None = None) -> str:
        self.calls += 1
        r = await self.s.call_tool(tool, args)
        text = text_of(r)
        self.tokens += tokens(text)
        if el is not None:
            self.acted = el
        if r.is_error:
            raise ActionFailed(tool, text, self.last, el)
        return text

    async def open(self, url: str) -> Snap:
        raise NotImplementedError

    async def look(self) -> Snap:
        raise NotImplementedError


class Warden(Browser):
    name = "warden"

    async def open(self, url):
        await self.call("browse_navigate", {"url": url})
        # The navigation answers with the controls; the instruction is page text: `full` mode.
        return await self.look()

    async def look(self):
        self.last = parse_warden(await self.call("browse_snapshot", {"mode": "full"}))
        return self.last

    async def click(self, el):
        await self.call("browse_click", {"ref": int(el.ref)}, el)

    async def fill(self, el, text):
        await self.call("browse_fill", {"ref": int(el.ref), "value": text}, el)

    async def type(self, el, text):
        await self.call("browse_type", {"ref": int(el.ref), "text": text}, el)

    async def select(self, el, option):
        await self.call("browse_select", {"ref": int(el.ref), "values": [option]}, el)


class Playwright(Browser):
    name = "playwright"

    async def open(self, url):
        # Playwright MCP answers a navigation with a link to a snapshot file: ask for the snapshot.
        await self.call("browser_navigate", {"url": url})
        return await self.look()

    async def look(self):
        self.last = parse_playwright(await self.call("browser_snapshot", {}))
        return self.last

    async def click(self, el):
        await self.call("browser_click", {"element": el.label or el.role, "target": el.ref}, el)

    async def fill(self, el, text):
        await self.call("browser_type", {"element": el.label or el.role, "target": el.ref, "text": text}, el)

    async def type(self, el, text):
        await self.call("browser_type", {"element": el.label or el.role, "target": el.ref, "text": text,
                                         "slowly": True}, el)

    async def select(self, el, option):
        await self.call("browser_select_option", {"element": el.label or el.role, "target": el.ref,
                                                  "values": [option]}, el)


# ---------------------------------------------------------------------------------------------
# The agent: one function per task, reading the instruction and the elements from the snapshot.

async def click_button(b: Browser, snap: Snap):
    label = snap.instruction(r'Click on the "(.+)" button\.')[1]
    await b.click(snap.need(label, {"button"}))


async def click_link(b: Browser, snap: Snap):
    label = snap.instruction(r'Click on the link "(.+)"\.')[1]
    await b.click(snap.need(label, what=f'a clickable "{label}"'))


def close_button(snap: Snap) -> El:
    for label in CLOSE_NAMES:
        e = snap.find(label, {"button"})
        if e:
            return e
    raise NotFound('the dialog\'s close button ("x" or "Close")', snap, "dialog")


async def click_dialog(b: Browser, snap: Snap):
    snap.instruction(r'Close the dialog box by clicking the "x"\.')
    await b.click(close_button(snap))


async def click_dialog_2(b: Browser, snap: Snap):
    label = snap.instruction(r'Click the button in the dialog box labeled "(.+)"\.')[1]
    await b.click(close_button(snap) if label == "x" else snap.need(label, {"button"}))


async def click_tab_2(b: Browser, snap: Snap):
    label = snap.instruction(r'Switch between the tabs to find and click on the link "(.+)"\.')[1]
    others = [t for t in snap.of_roles({"tab"}) if "[selected]" not in t.states]
    for tab in [None] + others:
        if tab is not None:
            await b.click(tab)
            snap = await b.look()
        # Only the shown tab's words are in the snapshot: a hidden panel's are not.
        target = next((e for e in snap.elements() if e.label == label and e.role != "tab"), None)
        if target:
            return await b.click(target)
    raise NotFound(f'a clickable "{label}" in any tab', snap, label)


async def click_checkboxes(b: Browser, snap: Snap):
    wanted = snap.instruction(r"Select (.*) and click Submit\.")[1]
    names = set() if wanted == "nothing" else set(wanted.split(", "))
    for name in names:
        snap.need(name, {"checkbox"})
    for e in snap.of_roles({"checkbox"}):
        if (e.name in names) != ("[checked]" in e.states):
            await b.click(e)
    await b.click(snap.need("Submit", {"button"}))


async def click_option(b: Browser, snap: Snap):
    label = snap.instruction(r"Select (.+) and click Submit\.")[1]
    await b.click(snap.need(label, {"radio"}))
    await b.click(snap.need("Submit", {"button"}))


async def click_collapsible(b: Browser, snap: Snap):
    snap.instruction(r"Expand the section below and click submit\.")
    header = next((e for e in snap.elements() if e.label.startswith("Section")), None)
    if header is None:
        raise NotFound('the section\'s header ("Section #N")', snap, "Section")
    await b.click(header)
    snap = await b.look()
    await b.click(snap.need("Submit", {"button"}))


async def enter_text(b: Browser, snap: Snap):
    value = snap.instruction(r'Enter "(.+)" into the text field and press Submit\.')[1]
    fields = snap.of_roles(TEXT_FIELDS)
    if not fields:
        raise NotFound("a text field", snap, "Submit")
    await b.fill(fields[0], value)
    await b.click(snap.need("Submit", {"button"}))


async def enter_password(b: Browser, snap: Snap):
    value = snap.instruction(r'Enter the password "(.+)" into both text fields and press submit\.')[1]
    await b.fill(snap.field("Password"), value)
    await b.fill(snap.field("Verify password"), value)
    await b.click(snap.need("Submit", {"button"}))


async def login_user(b: Browser, snap: Snap):
    m = snap.instruction(r'Enter the username "(.+)" and the password "(.+)" into the text fields and press login\.')
    await b.fill(snap.field("Username"), m[1])
    await b.fill(snap.field("Password"), m[2])
    await b.click(snap.need("Login", {"button"}))


async def focus_text(b: Browser, snap: Snap):
    snap.instruction(r"Focus into the textbox\.")
    fields = snap.of_roles(TEXT_FIELDS)
    if not fields:
        raise NotFound("a text field", snap, "Focus")
    await b.click(fields[0])


async def choose_list(b: Browser, snap: Snap):
    option = snap.instruction(r"Select (.+) from the list and click Submit\.")[1]
    lists = snap.of_roles({"combobox", "listbox"})
    if not lists:
        raise NotFound("a list to choose from", snap, option)
    await b.select(lists[0], option)
    await b.click(snap.need("Submit", {"button"}))


async def use_autocomplete(b: Browser, snap: Snap):
    m = snap.instruction(r'Enter an item that starts with "(.+?)"(?: and ends with "(.+?)")?\.')
    start, end = m[1], m[2] or ""
    box = snap.of_roles(TEXT_FIELDS)
    if not box:
        raise NotFound("a text field", snap, "Tags")
    # Typed key by key, as a person does: the suggestions come from the field's own key handlers,
    # after the widget's delay, so the agent looks again until they are there.
    await b.type(box[0], start)
    for _ in range(10):
        snap = await b.look()
        pick = next((e for e in snap.elements() if e.role not in TEXT_FIELDS and e.label != start
                     and e.label.startswith(start) and e.label.endswith(end)), None)
        if pick:
            break
        await anyio.sleep(0.2)
    else:
        raise NotFound(f'a suggestion that starts with "{start}" and ends with "{end}"', snap, start)
    await b.click(pick)
    snap = await b.look()
    await b.click(snap.need("Submit", {"button"}))


async def navigate_tree(b: Browser, snap: Snap):
    label = snap.instruction(r'Find and click on the folder or file named "(.+)"\.')[1]
    opened: set[str] = set()
    for _ in range(12):
        target = snap.find(label)
        if target:
            return await b.click(target)
        # A folder shows an unnamed toggle (its expand icon) just before its name: open the next
        # closed one. Clicking a file that is not the one asked for fails the episode.
        els = snap.elements()
        toggles = [e for e, after in zip(els, els[1:])
                   if not e.label and after.label and after.depth <= e.depth and e.ref not in opened]
        if not toggles:
            break
        opened.add(toggles[0].ref)
        await b.click(toggles[0])
        snap = await b.look()
    raise NotFound(f'"{label}" in the tree, or a folder to open', snap, label)


async def search_engine(b: Browser, snap: Snap):
    m = snap.instruction(r'Use the textbox to enter "(.+)" and press "Search", '
                         r'then find and click the (\d+)\w\w search result\.')
    query, nth = m[1], int(m[2])
    fields = snap.of_roles(TEXT_FIELDS)
    if not fields:
        raise NotFound("the search field", snap, "Search")
    await b.fill(fields[0], query)
    await b.click(snap.need("Search", {"button"}))
    snap = await b.look()
    # Three results a page: go to the page that holds the nth one, by its number in the pager.
    page, index = divmod(nth - 1, 3)
    if page:
        await b.click(snap.need(str(page + 1), {"link"}, what=f'the pager\'s link "{page + 1}"'))
        snap = await b.look()
    pager = r"\d+|[<>«»‹›]|First|Last|Prev(ious)?|Next"
    results = [e for e in snap.of_roles({"link"}) if not re.fullmatch(pager, e.label)]
    if len(results) <= index:
        raise NotFound(f"search result {nth} (result {index + 1} of page {page + 1})", snap, query)
    await b.click(results[index])


AGENTS = {
    "click-button": click_button, "click-link": click_link, "click-dialog": click_dialog,
    "click-dialog-2": click_dialog_2, "click-tab-2": click_tab_2, "click-checkboxes": click_checkboxes,
    "click-option": click_option, "click-collapsible": click_collapsible, "enter-text": enter_text,
    "enter-password": enter_password, "login-user": login_user, "focus-text": focus_text,
    "choose-list": choose_list, "use-autocomplete": use_autocomplete, "navigate-tree": navigate_tree,
    "search-engine": search_engine,
}


# ---------------------------------------------------------------------------------------------
# Episodes and the report.

@dataclass
class Episode:
    task: str
    seed: int
    server: str
    ok: bool
    calls: int
    tokens: int
    seconds: float
    why: str = ""
    excerpt: str = ""


async def episode(b: Browser, site: Site, task: str, seed: int, limit_s: float | None) -> Episode:
    run = uuid.uuid4().hex
    b.calls = b.tokens = 0
    b.last = b.acted = None
    why, excerpt = "", ""
    t0 = time.perf_counter()
    try:
        snap = await b.open(site.url(task, seed, run, limit_s))
        await AGENTS[task](b, snap)
    except NotFound as e:
        why, excerpt = str(e), e.snap.excerpt(e.needle)
    except ActionFailed as e:
        why = str(e)
        excerpt = e.snap.excerpt(around=e.el) if e.snap else ""
    result = await site.reward(run, 5.0 if not why else 0.5)
    seconds = time.perf_counter() - t0
    ok = bool(result) and float(result.get("raw") or 0) >= 1.0
    if not ok and not why:
        if result is None:
            why = "the episode did not end (no reward reported)"
        else:
            why = f"the page gave reward {result.get('raw')}" + (f" ({result['reason']})" if result.get("reason") else "")
            why += f" after the agent acted on {b.acted.role} \"{b.acted.label}\"" if b.acted else ""
        if b.last is not None:
            at = next((e for e in b.last.items if b.acted and e.ref == b.acted.ref), None)
            excerpt = b.last.excerpt(around=at)
    return Episode(task, seed, b.name, ok, b.calls, b.tokens, seconds, why, excerpt)


def report(tasks: list[str], seeds: int, results: list[Episode], servers: list[str]) -> None:
    def pick(task, server):
        return [e for e in results if e.server == server and (task is None or e.task == task)]

    cols = {"warden": "wd", "playwright": "pw"}
    head = f"{'task':<18}"
    for s in servers:
        head += f" {cols[s] + ' ok':>6} {cols[s] + ' calls':>8} {cols[s] + ' tok':>7} {cols[s] + ' s/ep':>7}"
    print(head)
    for task in tasks + [None]:
        row = f"{task or 'total':<18}"
        for s in servers:
            eps = pick(task, s)
            ok = sum(e.ok for e in eps)
            row += (f" {f'{ok}/{len(eps)}':>6} {sum(e.calls for e in eps):>8} {sum(e.tokens for e in eps):>7}"
                    f" {statistics.median(e.seconds for e in eps):>7.2f}")
        print(row)
    if len(servers) == 2:
        w, p = pick(None, "warden"), pick(None, "playwright")

        def ratio(f):
            return f(w) / f(p) if f(p) else float("nan")

        print(f"warden/playwright: solved {sum(e.ok for e in w)}/{sum(e.ok for e in p)},"
              f" calls {ratio(lambda x: sum(e.calls for e in x)):.2f},"
              f" tokens {ratio(lambda x: sum(e.tokens for e in x)):.2f},"
              f" median time per episode {ratio(lambda x: statistics.median(e.seconds for e in x)):.2f}")
    for s in servers:
        failed = [e for e in pick(None, s) if not e.ok]
        if not failed:
            continue
        print(f"\n{s} failures ({len(failed)}):")
        for e in failed:
            print(f"- {e.task} seed {e.seed}: {e.why}")
            if s == "warden" and e.excerpt:
                print("    " + e.excerpt.replace("\n", "\n    "))


def warden_binary(tmp: Path) -> Path:
    src = Path(os.environ.get("WARDEN_BIN") or REPO / "target" / "release" / "warden")
    if not src.is_file():
        sys.exit(f"{src} is missing: cargo build --release -p warden, or set WARDEN_BIN")
    # A copy, so that a rebuild of target/release during the run does not swap the binary.
    dst = tmp / "warden"
    shutil.copy2(src, dst)
    return dst


async def main(tasks: list[str], seeds: int, warden_only: bool, limit_s: float | None) -> None:
    site = Site()
    servers = ["warden"] if warden_only else ["warden", "playwright"]
    results: list[Episode] = []
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        async with contextlib.AsyncExitStack() as stack:
            browsers: list[Browser] = [
                Warden(await stack.enter_async_context(session(warden_params(tmp, site.origin, warden_binary(tmp))))),
            ]
            if not warden_only:
                browsers.append(Playwright(await stack.enter_async_context(session(playwright_params(tmp)))))
            for task in tasks:
                for seed in range(seeds):
                    for b in browsers:
                        e = await episode(b, site, task, seed, limit_s)
                        results.append(e)
                        mark = "ok" if e.ok else "FAIL " + e.why
                        print(f"  {task} seed {seed} {b.name}: {mark} ({e.calls} calls, {e.seconds:.2f}s)",
                              file=sys.stderr, flush=True)
    report(tasks, seeds, results, servers)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=",".join(TASKS), help="comma-separated MiniWoB task names")
    parser.add_argument("--seeds", type=int, default=5, help="episodes per task, seeds 0 to N-1")
    parser.add_argument("--warden-only", action="store_true", help="play on Warden alone")
    parser.add_argument("--episode-seconds", type=float,
                        help="the episode's time limit (default: the task's own, 10 s for most, 15-30 s for some)")
    args = parser.parse_args()
    chosen = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = [t for t in chosen if t not in AGENTS]
    if unknown:
        sys.exit(f"no agent for {', '.join(unknown)}; known: {', '.join(AGENTS)}")
    anyio.run(main, chosen, args.seeds, args.warden_only, args.episode_seconds)
