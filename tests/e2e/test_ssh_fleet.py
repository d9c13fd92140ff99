"""SSH fleets: one `[ssh.hosts]` table for many machines (`pattern`), reached through a bastion,
known through a host CA (`@cert-authority`), the plugin naming the machine. Real OpenSSH sshd
instances on loopback; what they logged is the evidence.

- A member of the pattern connects through the bastion (the bastion logged the forwarded
  connection to the address Warden admitted), a command runs, SFTP lists; the audit line names
  the entry and the chain.
- Refused and audited, with no connection at any server: a name that matches no pattern, the
  pattern's own alias, and a matching name that resolves outside what the entry allows.
- The host certificate must name the member: a second matching name on the same server is
  refused by the CA check.
- Approvals hold on a chained member: a declined `terminal_execute` runs nothing on the target.
- Certificates held by the SSH agent: a valid one logs in; an expired one is passed over and the
  refusal says when it expired.
"""

from __future__ import annotations

import getpass
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import mcp.types as types
import pytest

from sshd import SSH_KEYGEN, Sshd, start_sshd, stop_sshd

pytestmark = pytest.mark.anyio


@dataclass
class Fleet:
    bastion: Sshd
    web1: Sshd
    known_hosts: Path

    def manifest(self, extra_plugin: str = "") -> str:
        member = (
            "[ssh.hosts.web]\n"
            "pattern = 'web-[0-9]+\\.localhost'\n"
            f"port = {self.web1.port}\n"
            'allow = ["127.0.0.0/8"]\n'
            f'user = "{self.web1.user}"\n'
            f'identity_file = "{self.web1.identity}"\n'
            f'known_hosts = "{self.known_hosts}"\n'
            'via = ["bastion"]\n\n'
            # The same machines, without `allow`: only public addresses may be reached.
            "[ssh.hosts.app]\n"
            "pattern = 'app-[0-9]+\\.localhost'\n"
            f"port = {self.web1.port}\n"
            f'user = "{self.web1.user}"\n'
            f'identity_file = "{self.web1.identity}"\n'
            f'known_hosts = "{self.known_hosts}"\n\n'
        )
        return (
            self.bastion.host_block("bastion")
            + member
            + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
            + 'limits = { call_timeout = "60s" }\n'
            + extra_plugin
            + 'grants.terminal = { ssh_hosts = ["web", "app"] }\n\n'
            + '[[plugin]]\nname = "sftp"\nsource = "builtin:sftp"\n'
            + f'grants.sftp = {{ hosts = ["web"], roots = ["{self.web1.dir}"] }}\n'
        )


@pytest.fixture()
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    ca = tmp_path / "host-ca"
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "host-ca", "-f", str(ca)], check=True)
    ca_pub = " ".join((tmp_path / "host-ca.pub").read_text().split()[:2])
    known_hosts = tmp_path / "fleet_known_hosts"
    servers: list[Sshd] = []
    try:
        servers.append(start_sshd(tmp_path / "bastion", listen="127.0.0.2", log_level="DEBUG1"))
        # The member: certified by the fleet's CA for its own name only.
        servers.append(
            start_sshd(tmp_path / "web1", host_ca=ca, host_principals="web-1.localhost", log_level="VERBOSE")
        )
        bastion, web1 = servers
        (web1.dir / "authorized_keys").write_text(bastion.identity.with_suffix(".pub").read_text())
        web1.identity = bastion.identity
        # The fleet is known by its CA alone; the bastion by its own key.
        known_hosts.write_text(f"@cert-authority [*.localhost]:* {ca_pub}\n")
        yield Fleet(bastion, web1, known_hosts)
    finally:
        for s in servers:
            stop_sshd(s)


def forwards(server: Sshd) -> list[tuple[str, str]]:
    log = (server.dir / "sshd.log").read_text(errors="replace")
    return re.findall(r"direct_tcpip: originator .*? target (\S+) port (\d+)", log)


def connections(server: Sshd) -> int:
    return (server.dir / "sshd.log").read_text(errors="replace").count("Connection from")


async def test_a_fleet_member_is_reached_and_everything_else_refused(fleet, start_warden, write_manifest, helpers):
    (fleet.web1.dir / "on-web-1.txt").write_text("web-1\n")
    manifest = write_manifest(fleet.manifest())
    async with start_warden(manifest) as w:
        opened = await w.call("terminal_open", {"host": "Web-1.localhost"})
        assert not opened.is_error, helpers.text_of(opened)
        sid = opened.structured_content["id"]
        ran = await w.call("terminal_execute", {"session_id": sid, "command": f"cat {fleet.web1.dir}/on-web-1.txt"})
        assert not ran.is_error and ran.structured_content["output"].strip() == "web-1", helpers.text_of(ran)
        listed = await w.call("sftp_list", {"host": "web-1.localhost", "path": str(fleet.web1.dir)})
        assert not listed.is_error and "on-web-1.txt" in helpers.text_of(listed), helpers.text_of(listed)
        seen = connections(fleet.web1), connections(fleet.bastion)

        refused = {
            name: await w.call("terminal_open", {"host": name})
            for name in ["db-1.localhost", "web", "app-1.localhost", "web-2.localhost"]
        }
        texts = {name: helpers.text_of(r) for name, r in refused.items()}
        assert all(r.is_error for r in refused.values()), texts
        assert "matches no host pattern" in texts["db-1.localhost"], texts
        assert "is a pattern for many hosts" in texts["web"], texts
        app = texts["app-1.localhost"]
        assert "resolves to no address [ssh.hosts.app] allows" in app and "allow" in app, app
        assert "127.0.0" not in app and str(fleet.web1.port) not in app, app
        # web-2 matches and is allowed, but the server's certificate names web-1 only.
        assert "do not name the host" in texts["web-2.localhost"], texts
        sftp = await w.call("sftp_list", {"host": "app-1.localhost", "path": str(fleet.web1.dir)})
        assert sftp.is_error and "grants.sftp.hosts" in helpers.text_of(sftp), helpers.text_of(sftp)
    # The pattern's own refusals reached no server; web-2's reached the member (through the
    # bastion) and stopped at its host certificate.
    assert connections(fleet.web1) == seen[0] + 1, (fleet.web1.dir / "sshd.log").read_text()[-2000:]
    assert "Accepted publickey" in (fleet.web1.dir / "sshd.log").read_text()
    # The bastion was asked for the admitted address, never a name.
    assert set(forwards(fleet.bastion)) == {("127.0.0.1", str(fleet.web1.port))}, forwards(fleet.bastion)
    lines = manifest.audit_lines()
    opened = [line for line in lines if line.get("capability") == "terminal.open"]
    assert opened and opened[0].get("detail") == "of web via bastion", opened
    assert "web-1.localhost" in opened[0].get("target", ""), opened
    denied = [line for line in lines if line.get("outcome") == "denied"]
    targets = " ".join(str(line.get("target")) for line in denied)
    for name in ["db-1.localhost", "'web'", "app-1.localhost"]:
        assert name in targets, denied


async def test_a_declined_approval_runs_nothing_on_a_chained_member(fleet, start_warden, write_manifest, helpers):
    answers = iter([False, True])

    async def callback(context, params: types.ElicitRequestParams):
        return types.ElicitResult(action="accept", content={"approve": next(answers)})

    marker = fleet.web1.dir / "approved.txt"
    manifest = write_manifest(fleet.manifest(extra_plugin='require_approval = ["terminal_execute"]\n'))
    async with start_warden(manifest, elicitation_callback=callback) as w:
        opened = await w.call("terminal_open", {"host": "web-1.localhost"})
        assert not opened.is_error, helpers.text_of(opened)
        sid = opened.structured_content["id"]
        declined = await w.call("terminal_execute", {"session_id": sid, "command": f"touch {marker}"})
        assert declined.is_error and "did not tick" in helpers.text_of(declined), helpers.text_of(declined)
        assert not marker.exists()
        approved = await w.call("terminal_execute", {"session_id": sid, "command": f"touch {marker} && echo done"})
        assert not approved.is_error and "done" in approved.structured_content["output"], helpers.text_of(approved)
    assert marker.exists()
    decisions = [(a["tool"], a["decision"]) for a in manifest.audit_lines() if a["event"] == "approval"]
    assert decisions == [("terminal_execute", "denied"), ("terminal_execute", "allowed")], decisions


@pytest.fixture()
def agent(tmp_path: Path) -> Iterator[Path]:
    """A real ssh-agent on a socket of its own."""
    if shutil.which("ssh-agent") is None:
        if os.environ.get("CI"):
            pytest.fail("ssh-agent is needed (apt-get install openssh-client)")
        pytest.skip("ssh-agent is not installed")
    sock = tmp_path / "agent.sock"
    proc = subprocess.Popen(["ssh-agent", "-D", "-a", str(sock)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if sock.exists():
                break
            time.sleep(0.05)
        yield sock
    finally:
        proc.kill()
        proc.wait()


def agent_add(sock: Path, key: Path, cert: Path) -> None:
    """Load `key` with `cert` as its certificate (ssh-add takes `<key>-cert.pub` beside it)."""
    shutil.copy(cert, key.parent / f"{key.name}-cert.pub")
    env = {**os.environ, "SSH_AUTH_SOCK": str(sock)}
    subprocess.run(["ssh-add", "-D"], env=env, check=False, capture_output=True)
    subprocess.run(["ssh-add", str(key)], env=env, check=True, capture_output=True)


async def test_certificates_held_by_the_agent(tmp_path, agent, start_warden, write_manifest, helpers):
    ca = tmp_path / "user-ca"
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "user-ca", "-f", str(ca)], check=True)
    server = start_sshd(tmp_path / "sshd", extra_config=f"TrustedUserCAKeys {ca}.pub\n")
    try:
        (server.dir / "authorized_keys").write_text("")
        key = tmp_path / "agent-key"
        subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "agent", "-f", str(key)], check=True)

        def certify(name: str, validity: str) -> Path:
            out = tmp_path / name
            shutil.copy(key.with_suffix(".pub"), out.with_suffix(".pub"))
            subprocess.run(
                [SSH_KEYGEN, "-q", "-s", str(ca), "-I", name, "-n", getpass.getuser(), "-V", validity, str(out)],
                check=True,
            )
            return tmp_path / f"{name}-cert.pub"

        block = (
            "[ssh.hosts.box]\n"
            f'address = "127.0.0.1:{server.port}"\n'
            f'user = "{server.user}"\n'
            "agent = true\n"
            f'known_hosts = "{server.known_hosts}"\n\n'
        )
        manifest = write_manifest(
            block
            + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
            + 'grants.terminal = { ssh_hosts = ["box"] }\n'
        )
        agent_add(agent, key, certify("stale", "20200101:20200102"))
        async with start_warden(manifest, env={"SSH_AUTH_SOCK": str(agent)}) as w:
            stale = await w.call("terminal_open", {"host": "box"})
            text = helpers.text_of(stale)
            assert stale.is_error and "its certificate 'stale' expired at 2020-01-02" in text, text
            agent_add(agent, key, certify("fresh", "-5m:+1h"))
            fresh = await w.call("terminal_open", {"host": "box"})
            assert not fresh.is_error, helpers.text_of(fresh)
        log = (server.dir / "sshd.log").read_text()
        assert "Accepted publickey" in log and "ED25519-CERT" in log and "ID fresh" in log, log[-2000:]
        assert "ID stale" not in log, log[-2000:]
    finally:
        stop_sshd(server)
