"""OpenSSH user certificates (`certificate` in `[ssh.hosts]`): a throwaway CA made with
`ssh-keygen -s`, and a real sshd that trusts it (`TrustedUserCAKeys`) and holds no
authorized key, so only a certificate gets in.

- A valid certificate for the user: the session opens; sshd logged a certificate login.
- An expired certificate: refused before authenticating, the error says when it expired.
- A certificate for another principal: sshd refuses it; the error names the host.
- Host certificates: a server whose host key a CA certified is known through the CA's
  `@cert-authority` line alone; one certified for another name is refused; a key marked
  `@revoked` is refused even where a plain line lists it; a wildcard line matches.
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


async def test_host_certificates_revocations_and_patterns_in_known_hosts(tmp_path, start_warden, write_manifest, helpers):
    ca = tmp_path / "host-ca"
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "host-ca", "-f", str(ca)], check=True)
    ca_pub = " ".join((tmp_path / "host-ca.pub").read_text().split()[:2])
    certified = start_sshd(tmp_path / "certified", host_ca=ca)
    misnamed = start_sshd(tmp_path / "misnamed", host_ca=ca, host_principals="other.example")
    try:
        files = {
            # No plain line: only the authority vouches for the host.
            "vouched": f"@cert-authority [127.0.0.1]:{certified.port} {ca_pub}\n",
            "misnamed": f"@cert-authority [127.0.0.1]:{misnamed.port} {ca_pub}\n",
            # Listed, and revoked: revoked wins.
            "revoked": f"[127.0.0.1]:{certified.port} {certified.host_pub}\n@revoked * {certified.host_pub}\n",
            # A pattern, as admins write them for fleets.
            "pattern": f"[127.0.0.?]:* {certified.host_pub}\n",
        }
        blocks = ""
        for alias, text in files.items():
            path = tmp_path / f"known_hosts_{alias}"
            path.write_text(text)
            server = misnamed if alias == "misnamed" else certified
            blocks += server.host_block(alias, known_hosts=path)
        manifest = write_manifest(
            blocks
            + '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\n'
            + f'grants.terminal = {{ ssh_hosts = {list(files)!r} }}\n'.replace("'", '"')
        )
        async with start_warden(manifest) as w:
            results = {alias: await w.call("terminal_open", {"host": alias}) for alias in files}
        texts = {alias: helpers.text_of(r) for alias, r in results.items()}
        assert not results["vouched"].is_error, texts["vouched"]
        assert not results["pattern"].is_error, texts["pattern"]
        assert results["misnamed"].is_error and "do not name the host" in texts["misnamed"], texts["misnamed"]
        assert "other.example" in texts["misnamed"], texts["misnamed"]
        assert results["revoked"].is_error and "marked @revoked" in texts["revoked"], texts["revoked"]
        # What the servers saw: logins for the two accepted, none for the refused.
        certified_log = (certified.dir / "sshd.log").read_text()
        assert certified_log.count("Accepted publickey") == 2, certified_log[-2000:]
        assert "Accepted publickey" not in (misnamed.dir / "sshd.log").read_text()
    finally:
        stop_sshd(certified)
        stop_sshd(misnamed)
