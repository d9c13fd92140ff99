"""OpenSSH user certificates (`certificate` in `[ssh.hosts]`): a throwaway CA made with
`ssh-keygen -s`, and a real sshd that trusts it (`TrustedUserCAKeys`) and holds no
authorized key, so only a certificate gets in.

- A valid certificate for the user: the session opens; sshd logged a certificate login.
- An expired certificate: refused before authenticating, the error says when it expired.
- A certificate for another principal: sshd refuses it; the error names the host.
"""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

import pytest

from sshd import SSH_KEYGEN, Sshd, start_sshd, stop_sshd

pytestmark = pytest.mark.anyio


def sign(ca: Path, key: Path, name: str, principal: str, validity: str) -> Path:
    """A certificate of `key`'s public half, signed by `ca`, as `<name>-cert.pub`."""
    pub = key.with_suffix(".pub")
    out = key.parent / f"{name}.pub"
    copy = key.parent / name
    copy.with_suffix(".pub").write_text(pub.read_text())
    subprocess.run(
        [SSH_KEYGEN, "-q", "-s", str(ca), "-I", name, "-n", principal, "-V", validity, str(out)],
        check=True,
    )
    return key.parent / f"{name}-cert.pub"


@pytest.fixture()
def certified(tmp_path: Path):
    ca = tmp_path / "ca"
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "test-ca", "-f", str(ca)], check=True)
    server = start_sshd(tmp_path / "sshd", extra_config=f"TrustedUserCAKeys {ca}.pub\n")
    # No authorized key: the plain key alone is refused, so a login proves the certificate.
    (server.dir / "authorized_keys").write_text("")
    yield server, ca
    stop_sshd(server)


def host(server: Sshd, alias: str, cert: Path) -> str:
    return server.host_block(alias).replace("\n\n", f'\ncertificate = "{cert}"\n\n', 1)


async def test_a_certificate_is_presented_checked_and_refused_when_it_cannot_serve(
    certified, start_warden, write_manifest, helpers
):
    server, ca = certified
    user = getpass.getuser()
    good = sign(ca, server.identity, "good", user, "-5m:+1h")
    expired = sign(ca, server.identity, "expired", user, "20200101:20200102")
    other = sign(ca, server.identity, "other", "someone-else", "-5m:+1h")
    manifest = write_manifest(
        host(server, "good", good)
        + host(server, "expired", expired)
        + host(server, "other", other)
        + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
        + 'grants.terminal = { ssh_hosts = ["good", "expired", "other"] }\n'
    )
    async with start_warden(manifest) as w:
        opened = await w.call("terminal_open", {"host": "good"})
        assert not opened.is_error, helpers.text_of(opened)
        log = (server.dir / "sshd.log").read_text()
        assert "Accepted publickey" in log and "ED25519-CERT" in log, log[-2000:]

        late = await w.call("terminal_open", {"host": "expired"})
        text = helpers.text_of(late)
        assert late.is_error and "certificate of ssh host 'expired' expired at 2020-01-02" in text, text

        stranger = await w.call("terminal_open", {"host": "other"})
        text = helpers.text_of(stranger)
        assert stranger.is_error and "ssh host 'other' refused authentication" in text, text
    log = (server.dir / "sshd.log").read_text()
    # The expired certificate never reached the server; the other principal's was refused there.
    assert 'ID "expired"' not in log and "ID expired" not in log, log[-2000:]
    assert "name is not a listed principal" in log and "Failed publickey" in log and "ID other" in log, log[-2000:]
