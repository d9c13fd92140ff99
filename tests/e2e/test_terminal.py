"""terminal plugin end to end: warden serve over stdio, the official MCP client, a real sshd."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import mcp_types
import psutil
import pytest

from sshd import MAX_SESSIONS, _keygen

# Alone, after the parallel tests (tests/run): some steps give a program a fixed time to draw
# (`wait_ms`), which a second worker's load made too short once (`less` not yet on the screen).
pytestmark = [pytest.mark.anyio, pytest.mark.serial]


def terminal_manifest(sshd, extra_grants: str = "", known_hosts: Path | None = None) -> str:
    grants = extra_grants or 'ssh_hosts = ["box"]'
    return sshd.host_block(known_hosts=known_hosts) + (
        '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'limits = { call_timeout = "120s", output = "4MiB" }\n'
        f"grants.terminal = {{ {grants} }}\n"
    )


async def open_session(w, helpers, host: str | None = "box") -> str:
    args = {"host": host} if host else {}
    result = await w.call("terminal_open", args)
    assert not result.is_error, helpers.text_of(result)
    return result.structured_content["id"]


async def run(w, helpers, sid: str, command: str, **kw):
    result = await w.call("terminal_execute", {"session_id": sid, "command": command, **kw}, timeout=120)
    assert not result.is_error, helpers.text_of(result)
    return result.structured_content, helpers.text_of(result)


async def test_execute_exit_codes_markers_cwd_and_big_outputs(sshd, start_warden, write_manifest, helpers):
    manifest = write_manifest(terminal_manifest(sshd))
    outputs: list[str] = []
    async with start_warden(manifest) as w:
        sid = await open_session(w, helpers)

        out, text = await run(w, helpers, sid, "echo hi")
        outputs.append(text)
        assert out["output"] == "hi", out
        assert out["exit_code"] == 0 and not out["timed_out"] and not out["still_running"], out
        assert "[exit code 0, cwd " in text, text

        out, text = await run(w, helpers, sid, "(exit 3)")
        assert out["exit_code"] == 3, out
        out, text = await run(w, helpers, sid, "false")
        assert out["exit_code"] == 1, out

        # Output that looks like a prompt or a marker does not end the capture early.
        tricky = "printf '$ \\n# done\\n__DONE__\\nWDS\\nWDE:0:/\\n'; echo after"
        out, text = await run(w, helpers, sid, tricky)
        assert out["output"].splitlines() == ["$ ", "# done", "__DONE__", "WDS", "WDE:0:/", "after"], out
        assert out["exit_code"] == 0

        # cd is kept across calls.
        out, _ = await run(w, helpers, sid, f"mkdir -p {sshd.dir}/work && cd {sshd.dir}/work")
        assert out["cwd"] == f"{sshd.dir}/work", out
        out, _ = await run(w, helpers, sid, "pwd")
        assert out["output"] == f"{sshd.dir}/work", out

        # 5,000 lines arrive whole and in order.
        out, _ = await run(w, helpers, sid, "seq 1 5000")
        lines = out["output"].splitlines()
        assert lines == [str(i) for i in range(1, 5001)], (len(lines), lines[:3], lines[-3:])
        assert not out["truncated"]

        # 10 MB: truncated with a note, never hangs, and the session still works.
        started = time.monotonic()
        out, text = await run(w, helpers, sid, "head -c 10000000 /dev/zero | tr '\\0' x | fold -w 100")
        took = time.monotonic() - started
        assert out["exit_code"] == 0, out
        assert out["truncated"] and not out["timed_out"], {k: v for k, v in out.items() if k != "output"}
        assert out["total_bytes"] > 10_000_000
        assert len(out["output"]) <= 40 * 1024
        assert "bytes left out here" in out["output"] and out["cut_offset"] is not None
        assert out["output"].startswith("x" * 100)
        print(f"10 MB of output through terminal_execute in {took:.2f} s")
        out, _ = await run(w, helpers, sid, "echo still-alive")
        assert out["output"] == "still-alive"

        listed = await w.call("terminal_list_sessions")
        assert sid in helpers.text_of(listed)
        outputs.append(helpers.text_of(listed))

        # Resources.
        res = await w.session.read_resource("sessions://list")
        assert sid in res.contents[0].text
        res = await w.session.read_resource(f"sessions://{sid}/info")
        assert json.loads(res.contents[0].text)["target"] == "ssh:box"
        res = await w.session.read_resource(f"sessions://{sid}/scrollback")
        assert "still-alive" in res.contents[0].text

        closed = await w.call("terminal_close", {"session_id": sid})
        assert not closed.is_error, helpers.text_of(closed)
        gone = await w.call("terminal_execute", {"session_id": sid, "command": "echo x"})
        assert gone.is_error and "not found" in helpers.text_of(gone), helpers.text_of(gone)
        outputs.append(helpers.text_of(gone))

    # The private key never appears in a tool output, the audit log or warden's log.
    key = sshd.private_key_text()
    body = "".join(line for line in key.splitlines() if "PRIVATE KEY" not in line)
    assert len(body) > 50
    audit = manifest.audit.read_text()
    for haystack in [*outputs, audit, w.stderr()]:
        assert body[:40] not in haystack and key not in haystack
    for line in manifest.audit_lines():
        helpers.check_audit_line(line)


async def test_ten_megabytes_fit_a_client_and_the_rest_is_readable(sshd, start_warden, write_manifest, helpers):
    """10 MB of output: a result that common MCP clients accept (under ~25,000 tokens), with the
    beginning, the end, and a note whose terminal_read call returns the bytes that follow."""
    big = Path(sshd.dir) / "big.txt"
    subprocess.run(f"head -c 7500000 /dev/urandom | base64 > {big}", shell=True, check=True)
    expected = big.read_text()
    assert len(expected) > 10_000_000
    manifest = write_manifest(terminal_manifest(sshd))
    async with start_warden(manifest) as w:
        sid = await open_session(w, helpers)
        result = await w.call("terminal_execute", {"session_id": sid, "command": f"cat {big}"}, timeout=120)
        assert not result.is_error, helpers.text_of(result)
        out, text = result.structured_content, helpers.text_of(result)
        size = len(text) + len(json.dumps(out))
        print(f"10 MB of output: a result of {size:,} characters (~{size // 4:,} tokens)")
        assert size < 100_000, size
        assert out["exit_code"] == 0 and out["truncated"], {k: v for k, v in out.items() if k != "output"}

        head, note, tail = re.split(r"\n?\[\.\.\. (\d+ bytes left out here;[^\n]*) \.\.\.\]\n", out["output"])[:3]
        assert expected.startswith(head), head[:200]
        assert expected.rstrip("\n").endswith(tail), tail[-200:]
        call = re.search(r"terminal_read (\{[^}]*\})", note)
        assert call, note
        args = json.loads(call[1])
        assert args == {"session_id": sid, "offset": out["cut_offset"]}, (args, out["cut_offset"])
        # The first 8 MiB stay readable; the note says the rest of the 10 MB is gone.
        assert "the rest is gone" in note, note

        read = await w.call("terminal_read", args)
        assert not read.is_error, helpers.text_of(read)
        following = helpers.text_of(read)
        body = following.rsplit("\n[bytes ", 1)[0]
        assert len(body) > 16_000, following[-300:]
        assert expected.startswith(head + body), (body[:200], expected[len(head) : len(head) + 200])
        more = re.search(r"more: terminal_read (\{[^}]*\})", following)
        assert more, following[-300:]
        again = await w.call("terminal_read", json.loads(more[1]))
        body2 = helpers.text_of(again).rsplit("\n[bytes ", 1)[0]
        assert expected.startswith(head + body + body2)

        # Past the kept 8 MiB: said to be gone, not silently skipped.
        gone = await w.call("terminal_read", {"session_id": sid, "offset": out["cut_offset"] + 9_000_000})
        assert "are gone" in helpers.text_of(gone), helpers.text_of(gone)[:300]


async def test_timeout_prompt_and_tui(sshd, start_warden, write_manifest, helpers):
    manifest = write_manifest(terminal_manifest(sshd))
    async with start_warden(manifest) as w:
        sid = await open_session(w, helpers)

        # A command past its timeout: partial output, still running, the session stays usable.
        out, text = await run(w, helpers, sid, "echo before; sleep 30; echo never", timeout_ms=1500)
        assert out["timed_out"] and out["still_running"] and out["exit_code"] is None, out
        assert "before" in out["output"] and "never" not in out["output"], out
        assert "terminal_read" in text
        polled = await w.call("terminal_read", {"session_id": sid, "lines": 5})
        assert "before" in helpers.text_of(polled)
        stopped = await w.call("terminal_write", {"session_id": sid, "keys": ["ctrl-c"]})
        assert not stopped.is_error, helpers.text_of(stopped)
        out, _ = await run(w, helpers, sid, "echo after-interrupt")
        assert out["output"] == "after-interrupt" and out["exit_code"] == 0, out

        # A prompt answered through terminal_write.
        out, _ = await run(w, helpers, sid, "read -p 'name? ' x; echo \"got:$x\"", timeout_ms=1000)
        assert out["still_running"] and "name?" in out["output"], out
        answered = await w.call("terminal_write", {"session_id": sid, "text": "alice\n", "wait_ms": 1000})
        assert "got:alice" in helpers.text_of(answered), helpers.text_of(answered)
        out, _ = await run(w, helpers, sid, "echo $x")
        assert out["output"] == "alice"

        # A TUI read through the vt100 screen.
        await run(w, helpers, sid, f"seq 1 200 > {sshd.dir}/numbers.txt")
        await w.call("terminal_write", {"session_id": sid, "text": f"less {sshd.dir}/numbers.txt\n", "wait_ms": 1000})
        screen = helpers.text_of(await w.call("terminal_screen", {"session_id": sid}))
        rows = screen.splitlines()
        assert rows[:3] == ["1", "2", "3"], screen[:300]
        assert "150" not in rows, screen
        await w.call("terminal_write", {"session_id": sid, "keys": ["space"], "wait_ms": 500})
        screen = helpers.text_of(await w.call("terminal_screen", {"session_id": sid}))
        assert "60" in screen.splitlines(), screen
        await w.call("terminal_write", {"session_id": sid, "text": "q", "wait_ms": 500})
        out, _ = await run(w, helpers, sid, "echo back-at-shell")
        assert out["output"] == "back-at-shell"

        out, _ = await run(w, helpers, sid, "top -b -n 1 | head -5")
        assert "load average" in out["output"], out


async def test_open_close_cycles_leave_no_channel_open(sshd, start_warden, write_manifest, helpers):
    manifest = write_manifest(terminal_manifest(sshd))
    async with start_warden(manifest) as w:
        for i in range(20):
            sid = await open_session(w, helpers)
            out, _ = await run(w, helpers, sid, f"echo cycle-{i}")
            assert out["output"] == f"cycle-{i}"
            closed = await w.call("terminal_close", {"session_id": sid})
            assert not closed.is_error
        # sshd allows MaxSessions channels per connection: all of them are free again.
        ids = [await open_session(w, helpers) for _ in range(MAX_SESSIONS)]
        for sid in ids:
            out, _ = await run(w, helpers, sid, "echo ok")
            assert out["output"] == "ok"
        for sid in ids:
            await w.call("terminal_close", {"session_id": sid})
        shells = await helpers.wait_for(lambda: not sshd.shells(), timeout=5)
        assert shells, [p.name() for p in sshd.shells()]


async def test_unknown_and_changed_host_keys_are_refused(sshd, start_warden, write_manifest, helpers, tmp_path):
    empty = tmp_path / "empty_known_hosts"
    empty.write_text("")
    manifest = write_manifest(terminal_manifest(sshd, known_hosts=empty))
    async with start_warden(manifest) as w:
        result = await w.call("terminal_open", {"host": "box"})
        text = helpers.text_of(result)
        assert result.is_error, text
        assert "host key" in text and "not in its known_hosts" in text and "refused" in text, text
        assert str(sshd.port) not in text, text

    _keygen(tmp_path / "other_key")
    other = " ".join((tmp_path / "other_key.pub").read_text().split()[:2])
    changed = tmp_path / "changed_known_hosts"
    changed.write_text(f"[127.0.0.1]:{sshd.port} {other}\n")
    manifest = write_manifest(terminal_manifest(sshd, known_hosts=changed), name="changed.toml", audit="a2.jsonl")
    async with start_warden(manifest) as w:
        result = await w.call("terminal_open", {"host": "box"})
        text = helpers.text_of(result)
        assert result.is_error and "CHANGED" in text, text


async def test_grants_local_pty_and_read_only(sshd, start_warden, write_manifest, helpers):
    manifest = write_manifest(terminal_manifest(sshd))
    async with start_warden(manifest) as w:
        result = await w.call("terminal_open", {})
        text = helpers.text_of(result)
        assert result.is_error and text.startswith("access denied"), text
        assert "grants.terminal.local = true" in text, text
        result = await w.call("terminal_open", {"host": "elsewhere"})
        assert result.is_error and "ssh_hosts" in helpers.text_of(result)
    denied = [line for line in manifest.audit_lines() if line["event"] == "capability_denied"]
    assert any(line["target"] == "a local terminal" for line in denied), denied

    manifest = write_manifest(
        terminal_manifest(sshd, 'ssh_hosts = ["box"], local = true'), name="local.toml", audit="local.jsonl"
    )
    async with start_warden(manifest) as w:
        sid = await open_session(w, helpers, host=None)
        out, _ = await run(w, helpers, sid, "echo local-$((40+2))")
        assert out["output"] == "local-42" and out["exit_code"] == 0, out
        await w.call("terminal_close", {"session_id": sid})

    manifest = write_manifest(
        terminal_manifest(sshd, 'ssh_hosts = ["box"], read_only = true'), name="ro.toml", audit="ro.jsonl"
    )
    async with start_warden(manifest) as w:
        sid = await open_session(w, helpers)
        for tool, args in [
            ("terminal_execute", {"session_id": sid, "command": "touch /tmp/should-not-exist"}),
            ("terminal_write", {"session_id": sid, "text": "ls\n"}),
        ]:
            result = await w.call(tool, args)
            text = helpers.text_of(result)
            assert result.is_error and "read_only" in text, (tool, text)
        read = await w.call("terminal_read", {"session_id": sid})
        assert not read.is_error


async def test_dropped_connection_is_reopened(sshd, start_warden, write_manifest, helpers):
    manifest = write_manifest(terminal_manifest(sshd))
    async with start_warden(manifest) as w:
        sid = await open_session(w, helpers)
        out, _ = await run(w, helpers, sid, "echo first")
        assert out["output"] == "first"
        # Cut the connection from the server side: kill sshd's per-connection processes.
        listener = psutil.Process(sshd.proc.pid)
        conns = listener.children()
        assert conns, "no connection process under sshd"
        for p in conns:
            p.kill()
        # The old session ends; a new one gets a fresh connection.
        gone = await w.call("terminal_execute", {"session_id": sid, "command": "echo x", "timeout_ms": 3000})
        assert gone.is_error or gone.structured_content["exit_code"] is None, helpers.text_of(gone)
        sid2 = await open_session(w, helpers)
        out, _ = await run(w, helpers, sid2, "echo second")
        assert out["output"] == "second"


async def test_resize_changes_the_pty_and_the_screen(sshd, start_warden, write_manifest, helpers):
    manifest = write_manifest(terminal_manifest(sshd))
    async with start_warden(manifest) as w:
        opened = await w.call("terminal_open", {"host": "box", "cols": 100, "rows": 30})
        assert not opened.is_error, helpers.text_of(opened)
        sid = opened.structured_content["id"]
        assert (opened.structured_content["cols"], opened.structured_content["rows"]) == (100, 30)
        out, _ = await run(w, helpers, sid, "stty size")
        assert out["output"] == "30 100", out
        screen = helpers.text_of(await w.call("terminal_screen", {"session_id": sid}))
        assert screen.endswith("(100x30)]"), screen[-80:]

        resized = await w.call("terminal_resize", {"session_id": sid, "cols": 132, "rows": 40})
        assert not resized.is_error, helpers.text_of(resized)
        assert (resized.structured_content["cols"], resized.structured_content["rows"]) == (132, 40)
        out, _ = await run(w, helpers, sid, "stty size")
        assert out["output"] == "40 132", out
        # The remote shell got SIGWINCH and sees the new size in its own variables too.
        out, _ = await run(w, helpers, sid, "echo $COLUMNS")
        assert out["output"] == "132", out
        screen = helpers.text_of(await w.call("terminal_screen", {"session_id": sid}))
        assert screen.endswith("(132x40)]"), screen[-80:]

        for args in [{"cols": 5, "rows": 40}, {"cols": 80, "rows": 5000}]:
            bad = await w.call("terminal_resize", {"session_id": sid, **args})
            assert bad.is_error and "cols 10-500, rows 2-200" in helpers.text_of(bad), helpers.text_of(bad)
        bad = await w.call("terminal_open", {"host": "box", "cols": 1})
        assert bad.is_error and "outside the allowed size" in helpers.text_of(bad)
        out, _ = await run(w, helpers, sid, "stty size")
        assert out["output"] == "40 132", out


async def test_a_running_command_is_not_typed_into(sshd, start_warden, write_manifest, helpers):
    manifest = write_manifest(terminal_manifest(sshd))
    async with start_warden(manifest) as w:
        sid = await open_session(w, helpers)
        out, _ = await run(w, helpers, sid, "echo started; sleep 60", timeout_ms=1000)
        assert out["still_running"], out

        refused = await w.call("terminal_execute", {"session_id": sid, "command": "echo intruder"})
        text = helpers.text_of(refused)
        assert refused.is_error, text
        assert f"session {sid} is still running a command" in text, text
        assert "terminal_read" in text and "Ctrl-C" in text, text
        polled = await w.call("terminal_read", {"session_id": sid})
        assert polled.structured_content["still_running"], helpers.text_of(polled)
        assert "intruder" not in helpers.text_of(polled)

        await w.call("terminal_write", {"session_id": sid, "keys": ["ctrl-c"], "wait_ms": 1000})
        out, _ = await run(w, helpers, sid, "echo after-ctrl-c")
        assert out["output"] == "after-ctrl-c" and out["exit_code"] == 0, out

        # A command that outlives its timeout and then ends by itself frees the session too:
        # its end marker is seen on a later read.
        out, _ = await run(w, helpers, sid, "sleep 2; echo finished-late", timeout_ms=300)
        assert out["still_running"], out

        async def finished() -> bool:
            polled = await w.call("terminal_read", {"session_id": sid, "wait_ms": 500})
            return not polled.structured_content["still_running"]

        for _ in range(40):
            if await finished():
                break
        else:
            pytest.fail("the late command never finished")
        out, _ = await run(w, helpers, sid, "echo next")
        assert out["output"] == "next", out


async def test_comments_and_broken_quotes_do_not_swallow_the_marker(sshd, start_warden, write_manifest, helpers):
    manifest = write_manifest(terminal_manifest(sshd))
    async with start_warden(manifest) as w:
        sid = await open_session(w, helpers)
        out, _ = await run(w, helpers, sid, "echo hi # a comment", timeout_ms=20000)
        assert out["output"] == "hi" and out["exit_code"] == 0 and not out["timed_out"], out
        out, _ = await run(w, helpers, sid, "X=kept; echo \"it's $X\" # quote ' in a comment")
        assert out["output"] == "it's kept" and out["exit_code"] == 0, out

        # An unbalanced quote is the shell's syntax error, answered at once.
        out, _ = await run(w, helpers, sid, "echo 'never closed", timeout_ms=20000)
        assert not out["timed_out"] and out["exit_code"] == 2, out
        assert "unexpected EOF" in out["output"], out
        # A heredoc without its body ends at the end of the line.
        out, _ = await run(w, helpers, sid, "cat <<EOF", timeout_ms=20000)
        assert not out["timed_out"] and out["exit_code"] == 0, out

        # A command waiting for input times out, and Ctrl-C gets the shell back.
        out, _ = await run(w, helpers, sid, "cat", timeout_ms=800)
        assert out["still_running"], out
        await w.call("terminal_write", {"session_id": sid, "keys": ["ctrl-c"], "wait_ms": 1000})
        out, _ = await run(w, helpers, sid, "echo $X")
        assert out["output"] == "kept" and out["exit_code"] == 0, out


async def test_passphrase_protected_identity(sshd, start_warden, write_manifest, helpers, tmp_path):
    passphrase = "correct horse battery 42"
    key = tmp_path / "id_encrypted"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", "enc", "-f", str(key)], check=True
    )
    authorized = sshd.dir / "authorized_keys"
    authorized.write_text(authorized.read_text() + key.with_suffix(".pub").read_text())
    fingerprint = subprocess.run(
        ["ssh-keygen", "-l", "-E", "sha256", "-f", str(key.with_suffix(".pub"))],
        check=True, capture_output=True, text=True,
    ).stdout.split()[1]

    def manifest_for(secret: str, name: str):
        block = sshd.host_block().replace(str(sshd.identity), str(key))
        block = block.rstrip("\n") + "\n" + secret + "\n\n"
        body = block + (
            '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
            'grants.terminal = { ssh_hosts = ["box"] }\n'
        )
        return write_manifest(body, name=f"{name}.toml", audit=f"{name}.jsonl")

    outputs: list[str] = []
    stderrs: list[str] = []
    audits: list[str] = []
    env = {"WARDEN_TEST_KEY_PASS": passphrase}
    manifest = manifest_for('identity_passphrase = { env = "WARDEN_TEST_KEY_PASS" }', "env")
    async with start_warden(manifest, env=env) as w:
        sid = await open_session(w, helpers)
        out, text = await run(w, helpers, sid, "echo via-encrypted-key")
        assert out["output"] == "via-encrypted-key", out
        outputs.append(text)
    stderrs.append(w.stderr())
    audits.append(manifest.audit.read_text())

    for secret, name, expected in [
        ('identity_passphrase = { value = "wrong horse" }', "wrong", "is wrong"),
        ("", "missing", "the key is encrypted; set identity_passphrase"),
        ('identity_passphrase = { env = "WARDEN_TEST_UNSET_VAR" }', "unset", "WARDEN_TEST_UNSET_VAR is not set"),
    ]:
        manifest = manifest_for(secret, name)
        async with start_warden(manifest) as w:
            result = await w.call("terminal_open", {"host": "box"})
            text = helpers.text_of(result)
            assert result.is_error, text
            assert "ssh host 'box'" in text and fingerprint in text and expected in text, text
            outputs.append(text)
        stderrs.append(w.stderr())
        audits.append(manifest.audit.read_text())

    body = "".join(line for line in key.read_text().splitlines() if "PRIVATE KEY" not in line)
    for haystack in [*outputs, *stderrs, *audits]:
        assert passphrase not in haystack and "wrong horse" not in haystack
        assert body[:40] not in haystack


async def test_reload_keeps_sessions_whose_host_grant_is_unchanged(sshd, start_warden, write_manifest, helpers):
    changes: list[object] = []

    async def on_message(message: object) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changes.append(message)

    both = sshd.host_block() + sshd.host_block(alias="box2")
    plugin = '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
    manifest = write_manifest(both + plugin + 'grants.terminal = { ssh_hosts = ["box", "box2"] }\n')
    async with start_warden(manifest, message_handler=on_message) as w:
        sid = await open_session(w, helpers, host="box")
        sid2 = await open_session(w, helpers, host="box2")
        await run(w, helpers, sid, "KEPT=yes-$((6*7))")

        # An edit that leaves box's grant and settings alone (read_only changes, a comment).
        write_manifest(both + "# edited\n" + plugin + 'grants.terminal = { ssh_hosts = ["box", "box2"], read_only = false }\n')
        assert await helpers.wait_for(lambda: len(changes) == 1, timeout=15), "no reload"
        out, _ = await run(w, helpers, sid, "echo $KEPT")
        assert out["output"] == "yes-42", out

        # box2 is no longer granted: its session is closed by the reload; box's stays.
        write_manifest(both + plugin + 'grants.terminal = { ssh_hosts = ["box"] }\n')
        assert await helpers.wait_for(lambda: len(changes) == 2, timeout=15), "no second reload"
        listed = helpers.text_of(await w.call("terminal_list_sessions"))
        assert sid in listed and sid2 not in listed, listed
        out, _ = await run(w, helpers, sid, "echo $KEPT")
        assert out["output"] == "yes-42", out
        assert await helpers.wait_for(lambda: len(sshd.shells()) == 1, timeout=10), sshd.shells()
    assert "1 terminal sessions kept, 1 closed" in w.stderr(), w.stderr()[-3000:]


async def test_a_subscription_to_the_scrollback_fires_when_the_session_prints(sshd, start_warden, write_manifest, helpers):
    """resources/subscribe on sessions://{id}/scrollback: a notification when the session prints
    (coalesced), none for a URI nobody serves, none after unsubscribe."""
    manifest = write_manifest(terminal_manifest(sshd))
    updated: list[str] = []

    async def on_message(message: object) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, mcp_types.ResourceUpdatedNotification):
            updated.append(str(root.params.uri))

    async with start_warden(manifest, message_handler=on_message) as w:
        sid = await open_session(w, helpers)
        uri = f"sessions://{sid}/scrollback"
        await w.session.subscribe_resource(uri)
        with pytest.raises(Exception, match="no plugin serves"):
            await w.session.subscribe_resource("nowhere://x")
        await run(w, helpers, sid, "for i in $(seq 1 200); do echo line-$i; done")
        assert await helpers.wait_for(lambda: uri in updated, timeout=10), updated
        # 200 lines in a burst are a few notifications, not hundreds.
        assert len(updated) < 20, len(updated)
        scrollback = await w.session.read_resource(uri)
        assert "line-200" in scrollback.contents[0].text

        await w.session.unsubscribe_resource(uri)
        time.sleep(0.5)
        before = len(updated)
        await run(w, helpers, sid, "echo after-unsubscribe")
        time.sleep(0.6)
        assert len(updated) == before, updated
