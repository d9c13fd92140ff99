"""The audit log records actions: from a scripted terminal + SFTP session against a real sshd, a test
reconstructs every command run and every file touched, and finds no key, passphrase or file content in it."""

from __future__ import annotations

import subprocess

import pytest

pytestmark = pytest.mark.anyio


def ops_manifest(sshd, root) -> str:
    return sshd.host_block() + (
        '[[plugin]]\nname = "ops"\nsource = "builtin:terminal"\n'
        'limits = { call_timeout = "60s" }\n'
        'grants.terminal = { ssh_hosts = ["box"] }\n\n'
        '[[plugin]]\nname = "files"\nsource = "builtin:sftp"\n'
        f'grants.sftp = {{ hosts = ["box"], roots = ["{root}"], write = true }}\n'
    )


async def test_terminal_and_sftp_actions_are_reconstructible(sshd, start_warden, write_manifest, helpers, warden_bin):
    root = sshd.dir / "srv"
    root.mkdir()
    (root / "app.conf").write_text("listen 8080\n")
    manifest = write_manifest(ops_manifest(sshd, root))
    commands = ["uname -s", "cat /etc/hostname; echo 'quoted \"x\"'", "ls -la"]
    async with start_warden(manifest) as w:
        opened = await w.call("terminal_open", {"host": "box"})
        assert not opened.is_error, helpers.text_of(opened)
        sid = opened.structured_content["id"]
        for command in commands:
            result = await w.call("terminal_execute", {"session_id": sid, "command": command}, timeout=60)
            assert not result.is_error, helpers.text_of(result)
        read = await w.call("sftp_read", {"host": "box", "path": f"{root}/app.conf"})
        assert not read.is_error, helpers.text_of(read)
        wrote = await w.call("sftp_write", {"host": "box", "path": f"{root}/new.txt", "content": "fresh file body"})
        assert not wrote.is_error, helpers.text_of(wrote)
        listed = await w.call("sftp_list", {"host": "box", "path": str(root)})
        assert not listed.is_error, helpers.text_of(listed)
        closed = await w.call("terminal_close", {"session_id": sid})
        assert not closed.is_error, helpers.text_of(closed)

    lines = manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    used = [line for line in lines if line["event"] == "capability_used"]

    # Every command, in order, with the session and the host it ran on.
    writes = [u for u in used if u["capability"] == "terminal.write"]
    assert all(u["target"] == f"ssh:box session {sid}" for u in writes), writes
    written = "".join(u["detail"] for u in writes)
    # The terminal plugin writes each command single-quoted inside its completion markers; the
    # audit line escapes backslashes (and control characters).
    quoted = ["'" + c.replace("'", "'\\''") + "'" for c in commands]
    positions = [written.find(q.replace("\\", "\\\\")) for q in quoted]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), (commands, written)
    opens = [u for u in used if u["capability"] == "terminal.open"]
    assert [u["target"] for u in opens] == [f"ssh:box session {sid}"], opens
    closes = [u for u in used if u["capability"] == "terminal.close"]
    assert len(closes) == 1 and closes[0]["bytes"] > 0, closes

    # Every file touched, as the server resolved it, with the bytes moved.
    sftp = [(u["capability"], u["target"], u.get("bytes")) for u in used if u["capability"].startswith("sftp.")]
    real = root.resolve()
    assert sftp == [
        ("sftp.stat", f"box:{real}/app.conf", None),  # sftp_read looks at the size first
        ("sftp.read", f"box:{real}/app.conf", len("listen 8080\n")),
        ("sftp.write", f"box:{real}/new.txt", len("fresh file body")),
        ("sftp.list", f"box:{real}", None),
    ], sftp
    assert all(u["plugin"] == "files" for u in used if u["capability"].startswith("sftp.")), used

    # No key material, no file content.
    text = manifest.audit.read_text()
    for secret in (sshd.identity.read_text().splitlines()[1], "listen 8080", "fresh file body"):
        assert secret not in text, secret

    # `warden audit` answers the admin's question from the manifest alone.
    shown = subprocess.run(
        [str(warden_bin), "audit", "--manifest", str(manifest.path), "--plugin", "files", "--capability", "sftp"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert [line.split()[5] for line in shown] == ["sftp.stat", "sftp.read", "sftp.write", "sftp.list"], shown
    assert all(str(real) in line for line in shown), shown
    commands_shown = subprocess.run(
        [str(warden_bin), "audit", "--manifest", str(manifest.path), "--capability", "terminal", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert len(commands_shown) == len(opens) + len(writes) + len(closes), commands_shown
