"""Terminal recordings ([audit] record = ["terminal"]): a real sshd and a local PTY, recorded as
asciicast v2, found from the audit log and played back by `warden audit`; the size cap, retention
and a recordings directory that cannot be written; two bearer clients, one on each HTTP wire, each
with a recording of their own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import httpx2
import pytest

from ops_helpers import free_port, serve

pytestmark = [pytest.mark.anyio]

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def clean(text: str) -> str:
    """Terminal output as terminal_execute returns it: escapes stripped, CRLF to LF."""
    return ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "")


def manifest_text(sshd, audit: str) -> str:
    return (
        f"[audit]\n{audit}\n\n"
        + sshd.host_block()
        + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'grants.terminal = { ssh_hosts = ["box"], local = true }\n'
    )


def events(path: Path) -> tuple[dict, list[list]]:
    lines = path.read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def warden_audit(warden_bin: Path, manifest, *args: str) -> str:
    done = subprocess.run(
        [str(warden_bin), "audit", "-m", str(manifest.path), *args], capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # Bytes as written: the recording's CR LF stay as they are.
    return done.stdout.decode()


async def execute(w, helpers, sid: str, command: str) -> str:
    result = await w.call("terminal_execute", {"session_id": sid, "command": command}, timeout=60)
    assert not result.is_error, helpers.text_of(result)
    return result.structured_content["output"]


async def test_ssh_and_local_sessions_replay_what_the_calls_returned(
    sshd, start_warden, write_manifest, helpers, warden_bin, tmp_path
):
    manifest = write_manifest(manifest_text(sshd, 'record = ["terminal"]'))
    outputs: dict[str, list[str]] = {}
    sizes: dict[str, int] = {}
    async with start_warden(manifest) as w:
        for host in ("box", None):
            opened = await w.call("terminal_open", {"host": host} if host else {})
            assert not opened.is_error, helpers.text_of(opened)
            sid = opened.structured_content["id"]
            outputs[sid] = [
                await execute(w, helpers, sid, "echo hi-$((6*7))"),
                await execute(w, helpers, sid, "seq 1 300"),
                await execute(w, helpers, sid, "printf 'caf\\303\\251 \\342\\202\\254\\n'"),
            ]
            assert outputs[sid][0] == "hi-42" and outputs[sid][2] == "café €", outputs[sid]
            # Output that would set the clipboard of whoever replays it, and ask the
            # terminal to type its title back.
            await execute(w, helpers, sid, "printf '\\033]52;c;cHduZWQ=\\007\\033[21tsafe-\\033[31mred\\033[0m\\n'")
            info = await w.session.read_resource(f"sessions://{sid}/info")
            sizes[sid] = json.loads(info.contents[0].text)["output_bytes"]
            closed = await w.call("terminal_close", {"session_id": sid})
            assert not closed.is_error, helpers.text_of(closed)

    lines = manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    for sid, said in outputs.items():
        # Every audit line of the session names one recording and a growing offset in it.
        mine = [line for line in lines if line.get("target", "").endswith(f"session {sid}")]
        assert {line["capability"] for line in mine} >= {"terminal.open", "terminal.write", "terminal.close"}, mine
        links = [line["recording"] for line in mine]
        assert len({link["file"] for link in links}) == 1, links
        offsets = [link["t"] for link in links]
        assert offsets == sorted(offsets), offsets
        path = Path(links[0]["file"])
        if not path.is_absolute():
            path = tmp_path / path
        assert path.parent.parent == tmp_path / "recordings", path
        assert path.name == f"{sid}.cast"
        assert path.stat().st_mode & 0o777 == 0o600

        header, evs = events(path)
        assert header["version"] == 2 and header["width"] > 0 and header["height"] > 0, header
        assert header["warden"]["session"] == sid and header["warden"]["plugin"] == "terminal", header
        times = [e[0] for e in evs]
        assert times == sorted(times), "times are not monotonic"
        assert offsets[-1] <= times[-1] + 1.0
        typed = "".join(e[2] for e in evs if e[1] == "i")
        assert "echo hi-$((6*7))" in typed and "seq 1 300" in typed, typed[:500]
        recorded = "".join(e[2] for e in evs if e[1] == "o")
        # Nothing the session printed while open is missing (the shell may print its exit after).
        assert len(recorded.encode()) >= sizes[sid] > 0, (len(recorded.encode()), sizes[sid])

        # `warden audit play` finds it by the session id of the audit line and replays each
        # call's output, in order.
        played = warden_audit(warden_bin, manifest, "play", sid, "--no-wait", "--raw")
        assert played == recorded
        assert "\x1b]52;c;cHduZWQ=" in played and "\x1b[21t" in played
        # Played for an admin's terminal: the clipboard write and the query are left out,
        # the colours kept.
        shown = warden_audit(warden_bin, manifest, "play", sid, "--no-wait")
        assert "\x1b]52" not in shown and "\x1b[21t" not in shown, shown[-300:]
        assert "safe-\x1b[31mred\x1b[0m" in shown
        text, at = clean(played), 0
        for out in said:
            found = text.find(out, at)
            assert found >= 0, (out[:200], text[at : at + 500])
            at = found + len(out)

    # `warden audit recordings` lists both sessions, by plugin.
    listed = warden_audit(warden_bin, manifest, "recordings", "--plugin", "terminal")
    for sid in outputs:
        assert sid in listed, listed
    as_json = [json.loads(line) for line in warden_audit(warden_bin, manifest, "recordings", "--json").splitlines()]
    assert {entry["header"]["warden"]["target"] for entry in as_json} == {"ssh:box", "local"}, as_json
    assert warden_audit(warden_bin, manifest, "recordings", "--plugin", "other") == ""


async def test_size_cap_retention_and_an_unwritable_directory_never_fail_calls(
    sshd, start_warden, write_manifest, helpers, tmp_path
):
    # Recordings from before: one too old, one that breaks the byte budget, one kept.
    recordings = tmp_path / "recordings"
    day = time.strftime("%Y-%m-%d", time.gmtime())

    def seed(rel: str, size: int, age_days: float) -> Path:
        path = recordings / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('{"version": 2}\n' + "x" * size)
        when = time.time() - age_days * 86400
        os.utime(path, (when, when))
        return path

    ancient = seed("2020-01-01/old.cast", 100, 40)
    big = seed(f"{day}/big.cast", 70_000, 2)
    kept = seed(f"{day}/kept.cast", 1_000, 1)
    manifest = write_manifest(
        manifest_text(sshd, 'record = ["terminal"]\nmax_session = "8KiB"\nretention = { days = 30, bytes = "64KiB" }')
    )
    async with start_warden(manifest) as w:
        # Start-up retention: by age, then the oldest until the rest fit in 64 KiB.
        assert await helpers.wait_for(lambda: not ancient.exists() and not big.exists())
        assert not ancient.parent.exists() and kept.exists()

        # 8 KiB cap: a command printing ~25 KB stops the recording, not the session.
        opened = await w.call("terminal_open", {"host": "box"})
        capped = opened.structured_content["id"]
        out = await execute(w, helpers, capped, "seq 1 5000")
        assert out.splitlines()[-1] == "5000"
        assert await execute(w, helpers, capped, "echo after-cap") == "after-cap"

        capped_file = recordings / day / f"{capped}.cast"
        note = await helpers.wait_for(
            lambda: capped_file.exists() and "max_session" in capped_file.read_text(), timeout=10
        )
        assert note, capped_file.read_text()[-300:] if capped_file.exists() else "no file"
        assert capped_file.stat().st_size <= 8 * 1024
        _, evs = events(capped_file)
        assert evs[-1][1] == "m" and "max_session" in evs[-1][2], evs[-1]

        # The day's directory replaced by a file: the next recording cannot be written.
        (recordings / day).rename(tmp_path / "moved")
        (recordings / day).write_text("not a directory")
        opened = await w.call("terminal_open", {"host": "box"})
        assert not opened.is_error, helpers.text_of(opened)
        broken = opened.structured_content["id"]
        assert await execute(w, helpers, broken, "echo unrecorded") == "unrecorded"

        def failure():
            return [
                line
                for line in manifest.audit_lines()
                if line["event"] == "recording" and line.get("error") == "io" and broken in line["target"]
            ]

        assert await helpers.wait_for(failure, timeout=10), manifest.audit_lines()[-5:]
        closed = await w.call("terminal_close", {"session_id": broken})
        assert not closed.is_error, helpers.text_of(closed)

    lines = manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    recording_lines = [line for line in lines if line["event"] == "recording"]
    assert any("retention removed 2 recordings" in line.get("detail", "") for line in recording_lines), recording_lines
    stop = [line for line in recording_lines if line.get("error") == "limit_reached"]
    assert len(stop) == 1 and capped in stop[0]["target"] and stop[0]["plugin"] == "terminal", stop
    assert len(failure()) == 1
    # Once its recording failed, the session's audit lines name none.
    close = [line for line in lines if line.get("capability") == "terminal.close" and broken in line["target"]]
    assert len(close) == 1 and "recording" not in close[0], close


async def test_two_bearer_clients_on_both_wires_each_get_their_own_recording(
    warden_bin, warden_env, write_manifest, tmp_path
):
    tokens = {name: f"{name}-{os.urandom(8).hex()}" for name in ("alice", "bob")}
    manifest = write_manifest(
        '[server.http.clients.alice]\ntoken_env = "ALICE_TOKEN"\n\n'
        '[server.http.clients.bob]\ntoken_env = "BOB_TOKEN"\n\n'
        '[audit]\nrecord = ["terminal"]\n\n'
        '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\ngrants.terminal = { local = true }\n'
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}

    def answer(response) -> dict:
        assert response.status_code == 200, response.text
        text = response.text
        if text.startswith("data:") or "\ndata:" in text:
            frames = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
            return [json.loads(f) for f in frames if f][-1]
        return response.json()

    with serve(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
        async with httpx2.AsyncClient(timeout=60) as http:
            # Alice on the session wire (2025-11-25).
            auth = {"Authorization": f"Bearer {tokens['alice']}"}
            init = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
            }
            r = await http.post(url, json=init, headers={**accept, **auth})
            mcp_sid = r.headers["mcp-session-id"]
            headers = {**accept, **auth, "Mcp-Session-Id": mcp_sid, "MCP-Protocol-Version": "2025-11-25"}
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)

            async def alice(tool: str, arguments: dict) -> dict:
                body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
                return answer(await http.post(url, json=body, headers=headers))["result"]

            # Bob on the stateless wire (2026-07-28).
            async def bob(tool: str, arguments: dict) -> dict:
                meta = {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                }
                body = {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments, "_meta": meta},
                }
                h = {
                    **accept,
                    "Authorization": f"Bearer {tokens['bob']}",
                    "MCP-Protocol-Version": "2026-07-28",
                    "Mcp-Method": "tools/call",
                    "Mcp-Name": tool,
                }
                return answer(await http.post(url, json=body, headers=h))["result"]

            sids = {}
            for name, call in (("alice", alice), ("bob", bob)):
                opened = await call("terminal_open", {})
                sids[name] = opened["structuredContent"]["id"]
            for name, call in (("alice", alice), ("bob", bob)):
                out = await call("terminal_execute", {"session_id": sids[name], "command": f"echo only-{name}-$((1+1))"})
                assert out["structuredContent"]["output"] == f"only-{name}-2", out
            for name, call in (("alice", alice), ("bob", bob)):
                await call("terminal_close", {"session_id": sids[name]})

    lines = manifest.audit_lines()
    for name, sid in sids.items():
        other = "bob" if name == "alice" else "alice"
        mine = [line for line in lines if line.get("target", "").endswith(f"session {sid}")]
        assert mine and all(line["client"].startswith(name) and "recording" in line for line in mine), mine
        path = Path(mine[0]["recording"]["file"])
        header, evs = events(path)
        assert header["warden"]["client"] == mine[0]["client"], header
        output = "".join(e[2] for e in evs if e[1] == "o")
        assert f"only-{name}-2" in output and f"only-{other}-" not in output
        listed = warden_audit(warden_bin, manifest, "recordings", "--client", header["warden"]["client"])
        assert sid in listed and sids[other] not in listed, listed
