"""JavaScript and Python plugins call a web API with a token the host holds.

`warden plugin new --template http` writes a plugin of each language (JavaScript and Python: the
same plugins as examples/http-api-js and examples/http-api-python; Rust too); built, each files
an issue with the loopback API of
test_wasi_http.py (api_site.py), which echoes the request headers and reflects the token in
its body, plain and base64, and in a response header. The API sees the token; the plugins never
do. The SDK fixtures send the same request and log and keep whatever comes back: their output,
their state, the host log (where plugin logs go) and the audit log are searched for the token
and its base64. A redirect to a second origin carries no token. Requests the grant does not
allow (another origin, a method not named) reach no server, are audited with the grant to add,
and come back as errors: typed in Python, naming the grant."""

from __future__ import annotations

import base64
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from api_site import ApiSite, start_api
from conftest import REPO, check_audit_line, compile_ahead, text_of
from test_plugin_js import SDK as JS_SDK
from test_plugin_js import _node, build_js
from test_plugin_new import toolchain_env
from test_plugin_python import FIXTURE_LIMITS, _toolchain_or_skip, fixture_component
from test_plugin_python import SDK as PY_SDK

pytestmark = pytest.mark.anyio


@dataclass
class Plugins:
    rs: Path
    js: Path
    py: Path
    js_fixture: Path
    py_fixture: Path


@pytest.fixture(scope="session")
def plugins(tmp_path_factory: pytest.TempPathFactory, warden_bin: Path) -> Plugins:
    """The http scaffolds of both languages, built side by side, and the SDK fixtures."""
    _toolchain_or_skip()
    node = _node()
    root = tmp_path_factory.mktemp("http-plugins")
    jobs = []
    for lang in ("rust", "js", "python"):
        made = subprocess.run(
            [str(warden_bin), "plugin", "new", f"api-{lang}", "--lang", lang, "--template", "http", "--path", str(root / lang)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert made.returncode == 0, made.stderr
        assert "with the tool create_issue" in made.stdout and "create_issue" in made.stdout, made.stdout
    # Rust shares its build directory (and dependencies) with test_plugin_new.py.
    shared = REPO / "target" / "e2e-sdk-package"
    jobs.append(
        (
            ["cargo", "build", "--offline", "--target", "wasm32-wasip2", "--release", "--manifest-path", str(root / "rust" / "Cargo.toml")],
            {**toolchain_env({}), "CARGO_TARGET_DIR": str(shared)},
        )
    )
    jobs.append(([str(node), str(JS_SDK / "build.mjs"), str(root / "js")], None))
    jobs.append(
        (
            [sys.executable, "-m", "warden_sdk", "build", "--project", str(root / "python"), "--quiet"],
            {**os.environ, "PYTHONPATH": str(PY_SDK)},
        )
    )

    def run(argv: list[str], env: dict[str, str] | None) -> float:
        started = time.monotonic()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{argv} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return time.monotonic() - started

    with ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(run, argv, env) for argv, env in jobs]:
            future.result()
    compile_ahead(tmp_path_factory, root / "js" / "dist" / "api_js.wasm", root / "python" / "api_python.wasm")
    return Plugins(
        rs=shared / "wasm32-wasip2" / "release" / "api_rust.wasm",
        js=root / "js" / "dist" / "api_js.wasm",
        py=root / "python" / "api_python.wasm",
        js_fixture=build_js(tmp_path_factory, warden_bin).fixture,
        py_fixture=fixture_component(tmp_path_factory),
    )


@pytest.fixture()
def sites() -> Iterator[tuple[ApiSite, ApiSite, ApiSite]]:
    """(the API, a second granted origin on 127.0.0.2, an origin no grant names)."""
    api, other, stray = start_api("127.0.0.1"), start_api("127.0.0.2"), start_api("127.0.0.3")
    yield api, other, stray
    for site in (api, other, stray):
        site.close()


def manifest_text(p: Plugins, api: ApiSite, other: ApiSite, stray: ApiSite) -> str:
    grant = f'grants.http = {{ origins = ["{api.origin}"], methods = ["POST"], credentials = ["tracker"] }}'
    fixture_grant = (
        f'grants.http = {{ origins = ["{api.origin}", "{other.origin}"], methods = ["GET", "POST"], '
        'credentials = ["tracker"] }'
    )
    js_limits = 'limits = { memory = "64MiB", call_timeout = "15s" }'
    return f"""
[credentials.tracker]
kind = "bearer"
env = "TRACKER_TOKEN"
origins = ["{api.origin}"]

[[plugin]]
name = "api-rs"
source = "{p.rs}"
tool_prefix = "rs_"
{js_limits}
{grant}
[plugin.settings]
api_base = "{api.origin}"

[[plugin]]
name = "api-js"
source = "{p.js}"
tool_prefix = "js_"
{js_limits}
{grant}
[plugin.settings]
api_base = "{api.origin}"

[[plugin]]
name = "api-py"
source = "{p.py}"
tool_prefix = "py_"
{FIXTURE_LIMITS}
{grant}
[plugin.settings]
api_base = "{api.origin}"

[[plugin]]
name = "stray-js"
source = "{p.js}"
tool_prefix = "stray_js_"
{js_limits}
{grant}
[plugin.settings]
api_base = "{stray.origin}"

[[plugin]]
name = "stray-py"
source = "{p.py}"
tool_prefix = "stray_py_"
{FIXTURE_LIMITS}
{grant}
[plugin.settings]
api_base = "{stray.origin}"

[[plugin]]
name = "fixture-js"
source = "{p.js_fixture}"
tool_prefix = "fjs_"
{js_limits}
{fixture_grant}

[[plugin]]
name = "fixture-py"
source = "{p.py_fixture}"
tool_prefix = "fpy_"
{FIXTURE_LIMITS}
{fixture_grant}
"""


def header(headers: dict[str, str], name: str) -> str | None:
    """A header of a request the API received, whatever case its sender gave the name."""
    return next((v for k, v in headers.items() if k.lower() == name.lower()), None)


async def call(w, tool: str, args: dict) -> tuple[bool, str]:
    result = await w.call(tool, args, timeout=60)
    return (not result.is_error), text_of(result)


async def test_js_and_python_plugins_call_an_api_with_a_token_they_never_see(
    plugins: Plugins, start_warden, write_manifest, warden_bin: Path, warden_env: dict[str, str], sites
) -> None:
    api, other, stray = sites
    token = "tok-" + secrets.token_hex(16)
    b64 = base64.b64encode(token.encode()).decode()
    m = write_manifest(manifest_text(plugins, api, other, stray))
    # Compile every component into the session's cache first: the server then starts warm.
    env = {**os.environ, **warden_env, "TRACKER_TOKEN": token}
    check = subprocess.run([str(warden_bin), "check", "-m", str(m.path)], capture_output=True, text=True, env=env, timeout=600)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "wasi:http/outgoing-handler" in check.stdout, check.stdout

    outputs: list[str] = []
    async with start_warden(m, env={"TRACKER_TOKEN": token}) as w:
        # The scaffolds file an issue: the API gets the host's token and the JSON body.
        for lang in ("rs", "js", "py"):
            before = len(api.received)
            done, text = await call(w, f"{lang}_create_issue", {"title": f"Disk full ({lang})", "body": "on web1"})
            assert done, (lang, text)
            outputs.append(text)
            posted = api.received[before:]
            assert [(r.method, r.path) for r in posted] == [("POST", "/issues")], posted
            assert header(posted[0].headers, "Authorization") == f"Bearer {token}", posted[0].headers
            assert (header(posted[0].headers, "Content-Type") or "").startswith("application/json"), posted[0].headers
            assert json.loads(posted[0].body) == {"title": f"Disk full ({lang})", "body": "on web1"}
            # A body whose length the SDK knows goes with Content-Length, never chunked: a
            # server that reads only Content-Length would see an empty body.
            assert header(posted[0].headers, "Content-Length") == str(len(posted[0].body)), (lang, posted[0].headers)
            assert header(posted[0].headers, "Transfer-Encoding") is None, (lang, posted[0].headers)
            # The API reflected the token plain and in base64: the plugin got masks.
            issue = json.loads(text)
            assert issue["title"] == f"Disk full ({lang})" and issue["token"] == "[credential]", (lang, issue)
            assert "[credential]" in issue["token_b64"], (lang, issue)

        # The fixtures follow a redirect to the second origin, then send the same request as
        # the scaffolds and log and keep the whole answer.
        for prefix in ("fjs", "fpy"):
            # A redirect to the second origin: a new request, which carries no credential.
            other_before = len(other.received)
            hop = other.url(f"/landing?from={prefix}")
            done, text = await call(w, f"{prefix}_api", {"url": api.url("/redirect?to=" + hop), "method": "GET"})
            assert done, (prefix, text)
            outputs.append(text)
            # Neither follows it (componentize-js's fetch() hands a 3xx back as warden_sdk.http
            # does): the host sends nothing to the second origin on the plugin's behalf.
            assert json.loads(text)["status"] == 302, (prefix, text)
            assert not other.received[other_before:], other.received[other_before:]
            # The plugin follows it itself: a new request, to an origin the credential is not
            # bound to, which arrives without it.
            said = json.loads(text)["headers"]
            pairs = said.items() if isinstance(said, dict) else said
            location = {k.lower(): v for k, v in pairs}["location"]
            assert location == hop, (prefix, text)
            done, text = await call(w, f"{prefix}_api", {"url": location, "method": "GET"})
            assert done, (prefix, text)
            outputs.append(text)
            landed = other.received[other_before:]
            assert [r.path for r in landed] == [f"/landing?from={prefix}"], (landed, text)
            assert all(header(r.headers, "Authorization") is None for r in landed), landed
            before = len(api.received)
            body = json.dumps({"title": f"from {prefix}"})
            done, text = await call(w, f"{prefix}_api", {"url": api.url("/issues"), "body": body})
            assert done, (prefix, text)
            outputs.append(text)
            seen = json.loads(text)
            assert seen["status"] == 201 and header(api.received[before].headers, "Authorization") == f"Bearer {token}"
            headers = {k.lower(): v for k, v in seen["headers"]}
            assert headers["x-echo-auth"] == "Bearer [credential]", (prefix, headers)
            answer = json.loads(seen["body"])
            assert answer["token"] == "[credential]" and header(answer["headers"], "Authorization") == "Bearer [credential]"

        assert token not in other.everything() and b64 not in other.everything()

        # Refused: an origin the grant does not name (the scaffold pointed at it), and a
        # method it does not name. Nothing reaches a server.
        refusals = {}
        for prefix in ("stray_js", "stray_py"):
            done, text = await call(w, f"{prefix}_create_issue", {"title": "nowhere"})
            assert not done, (prefix, text)
            refusals[prefix] = text
        for prefix in ("fjs", "fpy"):
            done, text = await call(w, f"{prefix}_api", {"url": api.url("/issues/1"), "method": "DELETE"})
            assert not done, (prefix, text)
            refusals[f"{prefix} DELETE"] = text
        assert stray.connections == 0, stray.received
        assert not [r for r in api.received if r.method == "DELETE"], api.received
        # Python's errors are typed: access denied, naming the grant to add.
        assert refusals["stray_py"].startswith("access denied") and f'add "{stray.origin}" to grants.http.origins' in refusals["stray_py"]
        assert refusals["fpy DELETE"].startswith("access denied") and '"DELETE" to grants.http.methods' in refusals["fpy DELETE"]
        # JavaScript's fetch() rejects with a TypeError: a failed tool error.
        assert refusals["stray_js"].startswith("failed: TypeError"), refusals["stray_js"]
        # What the fixtures kept in the host's state (the answer to their last request).
        kept = "".join([text_of(await w.call(f"{prefix}_kept", {}, timeout=60)) for prefix in ("fjs", "fpy")])
        stderr = w.stderr()

    denied = [line for line in m.audit_lines() if line.get("capability") == "wasi:http" and line["event"] == "capability_denied"]
    for line in denied:
        check_audit_line(line)
    reasons = {line["plugin"]: line["reason"] for line in denied}
    for plugin in ("stray-js", "stray-py"):
        assert "grants.http.origins" in reasons.get(plugin, ""), (plugin, reasons)
    for plugin in ("fixture-js", "fixture-py"):
        assert "grants.http.methods" in reasons.get(plugin, ""), (plugin, reasons)
    used = [line for line in m.audit_lines() if line.get("capability") == "wasi:http" and line["event"] == "capability_used"]
    assert {line["plugin"] for line in used if line.get("method") == "POST"} >= {"api-js", "api-py", "fixture-js", "fixture-py"}, used

    # Everything the plugins, the client and the logs hold.
    assert "api answered:" in stderr, "the fixtures log what came back"
    assert kept.count("[credential]") >= 4, kept
    haystacks = {
        "output": "".join(outputs) + "".join(refusals.values()),
        "state": kept,
        "host log": stderr,
        "audit log": m.audit.read_text(),
        "check": check.stdout + check.stderr,
    }
    for where, hay in haystacks.items():
        assert token not in hay, f"the token reached the {where}"
        assert b64 not in hay, f"the token's base64 reached the {where}"
