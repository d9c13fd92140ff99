"""MCP authorization over HTTP (`[server.http.oauth]`): Warden as an OAuth resource server.
A small authorization server runs in the test (a JWKS endpoint on loopback; tokens signed
here with `cryptography`), and the real `warden serve --http` is driven with the official
Python MCP client and raw HTTP:

- the protected resource metadata (RFC 9728) at both well-known paths, and 401 challenges
  that point to it;
- a valid token names its mapped client in the audit log; a static token still works;
- hostile tokens are refused: expired, wrong issuer, another resource's audience, alg none,
  HS256 keyed with the public key, unknown kid, forged and tampered signatures, missing
  scope (403), no client mapping (403); refusals are audited, tokens never logged;
- a rotated JWKS (new kid) is picked up, and a flood of made-up kids does not make Warden
  hammer the authorization server;
- a hostile JWKS answer (400 MiB without a length, a 900 KiB value its log line would quote,
  a redirect to an address no one named) is read within its bound, described without being
  quoted, and not followed; each token it fails is audited as such."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import httpx2
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from ops_helpers import free_port, mcp_session, serve

pytestmark = pytest.mark.anyio

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def uint(n: int) -> str:
    return b64(n.to_bytes((n.bit_length() + 7) // 8, "big"))


class Key:
    """A signing key of the test authorization server, with its public JWK."""

    def __init__(self, kid: str, kind: str = "RSA") -> None:
        self.kid = kid
        self.kind = kind
        if kind == "RSA":
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            pub = self.private.public_key().public_numbers()
            self.jwk = {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": uint(pub.n), "e": uint(pub.e)}
            self.alg = "RS256"
        else:
            self.private = ec.generate_private_key(ec.SECP256R1())
            pub = self.private.public_key().public_numbers()
            self.jwk = {
                "kty": "EC",
                "kid": kid,
                "crv": "P-256",
                "x": b64(pub.x.to_bytes(32, "big")),
                "y": b64(pub.y.to_bytes(32, "big")),
            }
            self.alg = "ES256"

    def public_pem(self) -> bytes:
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )

    def sign(self, data: bytes) -> bytes:
        if self.kind == "RSA":
            return self.private.sign(data, padding.PKCS1v15(), hashes.SHA256())
        r, s = decode_dss_signature(self.private.sign(data, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def token(key: Key, claims: dict[str, Any], kid: str | None = None, alg: str | None = None) -> str:
    header = {"alg": alg or key.alg, "typ": "at+jwt", "kid": kid or key.kid}
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}"
    return f"{signing_input}.{b64(key.sign(signing_input.encode()))}"


# What a hostile IdP puts into a JWKS answer that a log line would quote.
SAID = "s3cret-said-by-the-idp "
MIB = 1024 * 1024


class Idp:
    """The authorization server's JWKS endpoint on loopback, counting fetches. `mode` makes
    it hostile: `endless` (400 MiB with no length), `quote` (a 900 KiB string where the key
    list belongs), `redirect` (to `redirect_to`); `sent` counts the endless bytes it wrote."""

    def __init__(self, keys: list[Key]) -> None:
        self.keys = keys
        self.fetches = 0
        self.mode: str | None = None
        self.redirect_to = ""
        self.sent = 0
        idp = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                if self.path != "/jwks":
                    self.send_error(404)
                    return
                idp.fetches += 1
                if idp.mode is not None:
                    self.hostile(idp.mode)
                    return
                body = json.dumps({"keys": [k.jwk for k in idp.keys]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def hostile(self, mode: str) -> None:
                if mode == "redirect":
                    self.send_response(307)
                    self.send_header("Location", idp.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if mode == "quote":
                    body = json.dumps({"keys": SAID * (900 * 1024 // len(SAID))}).encode()
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                self.end_headers()  # no length: the body runs until the connection closes
                chunk = b"{\"keys\": [" + b" " * (MIB - 10)
                try:
                    for _ in range(400):
                        self.wfile.write(chunk)
                        idp.sent += len(chunk)
                except OSError:
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address) -> None:  # a client that hung up
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


@contextlib.contextmanager
def oauth_warden(warden_bin, warden_env, write_manifest, helpers, echo_wasm, idp: Idp, extra: str = "") -> Iterator[dict]:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    static = "static-token-" + os.urandom(12).hex()
    manifest = write_manifest(
        f"""[server.http.clients.robot]
token_env = "ROBOT_TOKEN"

[server.http.oauth]
issuer = "{idp.issuer}"
jwks_url = "{idp.issuer}/jwks"
resource = "{resource}"
scopes_supported = ["mcp:tools", "mcp:admin"]
required_scopes = ["mcp:tools"]
jwks_min_refresh = "1s"
{extra}
[server.http.oauth.clients.agent]
client_id = "agent-app"

[server.http.oauth.clients.ops]
subject = "ops-user"

"""
        + helpers.plugin_block("echo", echo_wasm)
    )
    with serve(warden_bin, manifest.path, {**warden_env, "ROBOT_TOKEN": static}, f"127.0.0.1:{port}"):
        yield {
            "url": resource,
            "port": port,
            "manifest": manifest,
            "static": static,
            "log": manifest.path.parent / f"serve-127.0.0.1_{port}.log",
        }


def claims(idp: Idp, resource: str, **over: Any) -> dict[str, Any]:
    now = int(time.time())
    c = {
        "iss": idp.issuer,
        "aud": resource,
        "sub": "user-1",
        "client_id": "agent-app",
        "scope": "mcp:tools",
        "iat": now,
        "exp": now + 300,
    }
    c.update(over)
    return {k: v for k, v in c.items() if v is not None}


async def post_init(url: str, bearer: str | None) -> httpx2.Response:
    headers = dict(ACCEPT)
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    async with httpx2.AsyncClient() as client:
        return await client.post(url, json=INIT, headers=headers)


@pytest.fixture()
def idp() -> Iterator[Idp]:
    server = Idp([Key("k1"), Key("ec1", "EC")])
    yield server
    server.close()


async def test_metadata_is_served_and_401s_point_to_it(warden_bin, warden_env, write_manifest, helpers, echo_wasm, idp):
    with oauth_warden(warden_bin, warden_env, write_manifest, helpers, echo_wasm, idp) as w:
        base = f"http://127.0.0.1:{w['port']}"
        expected = {
            "resource": w["url"],
            "authorization_servers": [idp.issuer],
            "scopes_supported": ["mcp:tools", "mcp:admin"],
            "bearer_methods_supported": ["header"],
        }
        async with httpx2.AsyncClient() as client:
            for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
                r = await client.get(base + path)
                assert r.status_code == 200, (path, r.status_code, r.text)
                assert r.headers["content-type"] == "application/json"
                doc = r.json()
                assert {k: doc.get(k) for k in expected} == expected, doc

        missing = await post_init(w["url"], None)
        assert missing.status_code == 401, missing.text
        challenge = missing.headers["www-authenticate"]
        assert challenge.startswith("Bearer "), challenge
        assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge, challenge
        assert 'scope="mcp:tools"' in challenge and "error=" not in challenge, challenge


async def test_tokens_map_to_clients_and_hostile_tokens_are_refused(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm, idp
):
    k1, ec1 = idp.keys
    outsider = Key("k1")  # same kid, a key the IdP never published
    with oauth_warden(warden_bin, warden_env, write_manifest, helpers, echo_wasm, idp) as w:
        url = w["url"]
        good = token(k1, claims(idp, url))
        async with mcp_session(url, headers={"Authorization": f"Bearer {good}"}) as session:
            names = {t.name for t in (await session.list_tools()).tools}
            assert "echo" in names, names
            result = await session.call_tool("echo", {"text": "via oauth"})
            assert not result.is_error, result
        # ES256 too, and a subject mapping; aud as a list that contains this resource.
        ops = token(ec1, claims(idp, url, sub="ops-user", client_id="x", aud=["https://elsewhere.example/mcp", url]))
        async with mcp_session(url, headers={"Authorization": f"Bearer {ops}"}) as session:
            assert not (await session.call_tool("echo", {"text": "ops"})).is_error
        async with mcp_session(url, headers={"Authorization": f"Bearer {w['static']}"}) as session:
            assert not (await session.call_tool("echo", {"text": "static"})).is_error

        now = int(time.time())
        signing_input = f"{b64(json.dumps({'alg': 'HS256', 'kid': 'k1'}).encode())}.{b64(json.dumps(claims(idp, url)).encode())}"
        hs256_with_public_key = (
            f"{signing_input}.{b64(hmac.new(k1.public_pem(), signing_input.encode(), hashlib.sha256).digest())}"
        )
        unsigned = f"{b64(json.dumps({'alg': 'none', 'kid': 'k1'}).encode())}.{b64(json.dumps(claims(idp, url)).encode())}."
        head, _, sig = good.split(".")
        tampered = f"{head}.{b64(json.dumps(claims(idp, url, client_id='agent-app', sub='admin')).encode())}.{sig}"
        hostile = {
            "expired": token(k1, claims(idp, url, iat=now - 900, exp=now - 600)),
            "not yet valid": token(k1, claims(idp, url, nbf=now + 600)),
            "no expiry": token(k1, claims(idp, url, exp=None)),
            "wrong issuer": token(k1, claims(idp, url, iss="http://127.0.0.1:1")),
            "another resource": token(k1, claims(idp, url, aud="http://127.0.0.1:1/mcp")),
            "no audience": token(k1, claims(idp, url, aud=None)),
            "alg none": unsigned,
            "HS256 keyed with the public key": hs256_with_public_key,
            "RS256 header on the EC key": token(k1, claims(idp, url), kid="ec1"),
            "unknown kid": token(Key("ghost"), claims(idp, url)),
            "forged with an unpublished key": token(outsider, claims(idp, url)),
            "tampered claims": tampered,
            "not a JWT": "definitely-not-a-token-" + os.urandom(8).hex(),
        }
        for what, bad in hostile.items():
            r = await post_init(url, bad)
            challenge = r.headers.get("www-authenticate", "")
            assert r.status_code == 401, (what, r.status_code, r.text)
            assert 'error="invalid_token"' in challenge and "resource_metadata=" in challenge, (what, challenge)

        forbidden = {
            "missing scope": token(k1, claims(idp, url, scope="mcp:admin")),
            "no client": token(k1, claims(idp, url, client_id="stranger", sub="nobody")),
        }
        for what, bad in forbidden.items():
            r = await post_init(url, bad)
            challenge = r.headers.get("www-authenticate", "")
            assert r.status_code == 403, (what, r.status_code, r.text)
            assert 'error="insufficient_scope"' in challenge and 'scope="mcp:tools"' in challenge, (what, challenge)

        log = w["log"].read_text()
    lines = w["manifest"].audit_lines()
    clients = [line["client"] for line in lines if line["event"] == "tool_call"]
    assert [c.split(" ")[0] for c in clients] == ["agent", "ops", "robot"], clients
    refused = [line for line in lines if line["event"] == "auth_refused"]
    assert len(refused) == len(hostile) + len(forbidden), refused
    assert all(line["decision"] == "denied" and line["reason"] for line in refused), refused
    audit_text = w["manifest"].audit.read_text()
    for secret in [good, ops, w["static"], *hostile.values(), *forbidden.values()]:
        assert secret not in audit_text and secret not in log


async def test_rotated_keys_are_picked_up_and_kid_floods_do_not_hammer_the_idp(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm, idp
):
    k1 = idp.keys[0]
    with oauth_warden(warden_bin, warden_env, write_manifest, helpers, echo_wasm, idp) as w:
        url = w["url"]
        assert (await post_init(url, token(k1, claims(idp, url)))).status_code == 200
        fetched = idp.fetches
        assert fetched == 1, fetched

        # The IdP rotates to a new key; once the refresh interval has passed, its kid is fetched.
        k2 = Key("k2")
        idp.keys = [k2]
        time.sleep(1.2)
        async with mcp_session(url, headers={"Authorization": f"Bearer {token(k2, claims(idp, url))}"}) as session:
            assert not (await session.call_tool("echo", {"text": "rotated"})).is_error
        assert idp.fetches == fetched + 1, idp.fetches

        # Made-up kids: each is refused, and together they cost the IdP at most one fetch per
        # second (jwks_min_refresh), not one each.
        before, started = idp.fetches, time.monotonic()
        for i in range(40):
            r = await post_init(url, token(Key(f"random-{i}", "EC"), claims(idp, url)))
            assert r.status_code == 401, r.text
        elapsed = time.monotonic() - started
        assert idp.fetches - before <= int(elapsed) + 1, (idp.fetches - before, elapsed)


async def test_a_hostile_jwks_is_bounded_never_quoted_and_never_followed(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm, idp
):
    from hostile_registry import Recorder

    recorder = Recorder("127.0.0.2")
    idp.redirect_to = f"{recorder.origin}/jwks"
    try:
        with oauth_warden(warden_bin, warden_env, write_manifest, helpers, echo_wasm, idp) as w:
            url = w["url"]
            for mode in ("endless", "quote", "redirect"):
                idp.mode = mode
                time.sleep(1.1)  # jwks_min_refresh: the next unknown kid fetches again
                r = await post_init(url, token(Key(f"kid-{mode}", "EC"), claims(idp, url)))
                assert r.status_code == 401, (mode, r.status_code, r.text)
            # The IdP mends its ways: its keys verify again.
            idp.mode = None
            time.sleep(1.1)
            assert (await post_init(url, token(idp.keys[0], claims(idp, url)))).status_code == 200
            log = w["log"].read_text()
        # What the servers under test saw: Warden hung up long before the 400 MiB, and the
        # address the redirect named heard nothing.
        assert idp.sent < 32 * MIB, idp.sent // MIB
        assert recorder.heard_nothing(), recorder.requests
        assert SAID.strip() not in log, "the IdP's words reached the log"
        longest = max(len(line) for line in log.splitlines())
        assert longest < 4096, f"a {longest}-byte log line"
        assert "is larger than 1 MiB" in log and "answered HTTP 307" in log, log[-2000:]
        refused = [line for line in w["manifest"].audit_lines() if line["event"] == "auth_refused"]
        assert len(refused) == 3, refused
        assert all("JWKS could not be fetched" in line["reason"] for line in refused), refused
    finally:
        recorder.stop()
