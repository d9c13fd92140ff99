"""A role narrows an SSH fleet to some of its members (`narrow.PLUGIN.terminal.members`,
`narrow.PLUGIN.sftp.members`), held by the terminal and SFTP capabilities. One real sshd
certified by a host CA for `web-1.localhost` and `web-2.localhost`, both members of the
pattern host `web`; two bearer clients of one `warden serve --http`, one on each wire:

- alice (role `all`) opens a terminal on web-1 and lists its files over SFTP;
- bob (role `staging`, the fleet narrowed to web-2) is refused web-1 on both doors, naming the
  role and the key to change, with the sshd receiving no connection of his; web-2 answers him.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ops_helpers import free_port, serve
from sshd import SSH_KEYGEN, Sshd, start_sshd, stop_sshd
from test_roles import LEGACY, MODERN, as_, call

pytestmark = pytest.mark.anyio


@pytest.fixture()
def members(tmp_path: Path) -> Iterator[tuple[Sshd, Path]]:
    ca = tmp_path / "host-ca"
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "host-ca", "-f", str(ca)], check=True)
    ca_pub = " ".join((tmp_path / "host-ca.pub").read_text().split()[:2])
    known_hosts = tmp_path / "fleet_known_hosts"
    known_hosts.write_text(f"@cert-authority [*.localhost]:* {ca_pub}\n")
    server = start_sshd(
        tmp_path / "web", host_ca=ca, host_principals="web-1.localhost,web-2.localhost", log_level="VERBOSE"
    )
    try:
        yield server, known_hosts
    finally:
        stop_sshd(server)


def connections(server: Sshd) -> int:
    return (server.dir / "sshd.log").read_text(errors="replace").count("Connection from")


def manifest_text(server: Sshd, known_hosts: Path) -> str:
    staging = '{ web = ["web-2.localhost"] }'
    return f"""
[server.http.clients.alice]
token_env = "ALICE_TOKEN"
role = "all"

[server.http.clients.bob]
token_env = "BOB_TOKEN"
role = "staging"

[ssh.hosts.web]
pattern = 'web-[0-9]+\\.localhost'
port = {server.port}
allow = ["127.0.0.0/8"]
user = "{server.user}"
identity_file = "{server.identity}"
known_hosts = "{known_hosts}"

[[plugin]]
name = "terminal"
source = "builtin:terminal"
limits = {{ call_timeout = "60s" }}
grants.terminal = {{ ssh_hosts = ["web"] }}

[[plugin]]
name = "sftp"
source = "builtin:sftp"
grants.sftp = {{ hosts = ["web"], roots = ["{server.dir}"] }}

[roles.all]
plugins = ["terminal", "sftp"]

[roles.staging]
plugins = ["terminal", "sftp"]
narrow.terminal.terminal = {{ ssh_hosts = ["web"], members = {staging} }}
narrow.sftp.sftp = {{ hosts = ["web"], roots = ["{server.dir}"], members = {staging} }}
"""


@pytest.mark.parametrize("bob_mode", [MODERN, LEGACY])
async def test_a_role_reaches_only_the_members_it_names(members, warden_bin, warden_env, write_manifest, bob_mode):
    server, known_hosts = members
    (server.dir / "on-web.txt").write_text("web\n")
    alice_mode = LEGACY if bob_mode == MODERN else MODERN
    port = free_port()
    tokens = {name: f"{name}-{os.urandom(12).hex()}" for name in ("alice", "bob")}
    manifest = write_manifest(manifest_text(server, known_hosts))
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}
    w = {"url": f"http://127.0.0.1:{port}/mcp", "tokens": tokens}
    with serve(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
        async with as_(w, "alice", alice_mode) as alice, as_(w, "bob", bob_mode) as bob:
            failed, text = await call(alice, "terminal_open", {"host": "web-1.localhost"})
            assert not failed, text
            failed, text = await call(alice, "sftp_list", {"host": "web-1.localhost", "path": str(server.dir)})
            assert not failed and "on-web.txt" in text, text
            seen = connections(server)

            for tool, args in [
                ("terminal_open", {"host": "web-1.localhost"}),
                ("sftp_list", {"host": "web-1.localhost", "path": str(server.dir)}),
            ]:
                failed, text = await call(bob, tool, args)
                assert failed, text
                assert "as role 'staging' narrows it does not allow member 'web-1.localhost'" in text, text
                kind = tool.split("_")[0]
                assert f"roles.staging.narrow.{kind}.{kind}.members.web" in text, text
            assert connections(server) == seen, (server.dir / "sshd.log").read_text()[-2000:]

            failed, text = await call(bob, "terminal_open", {"host": "web-2.localhost"})
            assert not failed, text
            failed, text = await call(bob, "sftp_list", {"host": "web-2.localhost", "path": str(server.dir)})
            assert not failed and "on-web.txt" in text, text
    denied = [
        line
        for line in manifest.audit_lines()
        if line["event"] == "capability_denied" and line.get("client", "").startswith("bob")
    ]
    assert {line.get("capability") for line in denied} == {"terminal", "sftp"}, denied
    assert all("web-1.localhost" in str(line.get("target")) for line in denied), denied
    assert not [
        line
        for line in manifest.audit_lines()
        if line["event"] == "capability_denied" and line.get("client", "").startswith("alice")
    ]
