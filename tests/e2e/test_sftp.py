"""sftp plugin end to end: warden serve over stdio, the official MCP client, a real sshd."""

from __future__ import annotations

import base64
import hashlib
import os

import pytest

pytestmark = pytest.mark.anyio


def sftp_manifest(sshd, root, write: bool = True) -> str:
    return sshd.host_block() + (
        '[[plugin]]\nname = "sftp"\nsource = "builtin:sftp"\n'
        'limits = { output = "4MiB" }\n'
        f'grants.sftp = {{ hosts = ["box"], roots = ["{root}"], write = {"true" if write else "false"} }}\n'
    )


@pytest.fixture()
def tree(sshd):
    """root/ (granted) with a file, outside/ with a secret, and symlinks leading out."""
    root = sshd.dir / "root"
    outside = sshd.dir / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "hello.txt").write_text("hello from the root\n")
    (outside / "secret.txt").write_text("top secret\n")
    (root / "out-dir").symlink_to(outside)
    (root / "out-file").symlink_to(outside / "secret.txt")
    (root / "in-link").symlink_to(root / "hello.txt")
    return root, outside


async def call_ok(w, helpers, tool, args):
    result = await w.call(tool, args, timeout=60)
    assert not result.is_error, (tool, helpers.text_of(result))
    return result


async def test_round_trips_and_operations(sshd, tree, start_warden, write_manifest, helpers):
    root, _ = tree
    manifest = write_manifest(sftp_manifest(sshd, root))
    outputs = []
    async with start_warden(manifest) as w:
        listed = await call_ok(w, helpers, "sftp_list", {"host": "box", "path": str(root)})
        names = [e["name"] for e in listed.structured_content["entries"]]
        assert names == ["hello.txt", "in-link", "out-dir", "out-file"], names
        outputs.append(helpers.text_of(listed))

        read = await call_ok(w, helpers, "sftp_read", {"host": "box", "path": "hello.txt"})
        assert read.structured_content["content"] == "hello from the root\n"
        assert read.structured_content["encoding"] == "text"

        # A symlink that stays inside the root is fine.
        read = await call_ok(w, helpers, "sftp_read", {"host": "box", "path": "in-link"})
        assert read.structured_content["content"] == "hello from the root\n"

        await call_ok(w, helpers, "sftp_mkdir", {"host": "box", "path": "docs"})
        text = "línea uno\nline two\n" * 100
        await call_ok(w, helpers, "sftp_write", {"host": "box", "path": "docs/a.txt", "content": text})
        assert (root / "docs" / "a.txt").read_text() == text
        read = await call_ok(w, helpers, "sftp_read", {"host": "box", "path": f"{root}/docs/a.txt"})
        assert read.structured_content["content"] == text

        # Append, create (refuses an existing file), overwrite.
        await call_ok(w, helpers, "sftp_write", {"host": "box", "path": "docs/a.txt", "content": "END", "mode": "append"})
        assert (root / "docs" / "a.txt").read_text() == text + "END"
        exists = await w.call("sftp_write", {"host": "box", "path": "docs/a.txt", "content": "x", "mode": "create"})
        assert exists.is_error, helpers.text_of(exists)
        await call_ok(w, helpers, "sftp_write", {"host": "box", "path": "docs/a.txt", "content": "short"})
        assert (root / "docs" / "a.txt").read_text() == "short"

        # 1 MiB of binary data, byte-exact both ways.
        blob = os.urandom(1024 * 1024)
        await call_ok(
            w, helpers, "sftp_write",
            {"host": "box", "path": "docs/blob.bin", "content": base64.b64encode(blob).decode(), "encoding": "base64"},
        )
        assert hashlib.sha256((root / "docs" / "blob.bin").read_bytes()).digest() == hashlib.sha256(blob).digest()
        read = await call_ok(
            w, helpers, "sftp_read", {"host": "box", "path": "docs/blob.bin", "encoding": "base64", "max_bytes": 1048576}
        )
        assert base64.b64decode(read.structured_content["content"]) == blob
        assert read.structured_content["bytes"] == len(blob) and not read.structured_content["truncated"]

        # Without max_bytes a read stops at 64 KiB (a result every common client accepts) and
        # says where to read on.
        read = await call_ok(w, helpers, "sftp_read", {"host": "box", "path": "docs/blob.bin", "encoding": "base64"})
        assert read.structured_content["bytes"] == 65536 and read.structured_content["truncated"]
        assert "read on with offset 65536" in helpers.text_of(read)

        # Offset reads.
        read = await call_ok(
            w, helpers, "sftp_read",
            {"host": "box", "path": "docs/blob.bin", "offset": 1000, "max_bytes": 24, "encoding": "base64"},
        )
        assert base64.b64decode(read.structured_content["content"]) == blob[1000:1024]
        assert read.structured_content["truncated"]

        stat = await call_ok(w, helpers, "sftp_stat", {"host": "box", "path": "docs/blob.bin"})
        assert stat.structured_content["size"] == len(blob) and stat.structured_content["kind"] == "file"

        await call_ok(w, helpers, "sftp_rename", {"host": "box", "from": "docs/blob.bin", "to": "docs/b.bin"})
        assert (root / "docs" / "b.bin").is_file() and not (root / "docs" / "blob.bin").exists()
        await call_ok(w, helpers, "sftp_remove", {"host": "box", "path": "docs/b.bin"})
        await call_ok(w, helpers, "sftp_remove", {"host": "box", "path": "docs/a.txt"})
        await call_ok(w, helpers, "sftp_remove", {"host": "box", "path": "docs"})
        assert not (root / "docs").exists()

        missing = await w.call("sftp_read", {"host": "box", "path": "nope.txt"})
        assert missing.is_error and "not found" in helpers.text_of(missing), helpers.text_of(missing)

    key = sshd.private_key_text()
    body = "".join(line for line in key.splitlines() if "PRIVATE KEY" not in line)
    for haystack in [*outputs, manifest.audit.read_text(), w.stderr()]:
        assert body[:40] not in haystack
    for line in manifest.audit_lines():
        helpers.check_audit_line(line)


async def test_escapes_are_refused(sshd, tree, start_warden, write_manifest, helpers):
    root, outside = tree
    manifest = write_manifest(sftp_manifest(sshd, root))
    async with start_warden(manifest) as w:
        attempts = [
            ("sftp_read", {"host": "box", "path": "../outside/secret.txt"}),
            ("sftp_read", {"host": "box", "path": f"{root}/../outside/secret.txt"}),
            ("sftp_read", {"host": "box", "path": "/etc/passwd"}),
            ("sftp_read", {"host": "box", "path": "out-file"}),
            ("sftp_read", {"host": "box", "path": "out-dir/secret.txt"}),
            ("sftp_list", {"host": "box", "path": "out-dir"}),
            ("sftp_list", {"host": "box", "path": "/"}),
            ("sftp_stat", {"host": "box", "path": ".."}),
            ("sftp_write", {"host": "box", "path": "out-dir/new.txt", "content": "x"}),
            ("sftp_write", {"host": "box", "path": "out-file", "content": "overwritten"}),
            ("sftp_write", {"host": "box", "path": "../escape.txt", "content": "x"}),
            ("sftp_mkdir", {"host": "box", "path": "/tmp/warden-escape-dir"}),
            ("sftp_rename", {"host": "box", "from": "hello.txt", "to": "../moved.txt"}),
            ("sftp_remove", {"host": "box", "path": "out-dir/secret.txt"}),
            ("sftp_remove", {"host": "box", "path": str(root)}),
        ]
        for tool, args in attempts:
            result = await w.call(tool, args)
            text = helpers.text_of(result)
            assert result.is_error and text.startswith("access denied"), (tool, args, text)
            assert "top secret" not in text
        # The other host is not granted.
        result = await w.call("sftp_list", {"host": "web9", "path": "."})
        assert result.is_error and "grants.sftp.hosts" in helpers.text_of(result)
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert not (outside / "new.txt").exists() and not (sshd.dir / "escape.txt").exists()
    assert not (sshd.dir / "moved.txt").exists() and (root / "hello.txt").exists()
    denied = [line for line in manifest.audit_lines() if line["event"] == "capability_denied"]
    assert len(denied) >= len(attempts), denied


async def test_read_only_grant_refuses_every_change(sshd, tree, start_warden, write_manifest, helpers):
    root, _ = tree
    manifest = write_manifest(sftp_manifest(sshd, root, write=False))
    async with start_warden(manifest) as w:
        read = await call_ok(w, helpers, "sftp_read", {"host": "box", "path": "hello.txt"})
        assert read.structured_content["content"] == "hello from the root\n"
        for tool, args in [
            ("sftp_write", {"host": "box", "path": "new.txt", "content": "x"}),
            ("sftp_mkdir", {"host": "box", "path": "d"}),
            ("sftp_remove", {"host": "box", "path": "hello.txt"}),
            ("sftp_rename", {"host": "box", "from": "hello.txt", "to": "h2.txt"}),
        ]:
            result = await w.call(tool, args)
            text = helpers.text_of(result)
            assert result.is_error and "grants.sftp.write" in text, (tool, text)
    assert sorted(p.name for p in root.iterdir()) == ["hello.txt", "in-link", "out-dir", "out-file"]


async def test_sftp_by_terminal_session_id(sshd, tree, start_warden, write_manifest, helpers):
    root, outside = tree
    # Two aliases for the same server: the terminal plugin may reach both, sftp only "box".
    body = (
        sshd.host_block()
        + sshd.host_block(alias="box2")
        + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        'grants.terminal = { ssh_hosts = ["box", "box2"], local = true }\n\n'
        + '[[plugin]]\nname = "sftp"\nsource = "builtin:sftp"\n'
        f'grants.sftp = {{ hosts = ["box"], roots = ["{root}"], write = true }}\n'
    )
    manifest = write_manifest(body)
    async with start_warden(manifest) as w:

        async def open_on(host: str | None) -> str:
            result = await w.call("terminal_open", {"host": host} if host else {})
            assert not result.is_error, helpers.text_of(result)
            return result.structured_content["id"]

        sid = await open_on("box")
        read = await call_ok(w, helpers, "sftp_read", {"session": sid, "path": "hello.txt"})
        assert read.structured_content["content"] == "hello from the root\n"
        await call_ok(w, helpers, "sftp_write", {"session": sid, "path": "by-session.txt", "content": "via id"})
        assert (root / "by-session.txt").read_text() == "via id"
        listed = await call_ok(w, helpers, "sftp_list", {"session": sid, "path": "."})
        assert "by-session.txt" in [e["name"] for e in listed.structured_content["entries"]]
        await call_ok(w, helpers, "sftp_stat", {"session": sid, "path": "by-session.txt"})
        await call_ok(w, helpers, "sftp_mkdir", {"session": sid, "path": "d"})
        await call_ok(w, helpers, "sftp_rename", {"session": sid, "from": "by-session.txt", "to": "d/moved.txt"})
        await call_ok(w, helpers, "sftp_remove", {"session": sid, "path": "d/moved.txt"})
        await call_ok(w, helpers, "sftp_remove", {"session": sid, "path": "d"})
        assert not (root / "d").exists()

        # The roots still hold: a session id reaches no further than its alias.
        escaped = await w.call("sftp_read", {"session": sid, "path": "../outside/secret.txt"})
        assert escaped.is_error and helpers.text_of(escaped).startswith("access denied"), helpers.text_of(escaped)
        # A session on an alias the sftp plugin is not granted is refused like the alias.
        sid2 = await open_on("box2")
        refused = await w.call("sftp_read", {"session": sid2, "path": "hello.txt"})
        text = helpers.text_of(refused)
        assert refused.is_error and text.startswith("access denied") and "grants.sftp.hosts" in text, text
        assert "box2" in text, text

        local = await open_on(None)
        result = await w.call("sftp_list", {"session": local, "path": "."})
        text = helpers.text_of(result)
        assert result.is_error and "local terminal, not an SSH session" in text, text
        result = await w.call("sftp_list", {"session": "ssh-000000", "path": "."})
        text = helpers.text_of(result)
        assert result.is_error and "no open terminal session 'ssh-000000'" in text, text
        for args in [{"path": "."}, {"host": "box", "session": sid, "path": "."}]:
            result = await w.call("sftp_list", args)
            assert result.is_error and "`host`" in helpers.text_of(result), helpers.text_of(result)

        # A closed session is gone for SFTP too.
        await w.call("terminal_close", {"session_id": sid})
        result = await w.call("sftp_stat", {"session": sid, "path": "hello.txt"})
        assert result.is_error and "no open terminal session" in helpers.text_of(result)
    assert (outside / "secret.txt").read_text() == "top secret\n"
    denied = [line for line in manifest.audit_lines() if line["event"] == "capability_denied"]
    assert any("box2" in line["target"] for line in denied), denied
    for line in manifest.audit_lines():
        helpers.check_audit_line(line)
