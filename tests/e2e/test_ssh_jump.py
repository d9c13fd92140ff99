"""Jump hosts (`via` in `[ssh.hosts]`): real OpenSSH sshd instances on loopback addresses of
their own, a bastion, a middle hop and a target, reached as `ssh -J bastion,middle target`
would reach them. What the servers logged is the evidence: each hop's sshd records the
forwarded connection to the next (`direct-tcpip`), and the target the login.

- A terminal command and an SFTP listing on the target, through the two-hop chain; the
  session's audit line names the chain.
- A middle hop whose host key is not known: refused, the error names that hop.
- A bastion that forbids forwarding: refused, the error names the bastion and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sshd import Sshd, start_sshd, stop_sshd

pytestmark = pytest.mark.anyio


@dataclass
class Fleet:
    bastion: Sshd
    middle: Sshd
    target: Sshd
    closed: Sshd

    def manifest(self, middle_known_hosts: Path | None = None) -> str:
        # One key for all: each hop authenticates with its own alias's settings all the same.
        return (
            self.bastion.host_block("bastion")
            + self.middle.host_block("middle", known_hosts=middle_known_hosts)
            + self.closed.host_block("closed")
            + self.target.host_block("web").replace("\n\n", '\nvia = ["bastion", "middle"]\n\n', 1)
            + self.target.host_block("web-behind-closed").replace("\n\n", '\nvia = ["closed"]\n\n', 1)
            + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
            + 'limits = { call_timeout = "60s" }\n'
            + 'grants.terminal = { ssh_hosts = ["web", "web-behind-closed"] }\n\n'
            + '[[plugin]]\nname = "sftp"\nsource = "builtin:sftp"\n'
            + f'grants.sftp = {{ hosts = ["web"], roots = ["{self.target.dir}"] }}\n'
        )


@pytest.fixture()
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    servers: list[Sshd] = []
    try:
        # DEBUG1 logs each forwarded connection a hop opens.
        servers.append(start_sshd(tmp_path / "bastion", log_level="DEBUG1"))
        servers.append(start_sshd(tmp_path / "middle", listen="127.0.0.3", log_level="DEBUG1"))
        servers.append(start_sshd(tmp_path / "target", listen="127.0.0.2"))
        servers.append(start_sshd(tmp_path / "closed", listen="127.0.0.4", extra_config="AllowTcpForwarding no\n"))
        # Every server takes the same client key.
        key = servers[0].identity.with_suffix(".pub").read_text()
        for s in servers[1:]:
            (s.dir / "authorized_keys").write_text(key)
            s.identity = servers[0].identity
        yield Fleet(*servers)
    finally:
        for s in servers:
            stop_sshd(s)


def forwards(server: Sshd) -> list[str]:
    """The targets a hop's sshd opened forwarded connections to, as it logged them."""
    log = (server.dir / "sshd.log").read_text(errors="replace")
    return re.findall(r"direct_tcpip: originator .*? target (\S+) port (\d+)", log)


async def test_a_terminal_and_sftp_reach_the_target_through_two_hops(fleet, start_warden, write_manifest, helpers):
    (fleet.target.dir / "only-on-web.txt").write_text("web\n")
    manifest = write_manifest(fleet.manifest())
    async with start_warden(manifest) as w:
        opened = await w.call("terminal_open", {"host": "web"})
        assert not opened.is_error, helpers.text_of(opened)
        sid = opened.structured_content["id"]
        ran = await w.call("terminal_execute", {"session_id": sid, "command": f"cat {fleet.target.dir}/only-on-web.txt"})
        assert not ran.is_error and ran.structured_content["output"].strip() == "web", helpers.text_of(ran)
        listed = await w.call("sftp_list", {"host": "web", "path": str(fleet.target.dir)})
        assert not listed.is_error and "only-on-web.txt" in helpers.text_of(listed), helpers.text_of(listed)
    # The bastion forwarded to the middle hop, the middle hop to the target, and the target
    # took the login: no hop was skipped.
    assert ("127.0.0.3", str(fleet.middle.port)) in forwards(fleet.bastion), forwards(fleet.bastion)
    assert ("127.0.0.2", str(fleet.target.port)) in forwards(fleet.middle), forwards(fleet.middle)
    assert "Accepted publickey" in (fleet.target.dir / "sshd.log").read_text()
    opened = [line for line in manifest.audit_lines() if line.get("capability") == "terminal.open"]
    assert opened and opened[0].get("detail") == "via bastion, middle", opened


async def test_a_hop_that_fails_is_named(fleet, start_warden, write_manifest, helpers, tmp_path):
    stranger = tmp_path / "stranger_known_hosts"
    stranger.write_text(f"[127.0.0.3]:{fleet.middle.port} {fleet.bastion.host_pub}\n")
    async with start_warden(write_manifest(fleet.manifest(middle_known_hosts=stranger))) as w:
        # The middle hop's host key does not match its known_hosts: the chain stops there.
        refused = await w.call("terminal_open", {"host": "web"})
        text = helpers.text_of(refused)
        assert refused.is_error and "through 'middle'" in text and "host key of ssh host 'middle'" in text, text
        # A bastion that forbids forwarding: the error names it and what to allow.
        closed = await w.call("terminal_open", {"host": "web-behind-closed"})
        text = helpers.text_of(closed)
        assert closed.is_error and "through 'closed'" in text and "AllowTcpForwarding" in text, text
        assert str(fleet.target.port) not in text and "127.0.0" not in text, text
    # The target never saw a login by either route.
    assert "Accepted publickey" not in (fleet.target.dir / "sshd.log").read_text()
