"""The web platform parity suite's harness: one page per feature family, loaded in a plain
headless Chromium (the reference: the same binary with the flags a user would try it with,
no Warden) and in Warden's browser through the browser plugin's tools, and the two results
compared. A page reports into `window.__parity` (a JSON object: one entry per feature, each
a dict of checks) or into a status table on the page (`STATUS_TABLE`, what `Family.report`
reads back), and sets `window.__parityDone` when every feature has reported. A family with
`steps` (what a user does: clicks, keys, drags, back and forward) waits for
`window.__parityReady` first; the reference does each step with DevTools input events,
Warden with its own tools. The pages tag their requests with
`run=<run>` from their own query, so one set of fixture servers serves both runs and a test
tells what each browser's run sent.

A check Warden is meant to change is named in `guarded`: the reference must report
`reached` there (so the page really tried) and Warden `refused` (its network guard); every
other check must come out the same in both.

Families (the pages live in `worker_site.py` and `platform_pages.py`):

| family | what it runs |
|---|---|
| workers | dedicated (file, `blob:`, `data:`), module (file, `blob:`), nested, `importScripts`, shared and service workers, audio and paint worklets |
| wasm | sync compile, `instantiateStreaming` (own origin, across origins), memory growth, a module sent to a worker |
| storage | IndexedDB (250 rows, an index, a cursor, an aborted transaction, a version upgrade), local and session storage, cookies, `cookieStore`, Cache API, OPFS, quota, Web Locks, `BroadcastChannel` |
| fetch streaming | a chunked export read row by row (own origin, across origins), abort mid-stream, XHR progress, compression streams, `sendBeacon` |
| websocket | text, binary, `Blob`, a 200 kB message, a close code, across origins, from a worker |
| eventsource | named events, multi-line data, reconnection with `Last-Event-ID` (own origin, across origins), from a worker |
| canvas and webgl | 2D drawing and text, images (own, CORS, tainted), `OffscreenCanvas` in a worker, `createImageBitmap`, WebGL 1 and 2 |
| media | audio metadata, playback on a click, Web Audio decoding and rendering, `MediaRecorder` to a `<video>`, codec support, across origins |
| fonts | `FontFace` from a URL and from bytes, `@font-face` across origins, `document.fonts.ready` |
| downloads | a `blob:` export, a server's attachment, a `data:` file, each from a click; the files saved compared |
| drag and drop | a native HTML5 drag between board columns, a pointer-events sortable list |
| clipboard | `navigator.clipboard.writeText` on a click, paste with Control+V, `execCommand('copy')` with a copy handler |
| dialog and popover | a modal `<dialog>` (focus, Escape cancels, `method=dialog` return value), declarative and manual popovers |
| history | an SPA router (`pushState`, `replaceState`, fragments, the Navigation API), back and forward, a real document and back (the back/forward cache) |
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import websocket

from browser_helpers import CHROMIUM, ok, ref_of

# What a user would start plain headless Chromium with to try a page.
PROBE_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
)


@dataclass(frozen=True)
class Step:
    """What a user does on a page, done the same way on both sides: the reference through
    DevTools input events (as Puppeteer does it), Warden through its tools (`browse_click`,
    `browse_press_key`, `browse_drag`, `browse_back`, `browse_forward`).

    - `click`: the element of `role` (as Warden's snapshot names it) and accessible `name`;
    - `key`: press `key` (`Escape`, `Control+v`) in the focused element;
    - `drag`: from the element of `role` and `name` to the middle of the element `to` (a CSS
      selector);
    - `back`, `forward`: the tab's history (the browser's buttons, not `history.back()`).

    After the step, `until` (a JavaScript expression) is waited for."""

    kind: str
    role: str = ""
    name: str = ""
    key: str = ""
    to: str = ""
    until: str = "true"


@dataclass(frozen=True)
class Family:
    """One page of the suite: `url(run)` is its address for one run; `guarded` the checks
    Warden's guard must refuse (see the module's doc); `steps` what a user does once the page
    says it is ready (`window.__parityReady`)."""

    name: str
    url: Callable[[str], str]
    guarded: frozenset[str] = frozenset()
    timeout: float = 20.0
    steps: tuple[Step, ...] = ()
    report: str = "window.__parity || {}"


# A page's status table (`#parity-status`: a row per feature, its checks as JSON in the row's
# `code`) read back as a report: what the page shows is what is compared. A feature still
# pending is one that did not work.
STATUS_TABLE = """Object.fromEntries([...document.querySelectorAll('#parity-status tr')].map((tr) => {
  const code = tr.querySelector('code');
  return [tr.dataset.feature, code ? JSON.parse(code.textContent) : { ok: false, error: 'pending' }];
}))"""


# The element a step names, found as Warden's snapshot names it (role, accessible name): an
# aria-label, else the text; the element is scrolled into view and its middle returned.
FIND = """((role, name) => {
  const tags = { button: 'button', link: 'a', textbox: 'input, textarea' };
  const all = [...document.querySelectorAll(tags[role] || '[draggable=true]')];
  const el = all.find((e) => (e.getAttribute('aria-label') || e.textContent).trim() === name);
  if (!el) return null;
  el.scrollIntoView({ block: 'center' });
  const r = el.getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2];
})"""

MIDDLE = """((sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })"""

# Key names as DevTools wants them (those the suite's steps press).
KEYS = {"Escape": ("Escape", "Escape", 27), "v": ("v", "KeyV", 86)}


class DevToolsChromium:
    """A Chromium with its DevTools on a TCP port of loopback, driven over one page's session
    (`websocket-client`, synchronously). Events are kept in `events`."""

    def __init__(self, dir: Path, flags: tuple[str, ...] = PROBE_FLAGS) -> None:
        dir.mkdir(parents=True, exist_ok=True)
        args = [CHROMIUM, *flags, f"--user-data-dir={dir}", "--remote-debugging-port=0", "about:blank"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        active = dir / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (active.exists() and len(active.read_text().split()) == 2):
            assert self.proc.poll() is None, "Chromium exited at start"
            assert time.monotonic() < deadline, "Chromium wrote no DevToolsActivePort"
            time.sleep(0.05)
        port, path = active.read_text().split()
        self.http = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}{path}"
        with urllib.request.urlopen(f"{self.http}/json/list", timeout=10) as r:
            page = next(t for t in json.load(r) if t.get("type") == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.next = 0
        self.answers: dict[int, queue.Queue] = {}
        self.events: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.send("Runtime.enable")
        self.send("Page.enable")

    def _read(self) -> None:
        while True:
            try:
                msg = json.loads(self.ws.recv())
            except Exception:  # noqa: BLE001 - the socket closed: the reader ends
                return
            if "id" in msg and msg["id"] in self.answers:
                self.answers.pop(msg["id"]).put(msg)
            else:
                self.events.append(msg)

    def send(self, method: str, **params: Any) -> dict:
        self.next += 1
        answer: queue.Queue = queue.Queue()
        self.answers[self.next] = answer
        self.ws.send(json.dumps({"id": self.next, "method": method, "params": params}))
        msg = answer.get(timeout=30)
        assert "error" not in msg, msg
        return msg["result"]

    def eval(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.eval(expression)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.05)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()
        self.proc.kill()
        self.proc.wait(timeout=10)


@dataclass
class Reference:
    """The reference browser of a module: plain headless Chromium with the probe flags."""

    dir: Path
    chromium: DevToolsChromium | None = field(default=None, init=False)
    browser: websocket.WebSocket | None = field(default=None, init=False)

    def start(self) -> DevToolsChromium:
        if self.chromium is None:
            self.chromium = DevToolsChromium(self.dir)
        return self.chromium

    def allow_downloads(self, dir: Path) -> None:
        """Save the pages' downloads in `dir`, as a user's DevTools script would ask
        (`Browser.setDownloadBehavior`, on the browser's own endpoint, whose connection stays
        open: the setting lasts as long as it does)."""
        c = self.start()
        dir.mkdir(parents=True, exist_ok=True)
        self.browser = websocket.create_connection(c.ws_url, timeout=30, suppress_origin=True)
        self.browser.send(json.dumps({"id": 1, "method": "Browser.setDownloadBehavior", "params": {"behavior": "allow", "downloadPath": str(dir)}}))
        answer = json.loads(self.browser.recv())
        assert "error" not in answer, answer

    def read(self, family: Family, run: str = "reference") -> dict[str, Any]:
        """Load the family's page, do its steps and return its report (whatever it had at the
        timeout)."""
        c = self.start()
        c.send("Page.navigate", url=family.url(run))
        if family.steps:
            assert c.wait("window.__parityReady === true", family.timeout), f"{family.name}: the page did not get ready"
            for step in family.steps:
                self.do(step)
                assert c.wait(step.until, 5), f"{family.name}: {step} did not lead to {step.until}"
        c.wait("window.__parityDone === true", family.timeout)
        return c.eval(family.report)

    def do(self, step: Step) -> None:
        c = self.start()
        if step.kind in ("back", "forward"):
            history = c.send("Page.getNavigationHistory")
            entry = history["entries"][history["currentIndex"] + (-1 if step.kind == "back" else 1)]
            c.send("Page.navigateToHistoryEntry", entryId=entry["id"])
        elif step.kind == "key":
            *held, name = step.key.split("+")
            key, code, number = KEYS[name]
            modifiers = 2 if "Control" in held else 0
            c.send("Input.dispatchKeyEvent", type="rawKeyDown" if modifiers else "keyDown", key=key, code=code, windowsVirtualKeyCode=number, modifiers=modifiers)
            c.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=number, modifiers=modifiers)
        else:
            at = c.eval(f"{FIND}({json.dumps(step.role)}, {json.dumps(step.name)})")
            assert at, f"no {step.role} {step.name!r} on the page"
            if step.kind == "click":
                for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
                    c.send("Input.dispatchMouseEvent", type=kind, x=at[0], y=at[1], button="left", clickCount=1)
            else:
                self.drag(at, c.eval(f"{MIDDLE}({json.dumps(step.to)})"))

    def drag(self, start: list[float], end: list[float], steps: int = 10) -> None:
        """A drag as Puppeteer does it: press, move with drags intercepted; a native drag the
        page started is carried out with drag events, any other ends with the release."""
        c = self.start()
        mouse = lambda kind, p, buttons=1: c.send(  # noqa: E731
            "Input.dispatchMouseEvent", type=kind, x=p[0], y=p[1], button="left", buttons=buttons, clickCount=1
        )
        mouse("mouseMoved", start, 0)
        mouse("mousePressed", start)
        c.send("Input.setInterceptDrags", enabled=True)
        seen = len(c.events)
        for i in range(1, steps + 1):
            mouse("mouseMoved", [start[0] + (end[0] - start[0]) * i / steps, start[1] + (end[1] - start[1]) * i / steps])
        drag = next((e for e in c.events[seen:] if e.get("method") == "Input.dragIntercepted"), None)
        if drag is not None:
            data = drag["params"]["data"]
            for kind in ("dragEnter", "dragOver", "drop"):
                c.send("Input.dispatchDragEvent", type=kind, x=end[0], y=end[1], data=data)
        mouse("mouseReleased", end, 0)
        c.send("Input.setInterceptDrags", enabled=False)

    def close(self) -> None:
        if self.browser is not None:
            with contextlib.suppress(Exception):
                self.browser.close()
        if self.chromium is not None:
            self.chromium.close()


async def js(w, expression: str) -> Any:
    return json.loads(await ok(w, "browse_eval_js", {"expression": expression}))


async def wait_in_warden(w, expression: str, timeout: float) -> Any:
    with anyio.move_on_after(timeout):
        while not (value := await js(w, expression)):
            await anyio.sleep(0.1)
        return value
    return None


async def read_in_warden(w, family: Family, run: str = "warden") -> dict[str, Any]:
    """Load the family's page in Warden's browser (`browse_navigate`), do its steps with
    Warden's tools and return its report (`browse_eval_js`: the plugin needs `eval_js`), once
    done or at the timeout."""
    await ok(w, "browse_navigate", {"url": family.url(run)})
    if family.steps:
        assert await wait_in_warden(w, "window.__parityReady === true", family.timeout), f"{family.name}: the page did not get ready"
        for step in family.steps:
            await do_in_warden(w, step)
            assert await wait_in_warden(w, step.until, 5), f"{family.name}: {step} did not lead to {step.until}"
    await wait_in_warden(w, "window.__parityDone === true", family.timeout)
    return await js(w, family.report)


async def do_in_warden(w, step: Step) -> None:
    if step.kind in ("back", "forward"):
        await ok(w, f"browse_{step.kind}")
    elif step.kind == "key":
        await ok(w, "browse_press_key", {"key": step.key})
    else:
        snapshot = await ok(w, "browse_snapshot")
        ref = ref_of(snapshot, step.role, step.name)
        if step.kind == "click":
            await ok(w, "browse_click", {"ref": ref})
        else:
            x, y = await js(w, f"{MIDDLE}({json.dumps(step.to)})")
            await ok(w, "browse_drag", {"ref": ref, "x": x, "y": y})


def differences(family: Family, reference: dict[str, Any], warden: dict[str, Any]) -> list[str]:
    """Where Warden's report departs from the reference's, one line each: a feature missing
    from either, a check that differs, a guarded check the reference did not reach or Warden
    did not refuse. Empty: parity."""
    found = []
    for feature in sorted(set(reference) | set(warden)):
        ref, got = reference.get(feature), warden.get(feature)
        if ref is None or got is None:
            found.append(f"{feature}: reference {ref!r}, Warden {got!r}")
            continue
        for check in sorted(set(ref) | set(got)):
            r, g = ref.get(check), got.get(check)
            if check in family.guarded:
                if (r, g) != ("reached", "refused"):
                    found.append(f"{feature}.{check}: reference {r!r} (expected 'reached'), Warden {g!r} (expected 'refused')")
            elif r != g:
                found.append(f"{feature}.{check}: reference {r!r}, Warden {g!r}")
    return found
