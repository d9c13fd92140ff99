"""Roles (`[roles.NAME]`): who may use which plugin, tool, prompt and resource, and with which
grants. One `warden serve --http` with three static clients and an OAuth client, on both
wires (2025-11-25 sessions and 2026-07-28 stateless requests), driven by the official client:

- alice (role `ops`: the conformance and http plugins whole, and the echo tool), bob (role
  `support`: three tools, and the http plugin narrowed to one origin, GET only, without the
  credential), carol (no role: nothing) and an OAuth client matched by scope (role `ci`: the
  echo plugin) each list exactly what their role says;
- every call path refuses what the role leaves out before any instance runs (tools/call,
  resources/read, resources/subscribe, prompts/get, completion/complete), naming the role and
  the rule, with an audit line that says both;
- a role's `require_approval` asks for a person's approval where the plugin asks none;
- a narrowed grant is held by the capability: the same tool reaches the second origin for
  alice and not for bob (that server receives nothing of bob's), bob's POST is refused and his
  GET goes without the credential the plugin's grant adds for alice;
- a reload that takes a tool out of a role refuses the open session's next call and changes
  its list; `warden check --client` prints what the client gets."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest

from api_site import ApiSite, start_api
from conftest import WASM_DIR, text_of
from ops_helpers import free_port, serve
from test_oauth import Idp, Key, claims, token

pytestmark = pytest.mark.anyio

HTTP_WASM = Path(os.environ.get("HTTP_WASM", WASM_DIR / "warden_guest_http.wasm"))
LEGACY, MODERN = "legacy", "2026-07-28"


def manifest_body(
    echo_wasm: Path, conformance_wasm: Path, api: ApiSite, other: ApiSite, idp: Idp, port: int, support_tools: str
) -> str:
    return f"""
[server.http.clients.alice]
token_env = "ALICE_TOKEN"
role = "ops"

[server.http.clients.bob]
token_env = "BOB_TOKEN"
role = "support"

[server.http.clients.carol]
token_env = "CAROL_TOKEN"

[server.http.oauth]
issuer = "{idp.issuer}"
jwks_url = "{idp.issuer}/jwks"
resource = "http://127.0.0.1:{port}/mcp"
scopes_supported = ["mcp:ci"]

[server.http.oauth.clients.ci]
scope = "mcp:ci"
role = "ci"

[credentials.tracker]
kind = "bearer"
env = "TRACKER_TOKEN"
origins = ["{api.origin}"]

[[plugin]]
name = "echo"
source = "{echo_wasm}"

[[plugin]]
name = "conformance"
source = "{conformance_wasm}"

[[plugin]]
name = "http"
source = "{HTTP_WASM}"
grants.http = {{ origins = ["{api.origin}", "{other.origin}"], methods = ["GET", "POST"], credentials = ["tracker"] }}

[roles.ops]
plugins = ["conformance", "http"]
tools = ["echo"]

[roles.support]
tools = {support_tools}
narrow.http.http = {{ origins = ["{api.origin}"], methods = ["GET"] }}

[roles.ci]
plugins = ["echo"]
require_approval = ["keep"]
"""


@pytest.fixture()
def sites() -> Iterator[tuple[ApiSite, ApiSite]]:
    api, other = start_api("127.0.0.1"), start_api("127.0.0.2")
    yield api, other
    for s in (api, other):
        s.close()


@pytest.fixture()
def idp() -> Iterator[Idp]:
    server = Idp([Key("k1")])
    yield server
    server.close()


@pytest.fixture()
def roles_warden(warden_bin, warden_env, write_manifest, echo_wasm, conformance_wasm, sites, idp):
    api, other = sites
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    tokens = {name: f"{name}-{os.urandom(12).hex()}" for name in ("alice", "bob", "carol")}
    tokens["ci"] = token(idp.keys[0], claims(idp, url, scope="mcp:ci", client_id="ci-runner", sub="ci"))
    tracker = "tracker-" + os.urandom(8).hex()

    def body(support_tools: str) -> str:
        return manifest_body(echo_wasm, conformance_wasm, api, other, idp, port, support_tools)

    manifest = write_manifest(body('["count", "recall", "request"]'))
    env = {
        **warden_env,
        "ALICE_TOKEN": tokens["alice"],
        "BOB_TOKEN": tokens["bob"],
        "CAROL_TOKEN": tokens["carol"],
        "TRACKER_TOKEN": tracker,
    }
    with serve(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
        yield {
            "url": url,
            "tokens": tokens,
            "manifest": manifest,
            "tracker": tracker,
            "rewrite": lambda tools: write_manifest(body(tools)),
            "env": env,
        }


@contextlib.asynccontextmanager
async def as_(w: dict, who: str, mode: str, **options) -> AsyncIterator[object]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {w['tokens'][who]}"}
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(w["url"], http_client=http), mode=mode, cache=None, **options) as c:
            yield c


async def names(client) -> set[str]:
    with anyio.fail_after(30):
        return {t.name for t in (await client.list_tools()).tools}


async def call(client, tool: str, args: dict | None = None) -> tuple[bool, str]:
    with anyio.fail_after(60):
        result = await client.call_tool(tool, args or {})
    return bool(result.is_error), text_of(result)


def denials(manifest, client: str) -> list[dict]:
    return [
        line
        for line in manifest.audit_lines()
        if line.get("client", "").startswith(client) and line.get("decision") == "denied" and line.get("role")
    ]


@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_each_client_lists_and_uses_only_what_its_role_names(roles_warden, mode) -> None:
    w = roles_warden
    async with as_(w, "alice", mode) as alice, as_(w, "bob", mode) as bob:
        async with as_(w, "carol", mode) as carol, as_(w, "ci", mode) as ci:
            alice_tools, bob_tools = await names(alice), await names(bob)
            assert {"echo", "request", "test_simple_text"} <= alice_tools, alice_tools
            assert not alice_tools & {"count", "recall", "keep"}, alice_tools
            assert bob_tools == {"count", "recall", "request"}, bob_tools
            assert await names(carol) == set()
            ci_tools = await names(ci)
            assert {"echo", "count", "recall", "keep"} <= ci_tools and "request" not in ci_tools, ci_tools

            # Alice's role has the conformance plugin whole: its prompts and resources too.
            assert (await alice.list_prompts()).prompts
            assert (await alice.list_resources()).resources
            assert not (await bob.list_prompts()).prompts
            assert not (await bob.list_resources()).resources

            failed, text = await call(alice, "echo", {"text": "hi"})
            assert not failed, text
            failed, text = await call(bob, "count", {})
            assert not failed, text

            # Every way in refuses bob what his role leaves out, naming the role.
            failed, text = await call(bob, "echo", {"text": "hi"})
            assert failed and "not in role 'support'" in text, text
            failed, text = await call(bob, "test_simple_text", {})
            assert failed and "not in role 'support'" in text, text
            with pytest.raises(Exception, match="role 'support'"):
                await bob.read_resource("test://static-text")
            with pytest.raises(Exception, match="role 'support'"):
                await bob.get_prompt("test_input_required_result_prompt", {})
            if mode == LEGACY:
                with pytest.raises(Exception, match="role 'support'"):
                    await bob.subscribe_resource("test://watched-resource")
            failed, text = await call(carol, "count", {})
            assert failed and "client 'carol' has no role" in text, text
            failed, text = await call(ci, "request", {"method": "GET", "url": "http://127.0.0.1:1/"})
            assert failed and "not in role 'ci'" in text, text
            # The ci role wants a person's approval for `keep`, which this client cannot ask
            # for; the plugin itself asks none, so another role's `keep` would run.
            if mode == LEGACY:
                failed, text = await call(ci, "keep", {"key": "k", "value": "v"})
                assert failed and "require_approval of role 'ci'" in text, text
            else:  # 2026-07-28 answers -32021: the approval needs elicitation it did not declare
                with pytest.raises(Exception, match="Missing required client capability"):
                    await call(ci, "keep", {"key": "k", "value": "v"})

    lines = denials(w["manifest"], "bob")
    refused = {(line["event"], line["tool"]) for line in lines}
    assert {("tool_call", "echo"), ("tool_call", "test_simple_text"), ("resource_read", "resources/read"), ("prompt_get", "test_input_required_result_prompt")} <= refused, lines
    for line in lines:
        assert line["role"] == "support" and line["reason"].startswith("role support: in none of roles.support."), line
        assert line["outcome"] == "denied" and line["duration_ms"] == 0, line
    # Nothing of bob's refused calls ran: no allowed line of those tools for him.
    allowed = [
        line
        for line in w["manifest"].audit_lines()
        if line.get("client", "").startswith("bob") and line.get("decision") == "allowed"
    ]
    assert {line["tool"] for line in allowed if line["event"] == "tool_call"} == {"count"}, allowed
    assert [line["reason"] for line in denials(w["manifest"], "carol")] == ["client carol has no role"]
    # The approval the ci role asked for is audited with the role that asked.
    approvals = [(line["tool"], line["decision"], line.get("role")) for line in w["manifest"].audit_lines() if line["event"] == "approval"]
    assert approvals == [("keep", "denied", "ci")], approvals


async def test_a_narrowed_grant_is_held_by_the_capability(roles_warden, sites) -> None:
    w = roles_warden
    api, other = sites
    async with as_(w, "alice", MODERN) as alice, as_(w, "bob", LEGACY) as bob:
        # The plugin's grant: alice reaches both origins, and the API gets the credential.
        failed, text = await call(alice, "request", {"method": "GET", "url": other.url("/alice")})
        assert not failed, text
        failed, text = await call(alice, "request", {"method": "GET", "url": api.url("/alice")})
        assert not failed, text
        # The same tool for bob, narrowed: one origin, GET only, no credential.
        failed, text = await call(bob, "request", {"method": "GET", "url": other.url("/bob")})
        assert failed and "grants.http" in text, text
        failed, text = await call(bob, "request", {"method": "POST", "url": api.url("/bob-post"), "body": "{}"})
        assert failed and "POST" in text, text
        failed, text = await call(bob, "request", {"method": "GET", "url": api.url("/bob")})
        assert not failed, text
    assert [r.path for r in other.received] == ["/alice"], [r.path for r in other.received]
    by_path = {r.path: r for r in api.received}
    assert set(by_path) == {"/alice", "/bob"}, list(by_path)
    assert by_path["/alice"].headers.get("authorization") == f"Bearer {w['tracker']}"
    assert "authorization" not in by_path["/bob"].headers, by_path["/bob"].headers


async def test_a_reload_that_takes_a_tool_from_a_role_holds_at_once(roles_warden, helpers) -> None:
    w = roles_warden
    import mcp_types

    changes: list[object] = []

    async def on_message(message: object) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changes.append(message)

    async with as_(w, "bob", LEGACY, message_handler=on_message) as bob:
        failed, text = await call(bob, "recall", {"key": "k"})
        assert not failed, text
        w["rewrite"]('["count"]')
        assert await helpers.wait_for(lambda: changes, timeout=15), "no tools/list_changed after the reload"
        failed, text = await call(bob, "recall", {"key": "k"})
        assert failed and "not in role 'support'" in text, text
        assert await names(bob) == {"count"}


def test_check_prints_what_a_client_gets(roles_warden, warden_bin) -> None:
    w = roles_warden
    run = lambda *args: subprocess.run(  # noqa: E731
        [str(warden_bin), "check", "--manifest", str(w["manifest"].path), *args],
        env={**os.environ, **w["env"]},
        capture_output=True,
        text=True,
        timeout=120,
    )
    bob = run("--client", "bob")
    assert bob.returncode == 0, bob.stdout + bob.stderr
    assert "client 'bob': role 'support'" in bob.stdout, bob.stdout
    assert "tools: count, recall" in bob.stdout and "tools: request" in bob.stdout, bob.stdout
    assert "grants (narrowed by the role):" in bob.stdout and "http.methods = [\"GET\"]" in bob.stdout, bob.stdout
    carol = run("--client", "carol")
    assert carol.returncode == 0 and "no role, and roles are defined: nothing" in carol.stdout, carol.stdout
    whole = run()
    assert "client 'carol' has no role: it gets nothing" in whole.stdout, whole.stdout
    unknown = run("--role", "nobody")
    assert unknown.returncode == 1 and "defined roles: ci, ops, support" in unknown.stdout, unknown.stdout


# A page of the origin both roles have, that reaches for the other from a frame and a fetch.
REACHING = """<!doctype html><title>Dashboard</title>
<div class="shell"><div class="sidebar"><a href="/">Home</a></div>
<div class="main"><h1>Dashboard</h1><div id="status">loading</div>
<iframe src="{other}/framed" title="report"></iframe></div></div>
<script>
fetch("{other}/fetched").then(() => {{ status.textContent = "fetched"; }}, () => {{ status.textContent = "refused"; }});
</script>"""


@pytest.mark.usefixtures("chromium")
async def test_a_narrowed_browser_grant_holds_for_every_door(warden_bin, warden_env, write_manifest, helpers) -> None:
    from browser_helpers import CHROMIUM
    from local_site import RecordingSite

    shared, other = RecordingSite(), RecordingSite()
    shared.pages["/dashboard"] = ("text/html", REACHING.format(other=other.origin))
    other.pages["/top"] = ("text/html", "<title>Other</title><p>other site</p>")
    port = free_port()
    tokens = {name: f"{name}-{os.urandom(12).hex()}" for name in ("alice", "bob")}
    manifest = write_manifest(
        f"""
[server.http.clients.alice]
token_env = "ALICE_TOKEN"
role = "wide"

[server.http.clients.bob]
token_env = "BOB_TOKEN"
role = "narrow"

[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{shared.origin}", "{other.origin}"] }}

[roles.wide]
plugins = ["browser"]

[roles.narrow]
plugins = ["browser"]
narrow.browser.browser = {{ origins = ["{shared.origin}"] }}
"""
    )
    env = {**warden_env, "ALICE_TOKEN": tokens["alice"], "BOB_TOKEN": tokens["bob"]}
    w = {"url": f"http://127.0.0.1:{port}/mcp", "tokens": tokens}
    try:
        with serve(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
            async with as_(w, "alice", LEGACY) as alice, as_(w, "bob", MODERN) as bob:
                failed, text = await call(alice, "browse_navigate", {"url": other.url("/top")})
                assert not failed, text
                assert other.got("/top"), other.requests
                before = len(other.received)

                failed, text = await call(bob, "browse_navigate", {"url": other.url("/top?bob")})
                assert failed and "grants.browser.origins" in text, text
                # The page loads; its frame's navigation is refused, which the tool reports.
                failed, text = await call(bob, "browse_navigate", {"url": shared.url("/dashboard")})
                assert not failed or "/framed was blocked" in text, text
                assert await helpers.wait_for(lambda: shared.got("/dashboard"), timeout=10)
                # The frame and the fetch are refused at the guard: give them time to try.
                await anyio.sleep(1.5)
                failed, snapshot = await call(bob, "browse_snapshot", {})
                assert not failed and '"Dashboard"' in snapshot, snapshot
            assert other.received[before:] == [], other.requests[before:]
        # Alice was never refused: every refusal of the other origin is one of bob's doors.
        lines = [line for line in manifest.audit_lines() if line["event"] == "capability_denied"]
        assert any(other.origin.split("://", 1)[1] in (line.get("target") or "") for line in lines), lines
    finally:
        shared.close()
        other.close()
