"""A real RDP server on 127.0.0.1 for the remote desktop tests: FreeRDP's shadow server
sharing an Xvfb display that shows a known background colour and two xterms.

Each fixture gets a fresh temp dir with its own display, server certificate and key (in
`$XDG_CONFIG_HOME/freerdp/shadow`, where the shadow server looks for them), SAM file for NLA
and free port. The xterms' shells start in directories of their own, so a test can tell
which window received typed text. Every process is started by absolute path and stopped by
its pid. Without the binaries the tests are skipped, except under CI, where they fail.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import struct
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

BINARIES = ("Xvfb", "xsetroot", "xrandr", "xterm", "freerdp-shadow-cli", "openssl")
PACKAGES = "freerdp2-shadow-x11 xvfb x11-xserver-utils xterm openssl"
WIDTH, HEIGHT = 1024, 768
BACKGROUND = (0x33, 0x66, 0xCC)
USER = "tester"
# The two xterms: columns x rows + left + top (the "fixed" font is 6x13 pixels).
XTERM_A = "80x24+100+100"
XTERM_B = "40x10+600+450"


def md4(data: bytes) -> bytes:
    """MD4 (RFC 1320), which NTLM hashes passwords with; OpenSSL 3 keeps it in its legacy provider."""

    def rotl(x: int, n: int) -> int:
        x &= 0xFFFFFFFF
        return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF

    msg = data + b"\x80" + b"\x00" * ((55 - len(data)) % 64) + struct.pack("<Q", len(data) * 8)
    a, b, c, d = 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476
    for off in range(0, len(msg), 64):
        x = struct.unpack("<16I", msg[off : off + 64])
        aa, bb, cc, dd = a, b, c, d
        for i in range(16):
            s = (3, 7, 11, 19)[i % 4]
            a, b, c, d = d, rotl(a + ((b & c) | (~b & d)) + x[i], s), b, c
        for i in range(16):
            k, s = (i % 4) * 4 + i // 4, (3, 5, 9, 13)[i % 4]
            a, b, c, d = d, rotl(a + ((b & c) | (b & d) | (c & d)) + x[k] + 0x5A827999, s), b, c
        for i in range(16):
            k = (0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15)[i]
            s = (3, 9, 11, 15)[i % 4]
            a, b, c, d = d, rotl(a + (b ^ c ^ d) + x[k] + 0x6ED9EBA1, s), b, c
        a, b, c, d = ((v + w) & 0xFFFFFFFF for v, w in ((a, aa), (b, bb), (c, cc), (d, dd)))
    return struct.pack("<4I", a, b, c, d)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_cert(dir: Path, name: str) -> str:
    """A self-signed RSA certificate and key as DIR/NAME.crt, .key; returns its SHA-256 fingerprint."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
         "-keyout", str(dir / f"{name}.key"), "-out", str(dir / f"{name}.crt")],
        check=True, capture_output=True,
    )
    der = subprocess.run(
        ["openssl", "x509", "-in", str(dir / f"{name}.crt"), "-outform", "DER"], check=True, capture_output=True
    ).stdout
    return hashlib.sha256(der).hexdigest()


@dataclass
class RdpServer:
    dir: Path
    port: int
    display: str
    password: str
    fingerprint: str
    #: The fingerprint of another certificate, for "changed certificate" tests.
    other_fingerprint: str
    #: Working directories of the xterms' shells.
    shell_a: Path
    shell_b: Path
    procs: list[subprocess.Popen] = field(default_factory=list)
    #: The shadow server's environment (restart_shadow starts it again with it).
    env: dict[str, str] = field(default_factory=dict)

    def host_block(
        self, alias: str = "desk", pin: str | None = "", password_env: str | None = None, remotefx: bool | None = None
    ) -> str:
        pin = self.fingerprint if pin == "" else pin
        password = f'{{ env = "{password_env}" }}' if password_env else f'{{ value = "{self.password}" }}'
        return (
            f"[rdp.hosts.{alias}]\n"
            f'address = "127.0.0.1:{self.port}"\n'
            f'user = "{USER}"\n'
            f"password = {password}\n"
            + (f'cert_sha256 = "{pin}"\n' if pin else "")
            + (f"remotefx = {str(remotefx).lower()}\n" if remotefx is not None else "")
            + "\n"
        )

    def stop_shadow(self) -> None:
        """Stop the RDP server process (the display and its windows stay): every connection drops."""
        shadow = self.procs.pop()
        shadow.terminate()
        try:
            shadow.wait(timeout=5)
        except subprocess.TimeoutExpired:
            shadow.kill()
            shadow.wait()

    def restart_shadow(self) -> None:
        """Stop the RDP server and start it again on the same port with the same certificate."""
        self.stop_shadow()
        self.procs.append(_start_shadow(self.dir, self.port, self.env))

    def set_screen(self, width: int, height: int) -> None:
        """Change the X screen's size (at most the size Xvfb started with), as a server-side
        resolution change: the shadow server tells its clients."""
        # Xvfb shrinks the screen but then fails to fit its single output into it, so xrandr
        # exits 1 after the resize took effect: check the screen's size instead.
        subprocess.run(["xrandr", "--fb", f"{width}x{height}"], env=self.env, capture_output=True)
        query = subprocess.run(["xrandr", "--current"], env=self.env, capture_output=True, text=True).stdout
        assert f"current {width} x {height}" in query, query

    def connections(self) -> int:
        """TCP connections established to the server's port (a leaked session shows here)."""
        return sum(
            1
            for c in psutil.net_connections("tcp")
            if c.laddr and c.laddr.port == self.port and c.status == psutil.CONN_ESTABLISHED
        )


def _require_binaries() -> None:
    missing = [b for b in BINARIES if shutil.which(b) is None]
    if missing:
        message = f"{', '.join(missing)} missing: apt-get install {PACKAGES}"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def _start_xvfb(tmp: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    read_fd, write_fd = os.pipe()
    log = open(tmp / "xvfb.log", "w")
    proc = subprocess.Popen(
        [shutil.which("Xvfb") or "Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{WIDTH}x{HEIGHT}x24",
         "-nolisten", "tcp", "-noreset"],
        pass_fds=(write_fd,), stdout=log, stderr=log, env=env,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as r:
        number = r.readline().strip()
    if not number:
        proc.kill()
        raise RuntimeError(f"Xvfb did not start: {(tmp / 'xvfb.log').read_text()[-2000:]}")
    return proc, f":{number}"


def start_rdp_server(tmp: Path, password: str = "Corr3ct-Horse") -> RdpServer:
    _require_binaries()
    tmp.mkdir(parents=True, exist_ok=True)
    config = tmp / "config"
    (config / "freerdp" / "shadow").mkdir(parents=True)
    fingerprint = make_cert(config / "freerdp" / "shadow", "shadow")
    other = make_cert(tmp, "other")
    sam = tmp / "sam"
    sam.write_text(f"{USER}:::{md4(password.encode('utf-16le')).hex()}:::\n")
    shell_a, shell_b = tmp / "shell-a", tmp / "shell-b"
    shell_a.mkdir()
    shell_b.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp),
        "XDG_CONFIG_HOME": str(config),
        "SHELL": "/bin/sh",
        "PS1": "$ ",
    }
    procs: list[subprocess.Popen] = []
    try:
        xvfb, display = _start_xvfb(tmp, env)
        procs.append(xvfb)
        env["DISPLAY"] = display
        subprocess.run(["xsetroot", "-solid", "#%02x%02x%02x" % BACKGROUND], env=env, check=True)
        for geometry, cwd in ((XTERM_A, shell_a), (XTERM_B, shell_b)):
            procs.append(
                subprocess.Popen(
                    [shutil.which("xterm") or "xterm", "-geometry", geometry, "-e", "/bin/sh"],
                    cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
            )
        port = _free_port()
        procs.append(_start_shadow(tmp, port, env))
    except BaseException:
        _stop(procs)
        raise
    return RdpServer(tmp, port, display, password, fingerprint, other, shell_a, shell_b, procs, env)


def _start_shadow(tmp: Path, port: int, env: dict[str, str]) -> subprocess.Popen:
    """The shadow server on 127.0.0.1:port (certificate from env's XDG_CONFIG_HOME, SAM file
    tmp/sam), once it listens."""
    log = open(tmp / "shadow.log", "a")
    shadow = subprocess.Popen(
        [shutil.which("freerdp-shadow-cli") or "freerdp-shadow-cli", "/bind-address:127.0.0.1",
         f"/port:{port}", "+sec-tls", "+sec-nla", "-sec-rdp", f"/sam-file:{tmp / 'sam'}", "+auth"],
        env=env, stdout=log, stderr=log, cwd=tmp,
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if shadow.poll() is not None:
            raise RuntimeError(f"the shadow server exited: {(tmp / 'shadow.log').read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return shadow
        except OSError:
            time.sleep(0.05)
    shadow.kill()
    raise RuntimeError("the shadow server did not listen within 15 s")


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in reversed(procs):
        p.terminate()
    for p in reversed(procs):
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def stop_rdp_server(server: RdpServer) -> None:
    _stop(server.procs)


@pytest.fixture(scope="module")
def rdp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RdpServer]:
    server = start_rdp_server(tmp_path_factory.mktemp("rdp"))
    yield server
    stop_rdp_server(server)
