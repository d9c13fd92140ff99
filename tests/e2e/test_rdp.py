"""Remote desktops end to end: warden serve over stdio, the official MCP client, and FreeRDP's
shadow server sharing an Xvfb display (rdp_server.py) with NLA and a pinned certificate."""

from __future__ import annotations

import base64
import json
import struct
import time
import zlib

import anyio
import pytest

from rdp_server import BACKGROUND, HEIGHT, WIDTH, RdpServer, rdp_server, start_rdp_server, stop_rdp_server  # noqa: F401

pytestmark = pytest.mark.anyio

WRONG_PASSWORD = "Wr0ng-Horse-Battery"
# The xterms (rdp_server.XTERM_A, XTERM_B): a point inside each, clear of their text.
IN_XTERM_A = (400, 380)
IN_XTERM_B = (700, 520)


def manifest_text(server: RdpServer, hosts: str = "", grants: str = 'hosts = ["desk"]') -> str:
    return (hosts or server.host_block()) + (
        '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'limits = { call_timeout = "120s", output = "8MiB" }\n'
        f"grants.rdp = {{ {grants} }}\n"
    )


def png_rgb(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB rows of an 8-bit RGB, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert (depth, color) == (8, 2), (depth, color)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * 3, [], bytearray(width * 3)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b, c = prev[i], prev[i - 3] if i >= 3 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def pixel(rows: list[bytes], x: int, y: int) -> tuple[int, int, int]:
    return tuple(rows[y][x * 3 : x * 3 + 3])  # type: ignore[return-value]


def near(a: tuple[int, int, int], b: tuple[int, int, int], tolerance: int = 24) -> bool:
    # Colours can arrive slightly off after the server's codecs.
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


async def ok(w, helpers, tool: str, args: dict, outputs: list[str] | None = None, timeout: float = 60):
    result = await w.call(tool, args, timeout=timeout)
    assert not result.is_error, helpers.text_of(result)
    if outputs is not None:
        outputs.append(helpers.text_of(result))
        outputs.append(json.dumps(result.structured_content or {}))
    return result


async def screenshot(w, helpers, sid: str, **kw) -> tuple[int, int, list[bytes]]:
    result = await ok(w, helpers, "terminal_screenshot", {"session_id": sid, **kw})
    images = [b for b in result.content if b.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png", result.content
    return png_rgb(base64.b64decode(images[0].data))


async def wait_file(path, text: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text():
            return
        await anyio.sleep(0.1)
    raise AssertionError(f"{path} did not get {text!r}: {path.read_text() if path.exists() else 'missing'}")


async def test_screenshot_typing_clicks_chords_and_listing(rdp_server, start_warden, write_manifest, helpers):
    manifest = write_manifest(manifest_text(rdp_server))
    outputs: list[str] = []
    async with start_warden(manifest) as w:
        opened = await ok(w, helpers, "terminal_open", {"rdp": "desk"}, outputs)
        info = opened.structured_content
        sid = info["id"]
        assert sid.startswith("rdp-") and info["type"] == "rdp", info
        assert (info["width"], info["height"]) == (WIDTH, HEIGHT), info

        # The whole desktop: the background colour where no window is, the xterms' white.
        deadline = time.monotonic() + 10
        while True:
            width, height, rows = await screenshot(w, helpers, sid)
            assert (width, height) == (WIDTH, HEIGHT)
            ready = near(pixel(rows, 20, 20), BACKGROUND) and near(pixel(rows, *IN_XTERM_A), (255, 255, 255))
            if ready or time.monotonic() > deadline:
                break
            await anyio.sleep(0.2)
        for x, y in ((20, 20), (1000, 20), (20, 740), (900, 300)):
            assert near(pixel(rows, x, y), BACKGROUND), (x, y, pixel(rows, x, y))
        assert near(pixel(rows, *IN_XTERM_B), (255, 255, 255)), pixel(rows, *IN_XTERM_B)

        # A region, scaled: a quarter of the pixels, still the background colour.
        width, height, rows = await screenshot(
            w, helpers, sid, region={"x": 0, "y": 0, "width": 200, "height": 80}, scale=0.5
        )
        assert (width, height) == (100, 40) and near(pixel(rows, 50, 20), BACKGROUND)

        # A click focuses the xterm under it: typed text runs in that window's shell.
        await ok(w, helpers, "terminal_mouse", {"session_id": sid, "action": "click", "x": IN_XTERM_A[0], "y": IN_XTERM_A[1]}, outputs)
        await ok(w, helpers, "terminal_write", {"session_id": sid, "text": "echo typed-in-a > out.txt\n"}, outputs)
        await wait_file(rdp_server.shell_a / "out.txt", "typed-in-a")
        await ok(w, helpers, "terminal_mouse", {"session_id": sid, "action": "click", "x": IN_XTERM_B[0], "y": IN_XTERM_B[1]}, outputs)
        # A key chord: text without a newline, then enter.
        await ok(w, helpers, "terminal_write", {"session_id": sid, "text": "echo Typed-In-B! > out.txt", "keys": ["enter"]}, outputs)
        await wait_file(rdp_server.shell_b / "out.txt", "Typed-In-B!")
        assert "Typed-In-B" not in (rdp_server.shell_a / "out.txt").read_text()

        # The screen changes after input, and is still afterwards.
        await ok(w, helpers, "terminal_write", {"session_id": sid, "text": "echo", "wait_ms": 0})
        waited = await ok(w, helpers, "terminal_wait", {"session_id": sid, "until": "still", "still_ms": 300})
        assert waited.structured_content["happened"] is True
        await ok(w, helpers, "terminal_mouse", {"session_id": sid, "action": "scroll", "x": 500, "y": 300, "scroll_y": -2}, outputs)
        bad = await w.call("terminal_write", {"session_id": sid, "keys": ["ctrl+nokey"]})
        assert bad.is_error and "unknown key" in helpers.text_of(bad)
        outside = await w.call("terminal_mouse", {"session_id": sid, "action": "click", "x": 5000, "y": 10})
        assert outside.is_error and "outside" in helpers.text_of(outside)

        # Listed as a session of type rdp, in the tool and the resources.
        listed = await ok(w, helpers, "terminal_list_sessions", {}, outputs)
        assert sid in helpers.text_of(listed)
        res = await w.session.read_resource("sessions://list")
        entry = next(e for e in json.loads(res.contents[0].text) if e["id"] == sid)
        assert entry["type"] == "rdp" and entry["target"] == "rdp:desk" and entry["bytes_received"] > 0, entry
        res = await w.session.read_resource(f"sessions://{sid}/info")
        info = json.loads(res.contents[0].text)
        assert info["width"] == WIDTH and "uptime_secs" in info, info

        await ok(w, helpers, "terminal_close", {"session_id": sid}, outputs)
        gone = await w.call("terminal_screenshot", {"session_id": sid})
        assert gone.is_error and "no remote desktop session" in helpers.text_of(gone)
        stderr = w.stderr()

    # Audit: open, inputs (kind, coordinates, key names; text as its length), screenshots, close.
    used = [l for l in manifest.audit_lines() if l["event"] == "capability_used"]
    for line in manifest.audit_lines():
        helpers.check_audit_line(line)
    caps = {l["capability"] for l in used}
    assert {"rdp.open", "rdp.click", "rdp.type", "rdp.keys", "rdp.scroll", "rdp.screenshot", "rdp.close"} <= caps, caps
    typed = [l for l in used if l["capability"] == "rdp.type"]
    assert any(l.get("detail") == "typed 26 characters" for l in typed), typed
    assert any(l.get("detail") == "left click at (400, 380)" for l in used if l["capability"] == "rdp.click")
    shots = [l for l in used if l["capability"] == "rdp.screenshot"]
    assert any(l.get("detail") == "1024x768" and l.get("bytes", 0) > 0 for l in shots), shots
    audit_text = manifest.audit.read_text()
    assert "typed-in-a" not in audit_text and "Typed-In-B" not in audit_text
    # The password is nowhere: outputs, log, audit.
    for text in (*outputs, stderr, audit_text):
        assert rdp_server.password not in text


async def test_wrong_password_and_unknown_or_changed_certificates_are_refused(
    rdp_server, start_warden, write_manifest, helpers
):
    hosts = (
        rdp_server.host_block("desk")
        + rdp_server.host_block("badpass").replace(rdp_server.password, WRONG_PASSWORD)
        + rdp_server.host_block("nopin", pin=None)
        + rdp_server.host_block("changed", pin=rdp_server.other_fingerprint)
    )
    manifest = write_manifest(
        manifest_text(rdp_server, hosts, grants='hosts = ["desk", "badpass", "nopin", "changed"]')
    )
    shown = ":".join(rdp_server.fingerprint[i : i + 2] for i in range(0, 64, 2))
    outputs: list[str] = []
    async with start_warden(manifest) as w:
        bad = await w.call("terminal_open", {"rdp": "badpass"}, timeout=60)
        assert bad.is_error and "refused the logon" in helpers.text_of(bad), helpers.text_of(bad)
        assert "rdp.hosts.badpass" in helpers.text_of(bad)

        unknown = await w.call("terminal_open", {"rdp": "nopin"}, timeout=60)
        text = helpers.text_of(unknown)
        assert unknown.is_error and "none is pinned" in text and shown in text, text

        changed = await w.call("terminal_open", {"rdp": "changed"}, timeout=60)
        text = helpers.text_of(changed)
        assert changed.is_error and "not the one pinned" in text and shown in text, text

        # Not granted: refused before any connection, naming the grant.
        denied = await w.call("terminal_open", {"rdp": "elsewhere"})
        assert denied.is_error and "grants.rdp.hosts" in helpers.text_of(denied)

        # None of them left a connection open, and the good host still works.
        good = await ok(w, helpers, "terminal_open", {"rdp": "desk"}, outputs)
        await ok(w, helpers, "terminal_close", {"session_id": good.structured_content["id"]}, outputs)
        outputs += [helpers.text_of(r) for r in (bad, unknown, changed, denied)]
        stderr = w.stderr()
    for text in (*outputs, stderr, manifest.audit.read_text()):
        assert rdp_server.password not in text and WRONG_PASSWORD not in text


async def test_read_only_refuses_input_but_shows_the_screen(rdp_server, start_warden, write_manifest, helpers):
    manifest = write_manifest(manifest_text(rdp_server, grants='hosts = ["desk"], read_only = true'))
    async with start_warden(manifest) as w:
        sid = (await ok(w, helpers, "terminal_open", {"rdp": "desk"})).structured_content["id"]
        await screenshot(w, helpers, sid, scale=0.25)
        for tool, args in (
            ("terminal_mouse", {"action": "click", "x": 10, "y": 10}),
            ("terminal_write", {"text": "echo nope > ro.txt\n"}),
            ("terminal_write", {"keys": ["ctrl+alt+delete"]}),
            # Not input to the desktop's content, but it rearranges the remote desktop.
            ("terminal_resize", {"width": 800, "height": 600}),
        ):
            refused = await w.call(tool, {"session_id": sid, **args})
            assert refused.is_error and "read_only" in helpers.text_of(refused), helpers.text_of(refused)
        await ok(w, helpers, "terminal_close", {"session_id": sid})
    denied = [l for l in manifest.audit_lines() if l["event"] == "capability_denied"]
    assert len(denied) == 4, denied
    assert not (rdp_server.shell_a / "ro.txt").exists() and not (rdp_server.shell_b / "ro.txt").exists()


async def test_open_close_cycles_leave_no_connection(rdp_server, start_warden, write_manifest, helpers):
    # The password from the environment this time.
    hosts = rdp_server.host_block(password_env="WARDEN_TEST_RDP_PASSWORD")
    manifest = write_manifest(manifest_text(rdp_server, hosts))
    async with start_warden(manifest, env={"WARDEN_TEST_RDP_PASSWORD": rdp_server.password}) as w:
        for _ in range(20):
            sid = (await ok(w, helpers, "terminal_open", {"rdp": "desk"})).structured_content["id"]
            await ok(w, helpers, "terminal_close", {"session_id": sid})
        listed = await ok(w, helpers, "terminal_list_sessions", {})
        assert "rdp-" not in helpers.text_of(listed)
        assert await helpers.wait_for(lambda: rdp_server.connections() == 0, timeout=10), rdp_server.connections()


async def complete_frame(w, helpers, sid: str, timeout: float = 10) -> tuple[int, int, list[bytes]]:
    """Screenshots until the background and the first xterm's white show (the first full frame)."""
    deadline = time.monotonic() + timeout
    while True:
        width, height, rows = await screenshot(w, helpers, sid)
        if near(pixel(rows, 20, 20), BACKGROUND) and near(pixel(rows, *IN_XTERM_A), (255, 255, 255)):
            return width, height, rows
        assert time.monotonic() < deadline, (pixel(rows, 20, 20), pixel(rows, *IN_XTERM_A))
        await anyio.sleep(0.2)


async def session_info(w, sid: str) -> dict:
    res = await w.session.read_resource(f"sessions://{sid}/info")
    return json.loads(res.contents[0].text)


@pytest.mark.parametrize("remotefx", [True, False], ids=["remotefx", "bitmap"])
async def test_codecs_remotefx_and_bitmap_paint_the_same_pixels(
    rdp_server, start_warden, write_manifest, helpers, remotefx
):
    # RemoteFX is offered by default; `remotefx = false` leaves the server bitmap updates.
    manifest = write_manifest(manifest_text(rdp_server, rdp_server.host_block(remotefx=None if remotefx else False)))
    async with start_warden(manifest) as w:
        sid = (await ok(w, helpers, "terminal_open", {"rdp": "desk"})).structured_content["id"]
        width, height, rows = await complete_frame(w, helpers, sid)
        assert (width, height) == (WIDTH, HEIGHT)
        for x, y in ((20, 20), (1000, 20), (20, 740), (900, 300)):
            assert near(pixel(rows, x, y), BACKGROUND), (x, y, pixel(rows, x, y))
        assert near(pixel(rows, *IN_XTERM_B), (255, 255, 255)), pixel(rows, *IN_XTERM_B)
        # The shell's prompt shows in black at the xterm's top left (window at 100, 100).
        prompt = [pixel(rows, x, y) for x in range(100, 130) for y in range(100, 120)]
        assert any(max(p) < 100 for p in prompt), "no prompt in the xterm"

        info = await session_info(w, sid)
        assert info["codec"] == ("remotefx" if remotefx else "bitmap"), info
        listed = await ok(w, helpers, "terminal_list_sessions", {})
        assert f"({info['codec']})" in helpers.text_of(listed)
        await ok(w, helpers, "terminal_close", {"session_id": sid})


async def test_resize_is_asked_for_and_the_servers_answer_is_reported(
    rdp_server, start_warden, write_manifest, helpers
):
    manifest = write_manifest(manifest_text(rdp_server))
    async with start_warden(manifest) as w:
        # An initial size: FreeRDP's shadow server mirrors its 1024x768 screen whatever the client asks.
        opened = await ok(w, helpers, "terminal_open", {"rdp": "desk", "width": 800, "height": 600})
        sid = opened.structured_content["id"]
        assert (opened.structured_content["width"], opened.structured_content["height"]) == (WIDTH, HEIGHT)
        assert "800x600 was asked for, the server chose 1024x768" in helpers.text_of(opened)

        # Sizes outside MS-RDPEDISP's limits are refused before anything is sent, saying what fits.
        for args, expected in (
            ({"width": 801, "height": 600}, "use 800 or 802"),
            ({"width": 100, "height": 600}, "from 200 to 8192"),
            ({"width": 800, "height": 9000}, "from 200 to 8192"),
            ({"cols": 80, "rows": 24}, "in pixels"),
        ):
            bad = await w.call("terminal_resize", {"session_id": sid, **args})
            assert bad.is_error and expected in helpers.text_of(bad), helpers.text_of(bad)

        # The shadow server offers no Display Control channel: Warden reconnects at the new
        # size (same credentials and pin), and the server keeps its screen's size.
        resized = await ok(w, helpers, "terminal_resize", {"session_id": sid, "width": 800, "height": 600})
        s = resized.structured_content
        assert s["method"] == "reconnect" and s["requested"] == {"width": 800, "height": 600}, s
        assert (s["width"], s["height"]) == (WIDTH, HEIGHT) and s["connected"] and s["reconnects"] == 1, s
        assert "the server kept the desktop at 1024x768" in helpers.text_of(resized)
        width, height, _ = await complete_frame(w, helpers, sid)
        assert (width, height) == (WIDTH, HEIGHT)
        await ok(w, helpers, "terminal_close", {"session_id": sid})

    resizes = [l for l in manifest.audit_lines() if l.get("capability") == "rdp.resize"]
    assert len(resizes) == 1 and resizes[0]["detail"] == "1024x768 to 800x600 asked, 1024x768 by reconnect", resizes
    for text in (manifest.audit.read_text(),):
        assert rdp_server.password not in text


async def test_the_framebuffer_follows_a_server_side_resolution_change(
    tmp_path, start_warden, write_manifest, helpers
):
    # A server of its own: its screen changes size.
    server = start_rdp_server(tmp_path / "rdp")
    try:
        manifest = write_manifest(manifest_text(server))
        async with start_warden(manifest) as w:
            sid = (await ok(w, helpers, "terminal_open", {"rdp": "desk"})).structured_content["id"]
            await complete_frame(w, helpers, sid)
            server.set_screen(800, 600)
            deadline = time.monotonic() + 20
            while (info := await session_info(w, sid))["width"] != 800 or not info["connected"]:
                assert time.monotonic() < deadline, info
                await anyio.sleep(0.2)
            assert info["height"] == 600, info
            width, height, rows = await complete_frame(w, helpers, sid)
            assert (width, height) == (800, 600)
            assert near(pixel(rows, 790, 20), BACKGROUND) and near(pixel(rows, 20, 590), BACKGROUND)
            # Coordinates beyond the new edge are refused; inside, input works.
            outside = await w.call("terminal_mouse", {"session_id": sid, "action": "click", "x": 900, "y": 10})
            assert outside.is_error and "outside the 800x600 desktop" in helpers.text_of(outside)
            await ok(w, helpers, "terminal_mouse", {"session_id": sid, "action": "click", "x": IN_XTERM_A[0], "y": IN_XTERM_A[1]})
            await ok(w, helpers, "terminal_write", {"session_id": sid, "text": "echo after-resize > out.txt\n"})
            await wait_file(server.shell_a / "out.txt", "after-resize")
            await ok(w, helpers, "terminal_close", {"session_id": sid})
    finally:
        stop_rdp_server(server)


async def test_a_dropped_connection_comes_back_or_ends_with_a_clear_error(
    tmp_path, start_warden, write_manifest, helpers
):
    server = start_rdp_server(tmp_path / "rdp")
    try:
        manifest = write_manifest(manifest_text(server))
        async with start_warden(manifest) as w:
            sid = (await ok(w, helpers, "terminal_open", {"rdp": "desk"})).structured_content["id"]
            await complete_frame(w, helpers, sid)

            # The server restarts (same port, same certificate): the session reconnects by itself.
            server.restart_shadow()
            deadline = time.monotonic() + 20
            while not ((info := await session_info(w, sid))["connected"] and info["reconnects"] >= 1):
                assert time.monotonic() < deadline and not info["ended"], info
                await anyio.sleep(0.2)
            await complete_frame(w, helpers, sid)
            await ok(w, helpers, "terminal_mouse", {"session_id": sid, "action": "click", "x": IN_XTERM_A[0], "y": IN_XTERM_A[1]})
            await ok(w, helpers, "terminal_write", {"session_id": sid, "text": "echo reconnected > out.txt\n"})
            await wait_file(server.shell_a / "out.txt", "reconnected")

            # The server goes away for good: after 3 tries (1, 2, 4 s apart) the session ends,
            # and every call on it but info and close says so.
            server.stop_shadow()
            deadline = time.monotonic() + 40
            while not (info := await session_info(w, sid))["ended"]:
                assert time.monotonic() < deadline, info
                await anyio.sleep(0.5)
            assert info["state"] == "ended" and not info["connected"], info
            for tool, args in (
                ("terminal_write", {"text": "x"}),
                ("terminal_screenshot", {}),
                ("terminal_resize", {"width": 800, "height": 600}),
            ):
                gone = await w.call(tool, {"session_id": sid, **args})
                text = helpers.text_of(gone)
                assert gone.is_error and "has ended" in text and "3 reconnection attempts failed" in text, text
                assert "terminal_close" in text, text
            listed = await ok(w, helpers, "terminal_list_sessions", {})
            assert f"{sid}" in helpers.text_of(listed) and "ended" in helpers.text_of(listed)
            await ok(w, helpers, "terminal_close", {"session_id": sid})
            stderr = w.stderr()
        assert server.password not in stderr and server.password not in manifest.audit.read_text()
    finally:
        stop_rdp_server(server)
