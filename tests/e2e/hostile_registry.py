"""A registry that lies, and a recorder that must hear nothing.

`HostileRegistry` speaks enough of the OCI distribution API (manifests and blobs by digest or
tag, Basic authentication, a token realm on its own origin) to serve a plugin honestly, and,
per repository, lies: a blob or a manifest that streams without end whatever its descriptor
declares, a blob redirected to another host, a token realm on another host, error answers that
echo the request (its `Authorization` header and the password) or run to megabytes. It counts
what it sent, so a test can tell that Warden stopped reading.

`Recorder` listens on another loopback address (127.0.0.2) and records every connection it
accepts and every request it reads, answering each with a 401."""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

MIB = 1024 * 1024
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
PAYLOAD_TYPE = "application/vnd.dev.cosign.simplesigning.v1+json"


def digest_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]  # by lowercase name


def _lower(headers) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:  # a client that hung up
        pass


class Recorder:
    """Records every connection and request on `host`; answers 401 with no body."""

    def __init__(self, host: str = "127.0.0.2") -> None:
        self.connections = 0
        self.requests: list[Seen] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_any(self) -> None:
                recorder.requests.append(Seen(self.command, self.path, _lower(self.headers)))
                self.send_response(401)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_PUT = do_HEAD = do_any

            def log_message(self, *args) -> None:
                pass

        class Server(_Quiet):
            def get_request(self):
                conn = super().get_request()
                recorder.connections += 1
                return conn

        self.server = Server((host, 0), Handler)
        self.host, self.port = self.server.server_address[:2]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def heard_nothing(self) -> bool:
        return self.connections == 0 and not self.requests

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class Repo:
    """One repository's content and how it lies."""

    manifests: dict[str, bytes] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    # digest -> bytes to stream for it, without end (ignoring its declared size)
    endless: set[str] = field(default_factory=set)
    endless_manifests: bool = False
    # blob requests answered with a redirect to this URL prefix
    redirect_blobs: str | None = None
    # every authorized request answered with this status and body maker (of its headers)
    error: tuple[int, Callable[[dict[str, str]], bytes]] | None = None
    # the upload location a push is sent to
    upload_location: str | None = None


class HostileRegistry:
    """With `user`, every request needs its Basic credentials; with `realm` as well, a token
    from that realm instead (the 401 names it; `"own"` is the registry's own `/token`)."""

    def __init__(self, user: tuple[str, str] | None = None, realm: str | None = None) -> None:
        self.user = user
        self.repos: dict[str, Repo] = {}
        self.sent = 0  # body bytes written in endless answers
        self.seen: list[Seen] = []
        self.tokens_issued: list[str] = []
        registry = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                registry._serve(self)

            do_HEAD = do_POST = do_PUT = do_GET

        self.server = _Quiet(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.realm = f"http://{self.host}/token" if realm == "own" else realm
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def ref(self, repo: str, digest: str, tag: str = "1") -> str:
        return f"oci://{self.host}/{repo}:{tag}@{digest}"

    def repo(self, name: str) -> Repo:
        return self.repos.setdefault(name, Repo())

    def add_blob(self, repo: str, data: bytes) -> dict:
        digest = digest_of(data)
        self.repo(repo).blobs[digest] = data
        return {"mediaType": "application/wasm", "digest": digest, "size": len(data)}

    def add_manifest(self, repo: str, layers: list[dict], tag: str = "1") -> str:
        config = self.add_blob(repo, b"{}")
        config["mediaType"] = "application/vnd.wasm.config.v0+json"
        body = json.dumps(
            {"schemaVersion": 2, "mediaType": OCI_MANIFEST, "config": config, "layers": layers}
        ).encode()
        digest = digest_of(body)
        r = self.repo(repo)
        r.manifests[digest] = body
        r.manifests[tag] = body
        return digest

    def add_plugin(self, repo: str, wasm: bytes) -> str:
        """An honest artifact; its manifest digest."""
        return self.add_manifest(repo, [self.add_blob(repo, wasm)])

    def basic(self) -> str:
        assert self.user is not None
        return "Basic " + base64.b64encode(f"{self.user[0]}:{self.user[1]}".encode()).decode()

    # ------------------------------------------------------------------ serving

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        headers = _lower(h.headers)
        self.seen.append(Seen(h.command, h.path, headers))
        length = int(h.headers.get("Content-Length") or 0)
        if length:
            h.rfile.read(length)
        path = h.path.split("?", 1)[0]
        auth = h.headers.get("Authorization", "")
        if path == "/token":
            if self.user is not None and auth != self.basic():
                return self._answer(h, 401, b'{"errors":[{"code":"UNAUTHORIZED","message":"bad credentials"}]}')
            token = "tok-" + hashlib.sha256(str(len(self.tokens_issued)).encode()).hexdigest()[:24]
            self.tokens_issued.append(token)
            return self._answer(h, 200, json.dumps({"token": token}).encode())
        if path == "/v2/":
            if self._authorized(h, auth):
                self._answer(h, 200, b"{}")
            return
        parts = path.removeprefix("/v2/").split("/")
        for kind in ("manifests", "blobs"):
            if kind in parts:
                at = parts.index(kind)
                name, rest = "/".join(parts[:at]), parts[at + 1 :]
                break
        else:
            return self._answer(h, 404, b"")
        if not self._authorized(h, auth):
            return
        # A push makes its repository, as in a real registry.
        repo = self.repo(name) if h.command in ("POST", "PUT") else self.repos.get(name)
        if repo is None:
            return self._answer(h, 404, b'{"errors":[{"code":"NAME_UNKNOWN","message":"no such repository"}]}')
        if repo.error is not None:
            status, body = repo.error
            return self._answer(h, status, body(headers))
        if kind == "blobs" and rest[:1] == ["uploads"]:
            if h.command == "POST":
                location = repo.upload_location or f"/v2/{name}/blobs/uploads/u1"
                return self._answer(h, 202, b"", {"Location": location})
            return self._answer(h, 201, b"")
        key = "/".join(rest)
        if kind == "manifests":
            if h.command == "PUT":
                return self._answer(h, 201, b"")
            if repo.endless_manifests:
                return self._endless(h, OCI_MANIFEST)
            body = repo.manifests.get(key)
            if body is None:
                return self._answer(h, 404, b'{"errors":[{"code":"MANIFEST_UNKNOWN","message":"unknown"}]}')
            return self._answer(h, 200, body, {"Content-Type": OCI_MANIFEST})
        if repo.redirect_blobs is not None:
            return self._answer(h, 307, b"", {"Location": f"{repo.redirect_blobs}/{key}"})
        if key in repo.endless:
            return self._endless(h, "application/octet-stream")
        body = repo.blobs.get(key)
        if body is None:
            return self._answer(h, 404, b'{"errors":[{"code":"BLOB_UNKNOWN","message":"unknown"}]}')
        return self._answer(h, 200, body)

    def _authorized(self, h: BaseHTTPRequestHandler, auth: str) -> bool:
        if self.user is None and self.realm is None:
            return True
        if self.tokens_issued and auth == f"Bearer {self.tokens_issued[-1]}":
            return True
        if self.realm is None and auth == self.basic():
            return True
        challenge = (
            f'Bearer realm="{self.realm}",service="hostile",scope="repository:x:pull"'
            if self.realm is not None
            else 'Basic realm="hostile"'
        )
        self._answer(h, 401, b'{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}', {"WWW-Authenticate": challenge})
        return False

    def _answer(self, h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        h.send_response(status)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if h.command != "HEAD":
            try:
                h.wfile.write(body)
            except OSError:
                pass

    def _endless(self, h: BaseHTTPRequestHandler, content_type: str) -> None:
        """400 MiB with no length: a close-delimited body, until the client hangs up."""
        h.send_response(200)
        h.send_header("Content-Type", content_type)
        h.end_headers()
        chunk = b"\0" * MIB
        try:
            for _ in range(400):
                h.wfile.write(chunk)
                self.sent += len(chunk)
        except OSError:
            pass

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
