"""A real OpenSSH sshd on 127.0.0.1 for the terminal and SFTP tests.

Each fixture instance gets a fresh temp dir with its own host key, client key, authorized_keys
and known_hosts, a free port, and `MaxSessions` set low so a leaked channel shows up as a
refused session. sshd runs in the foreground (`-D -e`) by absolute path and is stopped by its
pid. Without /usr/sbin/sshd the tests are skipped, except under CI, where they fail.
"""

from __future__ import annotations

import getpass
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

SSHD = Path("/usr/sbin/sshd")
SSH_KEYGEN = "ssh-keygen"
MAX_SESSIONS = 4


@dataclass
class Sshd:
    dir: Path
    port: int
    user: str
    identity: Path
    known_hosts: Path
    host_pub: str
    proc: subprocess.Popen
    listen: str = "127.0.0.1"

    def host_block(self, alias: str = "box", known_hosts: Path | None = None) -> str:
        return (
            f"[ssh.hosts.{alias}]\n"
            f'address = "{self.listen}:{self.port}"\n'
            f'user = "{self.user}"\n'
            f'identity_file = "{self.identity}"\n'
            f'known_hosts = "{known_hosts or self.known_hosts}"\n\n'
        )

    def private_key_text(self) -> str:
        return self.identity.read_text()

    def shells(self) -> list[psutil.Process]:
        """Processes running under sshd that are not sshd itself (the session shells)."""
        out = []
        for child in psutil.Process(self.proc.pid).children(recursive=True):
            try:
                if "sshd" not in child.name():
                    out.append(child)
            except psutil.Error:
                pass
        return out


def _free_port(listen: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((listen, 0))
        return s.getsockname()[1]


def _keygen(path: Path) -> None:
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "warden-test", "-f", str(path)],
        check=True,
    )


def start_sshd(
    tmp: Path,
    listen: str = "127.0.0.1",
    extra_config: str = "",
    log_level: str = "VERBOSE",
    host_ca: Path | None = None,
    host_principals: str = "127.0.0.1",
) -> Sshd:
    """sshd on `listen` (any 127.0.0.0/8 address: all are this machine's), logging at
    `log_level`, with `extra_config` lines appended (sshd takes a keyword's first value, so
    they only add keywords). With `host_ca`, its host key is certified by that CA for
    `host_principals` and presented as a host certificate."""
    if not SSHD.is_file():
        message = f"{SSHD} is missing: apt-get install openssh-server"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    _keygen(tmp / "host_key")
    _keygen(tmp / "id_ed25519")
    (tmp / "authorized_keys").write_text((tmp / "id_ed25519.pub").read_text())
    if host_ca is not None:
        subprocess.run(
            [SSH_KEYGEN, "-q", "-s", str(host_ca), "-I", "test-host", "-h", "-n", host_principals,
             "-V", "-5m:+1h", str(tmp / "host_key.pub")],
            check=True,
        )
        extra_config += f"HostCertificate {tmp / 'host_key-cert.pub'}\n"
    port = _free_port(listen)
    host_pub = " ".join((tmp / "host_key.pub").read_text().split()[:2])
    known_hosts = tmp / "known_hosts"
    known_hosts.write_text(f"[{listen}]:{port} {host_pub}\n")
    config = tmp / "sshd_config"
    config.write_text(
        f"""Port {port}
ListenAddress {listen}
HostKey {tmp / "host_key"}
PidFile {tmp / "sshd.pid"}
AuthorizedKeysFile {tmp / "authorized_keys"}
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
MaxSessions {MAX_SESSIONS}
Subsystem sftp internal-sftp
LogLevel {log_level}
{extra_config}"""
    )
    log = open(tmp / "sshd.log", "w")
    proc = subprocess.Popen([str(SSHD), "-D", "-e", "-f", str(config)], stdout=log, stderr=log)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"sshd exited: {(tmp / 'sshd.log').read_text()[-2000:]}")
        try:
            with socket.create_connection((listen, port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.05)
    else:
        proc.kill()
        raise RuntimeError("sshd did not listen within 10 s")
    return Sshd(tmp, port, getpass.getuser(), tmp / "id_ed25519", known_hosts, host_pub, proc, listen)


def stop_sshd(sshd: Sshd) -> None:
    sshd.proc.terminate()
    try:
        sshd.proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        sshd.proc.kill()
        sshd.proc.wait()


@pytest.fixture()
def sshd(tmp_path: Path) -> Iterator[Sshd]:
    server = start_sshd(tmp_path / "sshd")
    yield server
    stop_sshd(server)
