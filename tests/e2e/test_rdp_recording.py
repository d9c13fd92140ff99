"""Remote-desktop recordings ([audit] record = ["rdp"]) against the real RDP test desktop
(rdp_server.py): the recording's keyframes and patches rebuild, at each screenshot the plugin
took, exactly the picture the plugin received; the input Warden sent is recorded in order; a
still desktop writes no frames; audit lines of the session find the recording."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import anyio
import pytest

from rdp_server import BACKGROUND, HEIGHT, WIDTH, rdp_server  # noqa: F401
from test_rdp import IN_XTERM_A, IN_XTERM_B, manifest_text, near, ok, pixel, png_rgb, wait_file

pytestmark = pytest.mark.anyio

FRAME_RATE = 4


class Shots:
    """The full-size screenshots the plugin received, in order, as RGB rows."""

    def __init__(self, w, helpers, sid: str) -> None:
        self.w, self.helpers, self.sid, self.taken = w, helpers, sid, []

    async def take(self, **kw) -> list[bytes]:
        result = await ok(self.w, self.helpers, "terminal_screenshot", {"session_id": self.sid, **kw})
        images = [b for b in result.content if b.type == "image"]
        assert len(images) == 1, result.content
        _, _, rows = png_rgb(base64.b64decode(images[0].data))
        self.taken.append(rows)
        return rows


def read_recording(path: Path) -> tuple[dict, list[list]]:
    lines = path.read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def frames_at_shots(events: list[list]) -> dict[int, tuple[dict, list[bytearray]]]:
    """Replay keyframes and patches as a viewer does (draw the keyframe, paint each patch at
    (x, y)); the frame as it stands at each screenshot's event, by the shot's number."""
    frame: list[bytearray] = []
    at_shot = {}
    for _, code, data in events:
        if code == "k":
            width, height, rows = png_rgb(base64.b64decode(data["png"]))
            assert (width, height) == (data["width"], data["height"])
            frame = [bytearray(r) for r in rows]
        elif code == "d":
            assert frame, "a patch before any keyframe"
            for p in data["patches"]:
                w, h, rows = png_rgb(base64.b64decode(p["png"]))
                assert (w, h) == (p["w"], p["h"]), p
                for dy, row in enumerate(rows):
                    frame[p["y"] + dy][p["x"] * 3 : (p["x"] + w) * 3] = row
        else:
            continue
        if "shot" in data:
            at_shot[data["shot"]["n"]] = (data["shot"], [bytes(r) for r in frame])
    return at_shot


async def test_frames_rebuild_every_screenshot_inputs_are_in_order_and_a_still_desktop_costs_nothing(
    rdp_server, start_warden, write_manifest, helpers, tmp_path
):
    audit = f'[audit]\nrecord = ["rdp"]\nframe_rate = {FRAME_RATE}\n\n'
    manifest = write_manifest(audit + manifest_text(rdp_server))
    async with start_warden(manifest) as w:
        sid = (await ok(w, helpers, "terminal_open", {"rdp": "desk"})).structured_content["id"]
        shots = Shots(w, helpers, sid)
        deadline = time.monotonic() + 10
        while True:
            rows = await shots.take()
            if near(pixel(rows, 20, 20), BACKGROUND) and near(pixel(rows, *IN_XTERM_A), (255, 255, 255)):
                break
            assert time.monotonic() < deadline, "no full frame"
            await anyio.sleep(0.2)

        # The desktop changes: typing in one xterm, a click in the other, a chord; a picture
        # after each, some taken at once (while the screen still changes), some once still.
        await ok(w, helpers, "terminal_mouse", {"session_id": sid, "action": "click", "x": IN_XTERM_A[0], "y": IN_XTERM_A[1]})
        await ok(w, helpers, "terminal_write", {"session_id": sid, "text": "echo recorded-one > rec.txt\n", "wait_ms": 0})
        await shots.take()
        await wait_file(rdp_server.shell_a / "rec.txt", "recorded-one")
        await shots.take()
        await ok(w, helpers, "terminal_mouse", {"session_id": sid, "action": "click", "x": IN_XTERM_B[0], "y": IN_XTERM_B[1]})
        await ok(w, helpers, "terminal_write", {"session_id": sid, "text": "echo Two-Recorded", "keys": ["enter"]})
        await shots.take()
        await ok(w, helpers, "terminal_write", {"session_id": sid, "text": "seq 1 40", "keys": ["enter"], "wait_ms": 0})
        await shots.take()
        await shots.take(region={"x": 100, "y": 100, "width": 300, "height": 200}, scale=0.5)

        # Still: two pictures 1.5 s apart, and no frame between them in the recording.
        waited = await ok(w, helpers, "terminal_wait", {"session_id": sid, "until": "still", "still_ms": 500})
        assert waited.structured_content["happened"] is True
        await shots.take()
        await anyio.sleep(1.5)
        await shots.take()
        still = (len(shots.taken) - 1, len(shots.taken))

        # A resize (the shadow server answers it by a reconnect at its own size): recorded,
        # and the frames after it still rebuild each screenshot.
        await ok(w, helpers, "terminal_resize", {"session_id": sid, "width": 800, "height": 600})
        deadline = time.monotonic() + 10
        while True:
            rows = await shots.take()
            if near(pixel(rows, 20, 20), BACKGROUND) and near(pixel(rows, *IN_XTERM_A), (255, 255, 255)):
                break
            assert time.monotonic() < deadline, "no full frame after the resize"
            await anyio.sleep(0.2)
        await ok(w, helpers, "terminal_close", {"session_id": sid})

    lines = manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    mine = [line for line in lines if line.get("target", "").endswith(f"session {sid}")]
    assert {"rdp.open", "rdp.click", "rdp.type", "rdp.keys", "rdp.screenshot", "rdp.close"} <= {
        line["capability"] for line in mine
    }, mine
    # Every audit line of the desktop names its recording, at growing offsets.
    links = [line["recording"] for line in mine]
    assert len({link["file"] for link in links}) == 1, links
    offsets = [link["t"] for link in links]
    assert offsets == sorted(offsets), offsets
    path = Path(links[0]["file"])
    if not path.is_absolute():
        path = tmp_path / path
    assert path.parent.parent == tmp_path / "recordings" and path.name == f"{sid}.jsonl", path
    assert path.stat().st_mode & 0o777 == 0o600
    # The typed text is in the recording (as sensitive as the session), not in the audit log.
    audit_text = manifest.audit.read_text()
    assert "recorded-one" not in audit_text and "Two-Recorded" not in audit_text
    # The desktop's password went into the logon, never into input: not in the recording.
    assert rdp_server.password not in path.read_text()

    header, events = read_recording(path)
    assert header["format"] == "warden-recording" and header["kind"] == "rdp", header
    assert (header["width"], header["height"]) == (WIDTH, HEIGHT), header
    assert header["warden"]["session"] == sid and header["warden"]["target"] == "rdp:desk", header
    assert header["extra"]["frame_rate"] == FRAME_RATE, header
    times = [e[0] for e in events]
    assert times == sorted(times), "times are not monotonic"
    assert events[0][1] == "k", events[0][:2]

    # Each picture the plugin received is what the recording shows at that screenshot:
    # pixel for pixel (PNG is lossless and both come from the same copy of the framebuffer).
    at_shot = frames_at_shots(events)
    assert sorted(at_shot) == list(range(1, len(shots.taken) + 1)), (sorted(at_shot), len(shots.taken))
    for n, rows in enumerate(shots.taken, start=1):
        shot, frame = at_shot[n]
        if shot["scale"] == 1 and (shot["width"], shot["height"]) == (WIDTH, HEIGHT):
            assert frame == rows, f"screenshot {n} differs from the recording's frame"
        else:
            # A region at half scale: the recording holds the whole desktop it came from.
            assert shot == {"n": n, "x": 100, "y": 100, "width": 300, "height": 200, "scale": 0.5}, shot
            assert len(frame) == HEIGHT and len(rows) == 100

    # Between keyframes the changes are patches, not whole frames.
    patches = [e for e in events if e[1] == "d" and e[2]["patches"]]
    assert patches and all(p["w"] * p["h"] < WIDTH * HEIGHT // 2 for e in patches for p in e[2]["patches"])
    # Frames not taken for a screenshot come at most FRAME_RATE a second.
    sampled = [e[0] for e in events if e[1] in "kd" and "shot" not in e[2]]
    span = events[-1][0] - events[0][0]
    assert len(sampled) <= span * FRAME_RATE + 2, (len(sampled), span)

    # The still desktop: between the last two screenshots, nothing but the second one, and
    # that one with no patch.
    before, last = still
    i = next(i for i, e in enumerate(events) if e[1] in "kd" and e[2].get("shot", {}).get("n") == before)
    j = next(i for i, e in enumerate(events) if e[1] in "kd" and e[2].get("shot", {}).get("n") == last)
    assert events[j][0] - events[i][0] >= 1.4
    between = [e for e in events[i + 1 : j] if e[1] in "kd"]
    assert between == [], [e[:2] for e in between]
    assert events[j][1] == "d" and events[j][2]["patches"] == [], events[j][:2]

    # The input Warden sent, in order, text as typed.
    inputs = [e[2] for e in events if e[1] == "i"]
    assert inputs == [
        {"op": "click", "x": IN_XTERM_A[0], "y": IN_XTERM_A[1], "button": "left", "count": 1},
        {"op": "type", "text": "echo recorded-one > rec.txt\n"},
        {"op": "click", "x": IN_XTERM_B[0], "y": IN_XTERM_B[1], "button": "left", "count": 1},
        {"op": "type", "text": "echo Two-Recorded"},
        {"op": "keys", "keys": ["enter"]},
        {"op": "type", "text": "seq 1 40"},
        {"op": "keys", "keys": ["enter"]},
    ], inputs
    resizes = [e[2] for e in events if e[1] == "r"]
    assert resizes == [{"asked": [800, 600], "width": WIDTH, "height": HEIGHT, "method": "reconnect"}], resizes
    # Each input line sits where its audit line says.
    typed = [link["t"] for line, link in zip(mine, links) if line["capability"] == "rdp.type"]
    recorded = [e[0] for e in events if e[1] == "i" and e[2]["op"] == "type"]
    assert all(abs(a - b) < 0.5 for a, b in zip(typed, recorded)), (typed, recorded)
