"""A real OCI registry on loopback: the CNCF distribution registry (Debian's `docker-registry`),
with filesystem storage under a temporary directory, so a test can also damage what it stores.
Without the binary the tests are skipped, except under CI, where they fail."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

REGISTRY = shutil.which("docker-registry") or "/usr/bin/docker-registry"


@dataclass
class Registry:
    root: Path
    port: int
    proc: subprocess.Popen | None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def ref(self, repo_tag: str) -> str:
        return f"oci://{self.host}/{repo_tag}"

    def blob_path(self, digest: str) -> Path:
        hexd = digest.removeprefix("sha256:")
        return self.root / "docker/registry/v2/blobs/sha256" / hexd[:2] / hexd / "data"

    def push_blob(self, repo: str, data: bytes) -> str:
        """Upload `data` (monolithic upload, as the distribution API allows); its digest."""
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        start = urllib.request.Request(f"http://{self.host}/v2/{repo}/blobs/uploads/", method="POST")
        with urllib.request.urlopen(start, timeout=10) as r:
            location = r.headers["Location"]
        if location.startswith("/"):
            location = f"http://{self.host}{location}"
        sep = "&" if "?" in location else "?"
        put = urllib.request.Request(
            f"{location}{sep}digest={digest}", data=data, method="PUT",
            headers={"Content-Type": "application/octet-stream"},
        )
        with urllib.request.urlopen(put, timeout=10):
            pass
        return digest

    def push_manifest(self, repo: str, tag: str, manifest: dict) -> None:
        body = json.dumps(manifest).encode()
        put = urllib.request.Request(
            f"http://{self.host}/v2/{repo}/manifests/{tag}", data=body, method="PUT",
            headers={"Content-Type": "application/vnd.oci.image.manifest.v1+json"},
        )
        with urllib.request.urlopen(put, timeout=10):
            pass

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_registry(tmp: Path, user: tuple[str, str] | None = None) -> Registry:
    """A registry on 127.0.0.1; with `user` (name, password) it requires basic authentication."""
    if not Path(REGISTRY).is_file():
        message = f"{REGISTRY} is missing: apt-get install docker-registry"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    tmp.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    auth = ""
    if user is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import crypt

            hashed = crypt.crypt(user[1], crypt.mksalt(crypt.METHOD_BLOWFISH))
        (tmp / "htpasswd").write_text(f"{user[0]}:{hashed}\n")
        auth = f"auth:\n  htpasswd:\n    realm: warden-test\n    path: {tmp / 'htpasswd'}\n"
    config = tmp / "config.yml"
    config.write_text(
        f"""version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: {tmp / "data"}
  delete:
    enabled: true
http:
  addr: 127.0.0.1:{port}
{auth}"""
    )
    log = open(tmp / "registry.log", "w")
    proc = subprocess.Popen([REGISTRY, "serve", str(config)], stdout=log, stderr=log)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"docker-registry exited: {(tmp / 'registry.log').read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/", timeout=1) as r:
                if r.status == 200:
                    break
        except urllib.error.HTTPError as e:
            if e.code == 401:
                break
        except OSError:
            time.sleep(0.05)
    else:
        proc.kill()
        raise RuntimeError("docker-registry did not answer within 15 s")
    return Registry(tmp / "data", port, proc)
