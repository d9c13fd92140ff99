"""Standard `wasi:http` for plugins under `grants.http`, with a credential the host holds.

The Rust example plugin (examples/http-api-rust) POSTs JSON to a loopback API (api_site.py)
that is as hostile to the credential as an API can be: it echoes the request headers,
reflects the token in its body plain and base64 and in a response header. The API sees the
token; the plugin never does: its output, its state, the host log and the audit log are
searched for the token and its base64. A redirect to a second origin (127.0.0.2) carries no
token. Then every refusal, asserted on what the servers received and on the audit line:
a method not granted, an origin not granted (also as a redirect target), private addresses in
every spelling under a wide grant, bodies over the caps both ways, a server slower than the
time cap, and a plugin with no grant at all (it loads; its requests are refused).

Then a credential in the forms a plugin could still read it in: inside a body in every content
coding the host decodes (alone and stacked), as five languages' JSON serializers escape it,
hex-encoded in a header's name, a coding the host cannot decode, a body that decodes past the
cap; an OAuth token echoed after the refresh that replaced it, while still valid; and a
`query` key on an origin that refuses or resets the connection, whose URL the HTTP client's
error text carries (the plugin's error, stderr and the audit log searched for it)."""

from __future__ import annotations

import base64
import gzip
import json
import os
import secrets
import socket
import struct
import subprocess
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from api_site import SERIALIZERS, ApiSite, loopback_hostname, start_api
from conftest import WASM_DIR, check_audit_line, text_of

pytestmark = pytest.mark.anyio

HTTP_WASM = Path(os.environ.get("HTTP_WASM", WASM_DIR / "warden_guest_http.wasm"))
EXAMPLE_WASM = Path(os.environ.get("HTTP_EXAMPLE_WASM", WASM_DIR / "warden_example_http_api.wasm"))


@pytest.fixture()
def sites() -> Iterator[tuple[ApiSite, ApiSite, ApiSite]]:
    """(the API, a second granted origin on 127.0.0.2, an origin no grant names)."""
    api, other, stray = start_api("127.0.0.1"), start_api("127.0.0.2"), start_api("127.0.0.3")
    yield api, other, stray
    for s in (api, other, stray):
        s.close()


@pytest.fixture()
def token() -> str:
    return "tok-" + secrets.token_hex(16)


def manifest_text(api: ApiSite, other: ApiSite) -> str:
    for wasm in (HTTP_WASM, EXAMPLE_WASM):
        assert wasm.is_file(), f"{wasm} does not exist; run `cargo build --release -p warden -p warden-tests`"
    return f"""
[credentials.tracker]
kind = "bearer"
env = "TRACKER_TOKEN"
origins = ["{api.origin}"]

[[plugin]]
name = "tracker"
source = "{EXAMPLE_WASM}"
grants.http = {{ origins = ["{api.origin}"], methods = ["POST"], credentials = ["tracker"] }}

[plugin.settings]
api_base = "{api.origin}"

[[plugin]]
name = "http"
source = "{HTTP_WASM}"
grants.http = {{ origins = ["{api.origin}", "{other.origin}"], methods = ["GET", "POST"], max_request_body = "64KiB", max_response_body = "256KiB", timeout = "2s", credentials = ["tracker"] }}

[[plugin]]
name = "wide"
source = "{HTTP_WASM}"
tool_prefix = "wide_"
grants.http = {{ origins = ["http://*:*"] }}

[[plugin]]
name = "none"
source = "{HTTP_WASM}"
tool_prefix = "none_"
"""


async def call(w, tool: str, args: dict) -> tuple[bool, str]:
    result = await w.call(tool, args, timeout=30)
    return (not result.is_error), text_of(result)


def http_lines(manifest, event: str) -> list[dict]:
    lines = [line for line in manifest.audit_lines() if line.get("capability") == "wasi:http"]
    for line in lines:
        check_audit_line(line)
    return [line for line in lines if line["event"] == event]


async def test_a_plugin_calls_an_api_with_a_token_it_never_sees(
    start_warden, write_manifest, warden_bin, warden_env, sites, token
) -> None:
    api, other, _ = sites
    m = write_manifest(manifest_text(api, other))
    b64 = base64.b64encode(token.encode()).decode()
    env = {"TRACKER_TOKEN": token}
    async with start_warden(m, env=env) as w:
        # The example plugin files an issue: the API gets the host's token.
        done, text = await call(w, "create_issue", {"title": "Disk full", "body": "on web1"})
        assert done, text
        posted = [r for r in api.received if r.path == "/issues"]
        assert len(posted) == 1, api.received
        assert posted[0].headers.get("authorization") == f"Bearer {token}", posted[0].headers
        assert json.loads(posted[0].body) == {"title": "Disk full", "body": "on web1"}
        # The API reflected it plain, in base64 and in a header: the plugin got masks.
        issue = json.loads(text)
        assert issue["token"] == "[credential]" and issue["title"] == "Disk full", issue
        assert "[credential]" in issue["token_b64"], issue

        # A plugin-set Authorization is replaced by the host's credential.
        done, text = await call(w, "request", {
            "method": "POST", "url": api.url("/issues"),
            "headers": [["authorization", "Bearer made-by-the-plugin"], ["content-type", "application/json"]],
            "body": "{\"title\": \"x\"}",
        })
        assert done, text
        assert api.received[-1].headers.get("authorization") == f"Bearer {token}", api.received[-1].headers
        answer = json.loads(text)
        assert dict(answer["headers"]).get("x-echo-auth") == "Bearer [credential]", answer["headers"]

        # A redirect to another origin is a new request, which carries no credential.
        done, text = await call(w, "request", {
            "method": "GET", "url": api.url("/redirect?to=" + other.url("/landing?from=api")), "follow": True,
        })
        assert done, text
        assert json.loads(text)["hops"][-1] == other.url("/landing?from=api"), text
        assert len(other.received) == 1 and "authorization" not in other.received[0].headers, other.received
        assert token not in other.everything() and b64 not in other.everything()

        # Everything the plugin, the client and the logs hold; the plugin's state keeps its
        # last answer, the API's echo.
        outputs = [text_of(await w.call("request", {"method": "GET", "url": api.url("/echo")}))]
        done, state = await call(w, "last", {})
        assert done, state
        stderr = w.stderr()

    used = http_lines(m, "capability_used")
    assert {(line["method"], line["status"]) for line in used} >= {("POST", 201), ("GET", 302), ("GET", 200)}, used
    post = next(line for line in used if line["method"] == "POST" and line["plugin"] == "tracker")
    assert post["target"] == api.url("/issues") and post["bytes_sent"] > 0 and post["bytes"] > 0, post
    landing = next(line for line in used if line["target"].endswith("/landing"))
    assert "?" not in landing["target"], landing

    check = subprocess.run(
        [str(warden_bin), "check", "--manifest", str(m.path)],
        capture_output=True, text=True, env={**os.environ, **warden_env, **env}, timeout=120,
    )
    assert check.returncode == 0, check.stderr
    haystacks = {
        "output": text + "".join(outputs),
        "state": state,
        "stderr": stderr,
        "audit": m.audit.read_text(),
        "check": check.stdout + check.stderr,
    }
    for where, hay in haystacks.items():
        assert token not in hay, f"the token reached the {where}"
        assert b64 not in hay, f"the token's base64 reached the {where}"
    assert "[credential]" in haystacks["output"] and "[credential]" in state


async def test_every_refusal_is_typed_audited_and_sends_nothing(start_warden, write_manifest, sites, token) -> None:
    api, other, stray = sites
    m = write_manifest(manifest_text(api, other))
    async with start_warden(m, env={"TRACKER_TOKEN": token}) as w:

        async def refused(tool: str, args: dict, kind: str) -> str:
            done, text = await call(w, tool, args)
            assert not done, f"{args} went through: {text}"
            assert text.startswith(kind), text
            return text

        # A method the grant does not name.
        text = await refused("request", {"method": "DELETE", "url": api.url("/items/1")}, "access denied")
        assert "grants.http" in text, text
        # An origin it does not name, asked directly and through a redirect.
        await refused("request", {"method": "GET", "url": stray.url("/x")}, "access denied")
        await refused("request", {"method": "GET", "url": api.url("/redirect?to=" + stray.url("/y")), "follow": True}, "access denied")
        await refused("request", {"method": "GET", "url": api.url(f"/redirect?to=http://localhost:{api.port}/z"), "follow": True}, "access denied")
        assert stray.connections == 0, stray.received
        assert not [r for r in api.received if r.method == "DELETE" or r.path in ("/z",)], api.received
        # A plugin with no http grant loads, and is refused the same way.
        await refused("none_request", {"method": "GET", "url": api.url("/echo")}, "access denied")

        # Private space in every spelling, under a grant of every host (`http://*:*`).
        before = (api.connections, other.connections)
        spellings = [
            f"http://0x7f.1:{api.port}/",
            f"http://2130706433:{api.port}/",
            f"http://[::ffff:127.0.0.1]:{api.port}/",
            f"http://[::1]:{api.port}/",
            f"http://localhost.:{api.port}/",
            f"http://evil.localhost:{api.port}/",
            f"http://127.0.0.2:{other.port}/",
            api.url("/redirect-me"),
        ]
        name = loopback_hostname()
        if name:
            spellings.append(f"http://{name}:{api.port}/")
        for url in spellings:
            text = await refused("wide_request", {"method": "GET", "url": url}, "access denied")
            assert "private network" in text, text
        assert (api.connections, other.connections) == before, (api.received, other.received)

        # Bodies over the caps: declared by the caller or by the SDK, which states the length of
        # every body it holds (nothing sent either way); a response over the cap, declared or
        # streamed.
        await refused("request", {
            "method": "POST", "url": api.url("/upload?declared"), "body_bytes": 100_000,
            "headers": [["content-length", "100000"]],
        }, "failed")
        assert not [r for r in api.received if r.path == "/upload?declared"], api.received
        await refused("request", {"method": "POST", "url": api.url("/upload?streamed"), "body_bytes": 300_000}, "failed")
        streamed = [r for r in api.received if r.path == "/upload?streamed"]
        assert all(len(r.body) <= 64 * 1024 for r in streamed), [len(r.body) for r in streamed]
        await refused("request", {"method": "GET", "url": api.url("/big?n=400000")}, "failed")
        text = await refused("request", {"method": "GET", "url": api.url("/big?n=400000&chunked=1")}, "failed")
        assert "max_response_body" in text, text
        # A server slower than grants.http.timeout (2s).
        await refused("request", {"method": "GET", "url": api.url("/slow")}, "timeout")

    denied = http_lines(m, "capability_denied")
    reasons = "\n".join(f"{line['plugin']} {line['target']}: {line['reason']}" for line in denied)
    assert "grants.http.methods" in reasons and f'add "{stray.origin}" to grants.http.origins' in reasons, reasons
    assert any(line["plugin"] == "none" and "grants.http.origins" in line["reason"] for line in denied), reasons
    wide = [line for line in denied if line["plugin"] == "wide"]
    assert len(wide) == len(spellings) and all("loopback" in line["reason"] for line in wide), reasons
    assert sum("max_request_body" in line["reason"] for line in denied) >= 2, reasons
    failed = http_lines(m, "capability_used")
    errors = [line.get("error") for line in failed]
    assert errors.count("body_too_large") >= 2 and "timeout" in errors, failed


#: Content codings the host decodes, alone and stacked (`deflate-raw`: raw deflate labelled
#: `deflate`, as some servers send it).
CODINGS = ["identity", "gzip", "x-gzip", "deflate", "deflate-raw", "br", "zstd", "gzip,br", "br,zstd,deflate"]


def as_the_plugin_reads(answer: dict) -> bytes:
    """The body the plugin got (hex from the guest), decoded as the plugin itself could:
    every content coding the response still names, the last one applied undone first."""
    import brotli
    import zstandard

    body = bytes.fromhex(answer["body"])
    named = [v for k, v in answer["headers"] if k.lower() == "content-encoding"]
    codings = [c.strip().lower() for v in named for c in v.split(",") if c.strip()]
    for coding in reversed(codings):
        if coding in ("gzip", "x-gzip"):
            body = gzip.decompress(body)
        elif coding == "deflate":
            try:
                body = zlib.decompress(body)
            except zlib.error:
                body = zlib.decompress(body, wbits=-15)
        elif coding == "br":
            body = brotli.decompress(body)
        elif coding == "zstd":
            body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
    return body


async def test_a_credential_comes_back_neither_compressed_nor_escaped(
    start_warden, write_manifest, sites
) -> None:
    api, other, _ = sites
    # Characters each serializer escapes its own way: `/` (PHP), `+` (.NET), `<>&` (Go,
    # .NET, Gson), `=` and `'` (Gson).
    token = "tok-" + secrets.token_hex(12) + "/a+b&c<d>e=f'g"
    m = write_manifest(manifest_text(api, other))
    async with start_warden(m, env={"TRACKER_TOKEN": token}) as w:
        read = []
        for coding in CODINGS:
            done, text = await call(w, "request", {"method": "GET", "url": api.url(f"/coded?enc={coding}"), "hex": True})
            assert done, f"{coding}: {text}"
            answer = json.loads(text)
            names = [k.lower() for k, _ in answer["headers"]]
            assert not any(token.encode().hex() in n for n in names), f"{coding}: the token's hex in a header name: {names}"
            body = as_the_plugin_reads(answer)
            read.append(body)
            documents = body.decode("utf-8", "replace").splitlines()
            assert len(documents) == len(SERIALIZERS), f"{coding}: {body[:300]!r}"
            for style, line in zip(SERIALIZERS, documents):
                doc = json.loads(line)
                # What the plugin's own JSON parser makes of it: every escape undone.
                assert token not in json.dumps(doc, ensure_ascii=False), f"{coding}, {style}: {line}"
                assert doc["token"] == "[credential]", f"{coding}, {style}: {line}"
            assert "content-encoding" not in names, f"{coding}: the plugin got the coded body: {answer['headers']}"
        assert all(r.headers.get("authorization") == f"Bearer {token}" for r in api.received if r.path.startswith("/coded"))

        # A coding the host cannot decode is refused, and a body that decodes past
        # max_response_body (256 KiB) stops at it.
        done, text = await call(w, "request", {"method": "GET", "url": api.url("/coded?enc=compress"), "hex": True})
        assert not done and "content coding" in text, text
        done, text = await call(w, "request", {"method": "GET", "url": api.url("/coded?enc=bomb"), "hex": True})
        assert not done and "max_response_body" in text, text
        stderr = w.stderr()

    for where, hay in {"output": b"".join(read).decode("latin-1"), "stderr": stderr, "audit": m.audit.read_text()}.items():
        assert token not in hay and token.encode().hex() not in hay, f"the token reached the {where}"
    denied = http_lines(m, "capability_denied")
    assert any("compress" in line["reason"] and "/coded" in line["target"] for line in denied), denied
    used = http_lines(m, "capability_used")
    assert any(line.get("error") == "body_too_large" and line["target"].endswith("/coded") for line in used), used


async def test_a_refreshed_token_that_is_still_valid_stays_masked(start_warden, write_manifest, sites) -> None:
    api, other, _ = sites
    m = write_manifest(f"""
[credentials.crm]
kind = "oauth2"
flow = "client_credentials"
token_url = "{other.origin}/token"
client_id = "warden"
env = "CRM_SECRET"
origins = ["{api.origin}"]

[[plugin]]
name = "http"
source = "{HTTP_WASM}"
grants.http = {{ origins = ["{api.origin}"], credentials = ["crm"] }}
""")
    async with start_warden(m, env={"CRM_SECRET": "s3cret-client"}) as w:
        # The endpoint's tokens live 30 s, within the host's refresh margin: each request
        # carries a fresh one, and the API echoes the one before, still valid.
        done, first = await call(w, "request", {"method": "GET", "url": api.url("/echo")})
        assert done, first
        done, text = await call(w, "request", {"method": "GET", "url": api.url("/previous")})
        assert done, text
        stderr = w.stderr()
    carried = [r.headers["authorization"].split(" ", 1)[1] for r in api.received if "authorization" in r.headers]
    assert len(carried) == 2 and carried[0] != carried[1], carried
    assert len([r for r in other.received if r.path == "/token"]) == 2, other.received
    body = json.loads(json.loads(text)["body"])
    assert body["token"] == "[credential]", body
    for where, hay in {"output": first + text, "stderr": stderr, "audit": m.audit.read_text()}.items():
        for value in carried:
            assert value not in hay, f"a token reached the {where}"


def refusing_origin() -> str:
    """An origin on loopback where nothing listens: the connection is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def resetting_origin() -> tuple[str, socket.socket]:
    """An origin on loopback that reads the request and resets the connection."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()

    def run() -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    threading.Thread(target=run, daemon=True).start()
    return f"http://127.0.0.1:{sock.getsockname()[1]}", sock


async def test_a_query_key_reaches_no_log_when_the_connection_fails(start_warden, write_manifest) -> None:
    key = "k3y" + secrets.token_hex(12)
    refused = refusing_origin()
    reset, listener = resetting_origin()
    m = write_manifest(f"""
[credentials.weather]
kind = "query"
param = "appid"
env = "WEATHER_KEY"
origins = ["{refused}", "{reset}"]

[[plugin]]
name = "http"
source = "{HTTP_WASM}"
grants.http = {{ origins = ["{refused}", "{reset}"], credentials = ["weather"] }}
""")
    try:
        async with start_warden(m, env={"WEATHER_KEY": key}) as w:
            errors = []
            for origin in (refused, reset):
                done, text = await call(w, "request", {"method": "GET", "url": f"{origin}/v1/weather?q=Berlin"})
                assert not done, text
                errors.append(text)
            stderr = w.stderr()
    finally:
        listener.close()
    assert "wasi:http request failed" in stderr, stderr
    for where, hay in {"plugin": "\n".join(errors), "stderr": stderr, "audit": m.audit.read_text()}.items():
        assert key not in hay, f"the key reached the {where}: {hay}"
    failed = [line for line in http_lines(m, "capability_used") if line.get("error")]
    assert {line["target"] for line in failed} == {f"{refused}/v1/weather", f"{reset}/v1/weather"}, failed
