"""The web platform parity suite's harness: one page per feature family, loaded in a plain
headless Chromium (the reference: the same binary with the flags a user would try it with,
no Warden) and in Warden's browser through the browser plugin's tools, and the two results
compared. A page reports into `window.__parity` (a JSON object: one entry per feature, each
a dict of checks) and sets `window.__parityDone` when every feature has reported. The pages
tag their requests with `run=<run>` from their own query, so one set of fixture servers
serves both runs and a test tells what each browser's run sent.

A check Warden is meant to change is named in `guarded`: the reference must report
`reached` there (so the page really tried) and Warden `refused` (its network guard); every
other check must come out the same in both.

Families (the pages live in their own `*_site.py`):

| family | page | what it runs |
|---|---|---|
| workers | `worker_site.py` | dedicated (file, `blob:`, `data:`), module (file, `blob:`), nested, `importScripts`, shared and service workers, audio and paint worklets |
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

from browser_helpers import CHROMIUM, ok

# What a user would start plain headless Chromium with to try a page.
PROBE_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
)


@dataclass(frozen=True)
class Family:
    """One page of the suite: `url(run)` is its address for one run; `guarded` the checks
    Warden's guard must refuse (see the module's doc)."""

    name: str
    url: Callable[[str], str]
    guarded: frozenset[str] = frozenset()
    timeout: float = 20.0


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

    def read(self, family: Family, run: str = "reference") -> dict[str, Any]:
        """Load the family's page and return its report (whatever it had at the timeout)."""
        if self.chromium is None:
            self.chromium = DevToolsChromium(self.dir)
        self.chromium.send("Page.navigate", url=family.url(run))
        self.chromium.wait("window.__parityDone === true", family.timeout)
        return self.chromium.eval("window.__parity || {}")

    def close(self) -> None:
        if self.chromium is not None:
            self.chromium.close()


async def read_in_warden(w, family: Family, run: str = "warden") -> dict[str, Any]:
    """Load the family's page in Warden's browser (`browse_navigate`) and return its report
    (`browse_eval_js`: the plugin needs `eval_js`), once done or at the timeout."""
    await ok(w, "browse_navigate", {"url": family.url(run)})
    with anyio.move_on_after(family.timeout):
        while json.loads(await ok(w, "browse_eval_js", {"expression": "window.__parityDone === true"})) is not True:
            await anyio.sleep(0.1)
    return json.loads(await ok(w, "browse_eval_js", {"expression": "window.__parity || {}"}))


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
