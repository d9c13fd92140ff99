"""Hostile tests of issue 30, class 3: once the host types a secret into a page, nothing the
plugin can read of that page carries it, whatever the page does with it.

The page is a login console on the origin the secret is bound to (`secret_site.py`): its own
"show password" eye turns the filled field into text, its strength meter echoes each
character, its analytics log and beacon the value, "remember me" keeps it (rot13'd) in local
storage and a cookie, "export" downloads it (reversed), "copy password" puts it on the
clipboard. The plugin (driven through the browser plugin's tools, as an agent would) fills the
secret, makes the page reveal it, then tries every door out: pixels (read back with OCR),
PDF text (pdftotext), key chords and drags that move text into a field of a second granted
origin whose server keeps what it is sent, downloads on disk, storage, cookies, saved
states, logs, extraction, snapshots, and waits and searches used as oracles.

Every assertion is on what came out (the image's OCR, the PDF's text, the file on disk, what
the drop server received, the text the tool returned), never on Warden saying it refused.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_helpers import CHROMIUM, ok, ref_of
from conftest import check_audit_line, text_of
from secret_site import SECRET, SecretSite, carries_secret, start_console, start_drop

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

ENV = {"WARDEN_TEST_ACME_PASSWORD": SECRET}


def tool(name: str) -> str:
    """tesseract or pdftotext: failing under CI when missing, skipping elsewhere."""
    path = shutil.which(name)
    if path is None:
        message = f"{name} is not installed; install it (apt-get install tesseract-ocr poppler-utils)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return path


def ocr(image: bytes, tmp_path: Path, name: str) -> str:
    png = tmp_path / f"{name}.png"
    png.write_bytes(image)
    out = subprocess.run([tool("tesseract"), str(png), "stdout"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def pdf_text(pdf: bytes, tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(pdf)
    out = subprocess.run([tool("pdftotext"), str(path), "-"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def images_of(result) -> list[bytes]:
    return [base64.b64decode(b.data) for b in result.content if getattr(b, "type", "") == "image"]


def pdfs_of(result) -> list[bytes]:
    blobs = []
    for b in result.content:
        resource = getattr(b, "resource", None)
        if resource is not None and getattr(resource, "blob", None):
            blobs.append(base64.b64decode(resource.blob))
    return blobs


@pytest.fixture()
def console() -> Iterator[SecretSite]:
    site = start_console()
    yield site
    site.close()


@pytest.fixture()
def drop() -> Iterator[SecretSite]:
    site = start_drop()
    yield site
    site.close()


def manifest(write_manifest, console: SecretSite, drop: SecretSite, grants: str = "") -> object:
    return write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[browser.secrets]
ACME_PASSWORD = {{ env = "WARDEN_TEST_ACME_PASSWORD", origins = ["{console.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "90s" }}
grants.browser = {{ origins = ["{console.origin}", "{drop.origin}"], secrets = ["ACME_PASSWORD"]{grants} }}
""")


async def login_and_reveal(w, console: SecretSite) -> str:
    """Fill the console's login with the secret and press the page's own eye: the field now
    shows the secret as text. Returns the snapshot taken before (its refs stay valid)."""
    snap = await ok(w, "browse_navigate", {"url": console.url("/app/login")})
    await ok(w, "browse_fill", {"ref": ref_of(snap, "textbox", "Work email"), "value": "ops@acme.test"})
    await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Password"), "secret": "ACME_PASSWORD"})
    await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Show password")})
    return snap


def held_denials(m) -> list[dict]:
    """The audit lines of refusals because the page holds a secret."""
    lines = [l for l in m.audit_lines() if l["event"] == "capability_denied" and "holds a secret" in l.get("reason", "")]
    for line in lines:
        check_audit_line(line)
        assert SECRET not in str(line), line
    return lines


async def test_pixels_and_pdf_of_a_revealed_secret(start_warden, write_manifest, console, drop, tmp_path) -> None:
    m = manifest(write_manifest, console, drop)
    async with start_warden(m, env=ENV) as w:
        snap = await login_and_reveal(w, console)
        pw = ref_of(snap, "password", "Password")
        shots = {"viewport": {}, "full": {"full_page": True}, "element": {"ref": pw}, "marked": {"marks": True},
                 "jpeg": {"format": "jpeg"}}
        read: dict[str, str] = {}
        for name, args in shots.items():
            result = await w.call("browse_screenshot", args, timeout=60)
            for i, image in enumerate(images_of(result)):
                read[f"{name}-{i}"] = ocr(image, tmp_path, f"{name}-{i}")
        for name, text in read.items():
            assert not carries_secret(text), f"the {name} screenshot shows the secret: {text!r}"
        result = await w.call("browse_pdf", {"print_background": True}, timeout=60)
        for i, pdf in enumerate(pdfs_of(result)):
            text = pdf_text(pdf, tmp_path, f"page-{i}")
            assert not carries_secret(text), f"the PDF holds the secret: {text!r}"

        # A reload and the history keep the document's hold; only a navigation the plugin
        # chooses gives a fresh document, after which pixels and PDFs work again.
        await ok(w, "browse_reload")
        for i, image in enumerate(images_of(await w.call("browse_screenshot", {}, timeout=60))):
            assert not carries_secret(ocr(image, tmp_path, f"reloaded-{i}")), "the reloaded page shows the secret"
        fresh = await ok(w, "browse_navigate", {"url": console.url("/app/login")})
        assert "Work email" in fresh, fresh
        result = await w.call("browse_screenshot", {}, timeout=60)
        assert not result.is_error, text_of(result)
        text = ocr(images_of(result)[0], tmp_path, "fresh")
        assert "email" in text.lower() and not carries_secret(text), text
        pdf = await w.call("browse_pdf", {}, timeout=60)
        assert not pdf.is_error, text_of(pdf)
        assert "Work email" in pdf_text(pdfs_of(pdf)[0], tmp_path, "fresh")
        # Back to the revealed page: not through the history (it was dropped), nor the cache.
        back = await w.call("browse_back", {}, timeout=60)
        for i, image in enumerate(images_of(await w.call("browse_screenshot", {}, timeout=60))):
            assert not carries_secret(ocr(image, tmp_path, f"back-{i}")), ("back shows the secret", text_of(back))
    refusals = held_denials(m)
    assert len(refusals) >= 6, m.audit_lines()


async def test_clipboard_and_drags_do_not_move_a_secret(start_warden, write_manifest, console, drop) -> None:
    m = manifest(write_manifest, console, drop)
    async with start_warden(m, env=ENV) as w:
        snap = await login_and_reveal(w, console)
        pw, note = ref_of(snap, "password", "Password"), ref_of(snap, "textbox", "Note to support")
        # Select the revealed text and copy it with every chord a keyboard has for that; the
        # page's own "Copy password" button too.
        await w.call("browse_click", {"ref": pw})
        for chord in ("Control+a", "Control+c", "Control+Insert"):
            await w.call("browse_press_key", {"key": chord})
        await w.call("browse_click", {"ref": ref_of(snap, "button", "Copy password")})
        # Drag the selected text into the note field of the same page.
        await w.call("browse_press_key", {"key": "Control+a"})
        await w.call("browse_drag", {"ref": pw, "to_ref": note})
        # And paste it there.
        await w.call("browse_click", {"ref": note})
        await w.call("browse_press_key", {"key": "Control+v"})

        # Then a tab of the drop origin: paste every way there is, and save the note.
        await ok(w, "browse_tabs", {"action": "new"})
        notes = await ok(w, "browse_navigate", {"url": drop.url("/notes")})
        scratch = ref_of(notes, "textbox", "Scratch")
        for how in ({"key": "Control+v"}, {"key": "Shift+Insert"}, {"key": "Control+Shift+v"}):
            await w.call("browse_click", {"ref": scratch})
            await w.call("browse_press_key", how)
        await w.call("browse_click", {"ref": scratch, "button": "middle"})
        read_drop = await ok(w, "browse_snapshot", {"mode": "full"})
        await ok(w, "browse_click", {"ref": ref_of(notes, "button", "Save note")})
        await ok(w, "browse_wait_for", {"text": "Save note", "timeout_ms": 2000})
        await ok(w, "browse_tabs", {"action": "switch", "tab": 1})
        read_console = await w.call("browse_snapshot", {"mode": "full"}, timeout=60)
    saved = drop.got("/api/notes")
    assert saved, drop.received
    for r in saved:
        assert not carries_secret(r.text()), f"the drop server received the secret: {r}"
    assert not carries_secret(read_drop), read_drop
    assert not carries_secret(text_of(read_console)), text_of(read_console)
    assert len(held_denials(m)) >= 3, m.audit_lines()


async def test_downloads_storage_cookies_and_saved_states(start_warden, write_manifest, console, drop, tmp_path) -> None:
    downloads = tmp_path / "downloads"
    m = manifest(write_manifest, console, drop, f', cookies = true, download_dir = "{downloads}"')
    async with start_warden(m, env=ENV) as w:
        snap = await login_and_reveal(w, console)
        await w.call("browse_click", {"ref": ref_of(snap, "button", "Export form")})
        await w.call("browse_downloads", {"wait": True, "timeout_ms": 3000})
        await w.call("browse_click", {"ref": ref_of(snap, "button", "Remember me on this device")})
        outputs = [
            text_of(await w.call("browse_storage", {})),
            text_of(await w.call("browse_storage", {"area": "session"})),
            text_of(await w.call("browse_cookies", {})),
            text_of(await w.call("browse_downloads", {})),
        ]
        await w.call("browse_session", {"action": "save_state", "state": "after-login"})
        # A fresh document of the same origin reads the same storage and cookies.
        await ok(w, "browse_navigate", {"url": console.url("/app/home")})
        outputs += [text_of(await w.call("browse_storage", {})), text_of(await w.call("browse_cookies", {}))]
        # A session opened from the saved state, in another session of the plugin.
        await w.call("browse_session", {"action": "create", "name": "replay", "state": "after-login"})
        await w.call("browse_session", {"action": "switch", "name": "replay"})
        await w.call("browse_navigate", {"url": console.url("/app/home")})
        outputs += [text_of(await w.call("browse_storage", {})), text_of(await w.call("browse_cookies", {}))]
    for out in outputs:
        assert not carries_secret(out), out
    files = [p for p in downloads.rglob("*") if p.is_file()] if downloads.exists() else []
    for path in files:
        assert not carries_secret(path.read_text(errors="replace")), f"{path} holds the secret"
    assert len(held_denials(m)) >= 2, m.audit_lines()


async def test_logs_text_and_oracles(start_warden, write_manifest, console, drop) -> None:
    m = manifest(write_manifest, console, drop)
    async with start_warden(m, env=ENV) as w:
        await login_and_reveal(w, console)
        outputs = {
            "console": text_of(await w.call("browse_console", {})),
            "network": text_of(await w.call("browse_network", {})),
            "snapshot": text_of(await w.call("browse_snapshot", {"mode": "full", "max_tokens": 8000})),
        }
        for fmt in ("text", "markdown", "html"):
            outputs[f"extract {fmt}"] = text_of(await w.call("browse_extract", {"format": fmt}))

        # Oracles: a guess that is right must answer exactly as one that is wrong.
        async def answers(tool: str, right: str, wrong: str, key: str, **more) -> None:
            a = await w.call(tool, {key: right, **more}, timeout=60)
            b = await w.call(tool, {key: wrong, **more}, timeout=60)
            a_text, b_text = text_of(a).replace(right, "?"), text_of(b).replace(wrong, "?")
            assert (a.is_error, a_text) == (b.is_error, b_text), (tool, right, a_text, b_text)

        await answers("browse_wait_for", "K E S T", "Q Z X W", "text", timeout_ms=300)
        await answers("browse_wait_for", "#pw[value^=KES]", "#pw[value^=QZX]", "selector", timeout_ms=300)
        await answers("browse_find", "K E S", "Q Z X", "query")

        # The entries logged while the page held the secret stay withheld after the plugin
        # moves on to a fresh document.
        await ok(w, "browse_navigate", {"url": console.url("/app/home")})
        outputs["console after"] = text_of(await w.call("browse_console", {}))
        outputs["network after"] = text_of(await w.call("browse_network", {}))
    for name, out in outputs.items():
        assert not carries_secret(out), f"{name} carries the secret: {out}"
    # The page's own beacons went to its own server: the origin the secret is for.
    assert console.got("/api/analytics"), console.received
    assert len(held_denials(m)) >= 4, m.audit_lines()
