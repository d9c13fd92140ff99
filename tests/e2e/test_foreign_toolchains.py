"""Components built for other MCP hosts with the JavaScript and Python toolchains themselves,
no Warden SDK: tests/guests/weather-js (componentize-js, in the shape of Wassette's
get-weather-js: `wasi:config/store@0.2.0-draft` and the global `fetch`, its environment through
`wasi:cli/environment` and a file through `wasi:filesystem`'s own interfaces) and
tests/guests/notes-py (componentize-py: plain exported functions, Python's own file API under a
preopened directory, `os.environ`, standard `wasi:http` through its own bindings). Both are built once per module from their sources; `warden check`
shows their tools and imports; each is served with the grants it needs and called through the
official MCP client; a bare_ copy without the grants is refused with the grant to add, and
touches neither the API server nor the disk. componentize-py's build-time export
(`exports#init`) is not a tool."""

from __future__ import annotations

import http.server
import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from api_site import start_api
from conftest import REPO
from test_plugin_js import _missing, _node

pytestmark = pytest.mark.anyio

GUESTS = REPO / "tests" / "guests"
SDK_JS = REPO / "sdk" / "js"


def _componentize_py() -> Path:
    beside = Path(sys.executable).parent / "componentize-py"
    found = beside if beside.exists() else shutil.which("componentize-py")
    if not found:
        _missing("componentize-py is not installed: run tests/run (it installs componentize-py==0.25.1 into .venv)")
    return Path(found)


@dataclass
class Built:
    weather: Path
    notes: Path
    seconds: dict[str, float]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Both fixtures, copied into a temporary directory and built there at once, with the
    commands their directories document: `node build.mjs` (componentize-js's API; the copy's
    node_modules is a link to sdk/js's) and `componentize-py ... componentize app`."""
    node, componentize_py = _node(), _componentize_py()
    out = tmp_path_factory.mktemp("foreign-toolchains")
    skip = shutil.ignore_patterns("node_modules", "*.wasm", "__pycache__")
    weather_dir, notes_dir = out / "weather-js", out / "notes-py"
    shutil.copytree(GUESTS / "weather-js", weather_dir, ignore=skip)
    (weather_dir / "node_modules").symlink_to(SDK_JS / "node_modules", target_is_directory=True)
    shutil.copytree(GUESTS / "notes-py", notes_dir, ignore=skip)
    jobs = {
        "weather": ([node, "build.mjs", "-o", out / "weather.wasm"], weather_dir, out / "weather.wasm"),
        "notes": (
            [componentize_py, "-d", "wit", "-w", "notes", "componentize", "app", "-o", out / "notes_py.wasm"],
            notes_dir,
            out / "notes_py.wasm",
        ),
    }
    started = time.monotonic()
    procs = {
        name: subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for name, (args, cwd, _) in jobs.items()
    }
    seconds = {}
    for name, proc in procs.items():
        output, _ = proc.communicate(timeout=300)
        seconds[name] = time.monotonic() - started
        assert proc.returncode == 0, f"building {name} failed:\n{output}"
        assert jobs[name][2].is_file(), output
        print(f"{name}: {jobs[name][2].stat().st_size / 1e6:.1f} MB in {seconds[name]:.1f} s: {output.strip()}")
    return Built(weather=jobs["weather"][2], notes=jobs["notes"][2], seconds=seconds)


# --------------------------------------------------------------------------- the weather API


@dataclass
class WeatherApi:
    """OpenWeather's two endpoints the weather component calls, on 127.0.0.1:0, answering
    only a request that carries `Authorization: Bearer KEY`; records every request."""

    server: http.server.ThreadingHTTPServer
    key: str
    received: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    connections: int = 0

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


PLACES = {"Paris": {"name": "Paris", "lat": 48.8589, "lon": 2.32, "country": "FR"}}


def start_weather_api(key: str) -> WeatherApi:
    holder: dict[str, WeatherApi] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            holder["api"].connections += 1

        def _json(self, status: int, doc: Any) -> None:
            body = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802
            api = holder["api"]
            api.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            if self.headers.get("Authorization") != f"Bearer {api.key}":
                return self._json(401, {"cod": 401, "message": "Invalid API key"})
            url = urllib.parse.urlparse(self.path)
            query = urllib.parse.parse_qs(url.query)
            if url.path == "/geo/1.0/direct":
                place = PLACES.get(query.get("q", [""])[0])
                return self._json(200, [place] if place else [])
            if url.path == "/data/2.5/weather" and query.get("units") == ["metric"]:
                return self._json(200, {"main": {"temp": 21.5, "humidity": 40}, "weather": [{"description": "clear sky"}]})
            return self._json(404, {"cod": 404, "message": "not found"})

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    api = WeatherApi(server, key)
    holder["api"] = api
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return api


def _check(warden_bin: Path, warden_env: dict[str, str], manifest: Path) -> str:
    done = subprocess.run(
        [str(warden_bin), "check", "--manifest", str(manifest)],
        capture_output=True, text=True, env={**os.environ, **warden_env}, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _part(shown: str, plugin: str) -> str:
    """What `warden check` shows of one plugin."""
    return shown.split(f"plugin '{plugin}'")[1].split("\nplugin '")[0]


# --------------------------------------------------------------------------- JavaScript


async def test_weather_js_reads_draft_config_and_fetches_only_where_granted(
    built: Built, tmp_path: Path, start_warden, write_manifest, helpers, warden_bin, warden_env
) -> None:
    (tmp_path / "weather-dir").mkdir()
    key = "owm-" + secrets.token_hex(12)
    api = start_weather_api(key)
    settings = f'\n[plugin.settings]\napi_key = "{key}"\nbase_url = "{api.origin}"\n\n'
    manifest = write_manifest(
        helpers.plugin_block(
            "weather",
            built.weather,
            f'grants.http = {{ origins = ["{api.origin}"] }}\ngrants.env = {{ vars = {{ WEATHER_UNITS = "metric" }} }}\n'
            'grants.files = [{ host = "weather-dir", guest = "/data", mode = "read-write", quota = "64KiB" }]',
        )
        + settings
        # The settings without the network grant, and the grant without the settings.
        + helpers.plugin_block("bare_weather", built.weather, 'tool_prefix = "bare_"')
        + settings
        + helpers.plugin_block(
            "nokey_weather", built.weather, f'tool_prefix = "nokey_"\ngrants.http = {{ origins = ["{api.origin}"] }}'
        )
    )
    try:
        shown = _check(warden_bin, warden_env, manifest.path)
        weather = _part(shown, "weather")
        assert "tools (plain exported functions, one tool each):" in weather, weather
        assert "get-weather(city: string) -> result<string, string>" in weather, weather
        assert "wasi:config/store@0.2.0-draft" in weather, weather
        config_line = next(line for line in weather.splitlines() if "wasi:config/store@0.2.0-draft" in line)
        assert "always available" in config_line and "[plugin.settings]" in config_line, config_line
        http_line = next(line for line in weather.splitlines() if line.strip().startswith("wasi:http/outgoing-handler"))
        assert f'granted: origins = ["{api.origin}"]' in http_line, http_line
        bare = _part(shown, "bare_weather")
        assert "NOT GRANTED: every request is denied; add grants.http.origins" in bare, bare
        assert "unknown to this host" not in shown, shown
        assert not api.received, "warden check sent a request"

        # `warden check` filled the shared cache; this server has its own, so its first start
        # is the one a new user meets: baseline code at once, the optimized code after.
        async with start_warden(manifest, env={"WARDEN_CACHE_DIR": str(tmp_path / "first-start")}) as w:
            assert "(3 on baseline code while their optimized code compiles)" in w.stderr(), w.stderr()[-3000:]
            tools = {t.name: t for t in (await w.session.list_tools()).tools}
            assert {"get_weather", "bare_get_weather", "nokey_get_weather"} <= set(tools), sorted(tools)
            assert tools["get_weather"].input_schema["required"] == ["city"], tools["get_weather"].input_schema

            got = await w.call("get_weather", {"city": "Paris"}, timeout=60)
            text = helpers.text_of(got)
            assert not got.is_error, text
            assert text == "Paris: 21.5 °C, clear sky", text
            assert got.structured_content == {"result": text}, got.structured_content
            # Two requests, each with the configured key, to the configured base URL.
            paths = [urllib.parse.urlparse(p).path for p, _ in api.received]
            assert paths == ["/geo/1.0/direct", "/data/2.5/weather"], api.received
            assert all(h.get("authorization") == f"Bearer {key}" for _, h in api.received), api.received
            assert "q=Paris" in api.received[0][0] and "units=metric" in api.received[1][0], api.received

            # The component's own error, as a tool error.
            nowhere = await w.call("get_weather", {"city": "Atlantis"}, timeout=60)
            assert nowhere.is_error and "no place is called Atlantis" in helpers.text_of(nowhere), helpers.text_of(nowhere)
            received, connections = len(api.received), api.connections

            # Without grants.http: refused by the host, naming the origin to add; nothing sent.
            bare_call = await w.call("bare_get_weather", {"city": "Paris"}, timeout=60)
            bare_text = helpers.text_of(bare_call)
            assert bare_call.is_error, bare_text
            assert f'add "{api.origin}" to grants.http.origins of plugin \'bare_weather\'' in bare_text, bare_text
            # Without its settings: the component says which key is missing, and sends nothing.
            nokey = await w.call("nokey_get_weather", {"city": "Paris"}, timeout=60)
            assert nokey.is_error and "config api_key is not set" in helpers.text_of(nokey), helpers.text_of(nokey)
            assert len(api.received) == received and api.connections == connections, api.received[received:]
            # The environment through WASI's own interface (the world imports
            # wasi:cli/environment): what grants.env names, else nothing and the grant to add.
            units = await w.call("units", {}, timeout=60)
            assert not units.is_error and helpers.text_of(units) == "metric", helpers.text_of(units)
            bare_units = await w.call("bare_units", {}, timeout=60)
            bare_units_text = helpers.text_of(bare_units)
            assert bare_units.is_error and "WEATHER_UNITS is not set" in bare_units_text, bare_units_text
            assert "add grants.env" in bare_units_text, bare_units_text
            # Files through wasi:filesystem's preopens and descriptors, imported by the world
            # itself: inside the granted directory only; without grants.files no directory is
            # preopened, and the host names the grant to add.
            for city in ("Paris", "Zürich", "Paris"):
                saved = await w.call("save_favorite", {"city": city}, timeout=60)
                assert not saved.is_error, helpers.text_of(saved)
            assert helpers.text_of(saved) == "Paris is already a favourite", helpers.text_of(saved)
            assert (tmp_path / "weather-dir" / "favorites.txt").read_text() == "Paris\nZürich\n"
            listed = await w.call("favorites", {}, timeout=60)
            assert not listed.is_error and helpers.text_of(listed) == "Paris\nZürich", helpers.text_of(listed)
            odd = await w.call("save_favorite", {"city": "../../etc/passwd"}, timeout=60)
            assert odd.is_error and "not a city name" in helpers.text_of(odd), helpers.text_of(odd)
            bare_saved = await w.call("bare_save_favorite", {"city": "Paris"}, timeout=60)
            bare_saved_text = helpers.text_of(bare_saved)
            assert bare_saved.is_error and "no directory is preopened at /data" in bare_saved_text, bare_saved_text
            assert "add grants.files" in bare_saved_text, bare_saved_text
            # The same component on its optimized code, once it is in use.
            with anyio.fail_after(120):
                while "plugin 'weather': optimized code in use" not in w.stderr():
                    await anyio.sleep(0.2)
            listed = await w.call("favorites", {}, timeout=60)
            assert not listed.is_error and helpers.text_of(listed) == "Paris\nZürich", helpers.text_of(listed)
            stderr = w.stderr()
    finally:
        api.close()

    assert "get_weather <- get-weather(city: string) -> result<string, string>" in stderr, stderr[-3000:]
    lines = manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    calls = [(l["plugin"], l["tool"], l["outcome"]) for l in lines if l["event"] == "tool_call"]
    assert calls == [
        ("weather", "get_weather", "ok"),
        ("weather", "get_weather", "tool_error"),
        ("bare_weather", "bare_get_weather", "tool_error"),
        ("nokey_weather", "nokey_get_weather", "tool_error"),
        ("weather", "units", "ok"),
        ("bare_weather", "bare_units", "tool_error"),
        ("weather", "save_favorite", "ok"),
        ("weather", "save_favorite", "ok"),
        ("weather", "save_favorite", "ok"),
        ("weather", "favorites", "ok"),
        ("weather", "save_favorite", "tool_error"),
        ("bare_weather", "bare_save_favorite", "tool_error"),
        ("weather", "favorites", "ok"),
    ], calls
    writes = [l for l in lines if l["event"] == "capability_used" and l.get("capability") == "wasi:filesystem"]
    assert [(l["plugin"], l["target"], l.get("bytes")) for l in writes] == [
        ("weather", "/data/favorites.txt", 6),
        ("weather", "/data/favorites.txt", 8),
    ], writes
    assert ("bare_weather", "wasi:filesystem") in {
        (l["plugin"], l["capability"]) for l in lines if l["event"] == "capability_denied"
    }, lines
    assert [p.name for p in (tmp_path / "weather-dir").iterdir()] == ["favorites.txt"]
    used = [l for l in lines if l["event"] == "capability_used" and l.get("capability") == "wasi:http"]
    assert {(l["plugin"], l["target"], l["status"]) for l in used} == {
        ("weather", f"{api.origin}/geo/1.0/direct", 200),
        ("weather", f"{api.origin}/data/2.5/weather", 200),
    }, used
    denied = [l for l in lines if l["event"] == "capability_denied" and l["capability"] == "wasi:http"]
    assert [(l["plugin"], l["target"]) for l in denied] == [("bare_weather", f"GET {api.origin}/geo/1.0/direct")], denied
    assert "grants.http.origins" in denied[0]["reason"], denied
    # The key is configuration the plugin reads; the host shows it nowhere.
    for where, hay in {"check": shown, "stderr": stderr, "audit": manifest.audit.read_text()}.items():
        assert key not in hay, f"the API key reached the {where}"


# --------------------------------------------------------------------------- Python


async def test_notes_py_keeps_files_in_the_granted_directory_and_serves_no_init(
    built: Built, tmp_path: Path, start_warden, write_manifest, helpers, warden_bin, warden_env
) -> None:
    (tmp_path / "notes-dir").mkdir()
    api = start_api("127.0.0.1")
    manifest = write_manifest(
        helpers.plugin_block(
            "notes_py",
            built.notes,
            'grants.files = [{ host = "notes-dir", guest = "/data", mode = "read-write", quota = "1MiB" }]\n'
            'grants.env = { vars = { NOTES_OWNER = "Ada" } }\n'
            f'grants.http = {{ origins = ["{api.origin}"] }}',
        )
        + helpers.plugin_block("bare_notes_py", built.notes, 'tool_prefix = "bare_"')
    )
    shown = _check(warden_bin, warden_env, manifest.path)
    notes = _part(shown, "notes_py")
    assert "tools (plain exported functions, one tool each):" in notes, notes
    for signature in (
        "save-note(name: string, text: string) -> result<string, string>",
        "read-note(name: string) -> result<string, string>",
        "greet(name: string) -> string",
        "owner() -> result<string, string>",
        "fetch-status(url: string) -> result<string, string>",
    ):
        assert signature in notes, notes
    assert "init" not in notes.split("tools (plain exported functions, one tool each):")[1].split("imports:")[0], notes
    assert "/data (read-write, quota 1MiB)" in notes, notes
    assert "sandboxed: no directory is granted" in _part(shown, "bare_notes_py"), shown
    assert "unknown to this host" not in shown, shown

    async with start_warden(manifest) as w:
        tools = {t.name: t for t in (await w.session.list_tools()).tools}
        # Exactly the four functions of the world: componentize-py's `exports#init`
        # (`init(app-name, symbols, stub-wasi)`, run once when the component is built) is no tool.
        assert set(tools) == {
            "save_note", "read_note", "greet", "owner", "fetch_status",
            "bare_save_note", "bare_read_note", "bare_greet", "bare_owner", "bare_fetch_status",
        }, sorted(tools)
        assert tools["save_note"].input_schema["required"] == ["name", "text"], tools["save_note"].input_schema

        saved = await w.call("save_note", {"name": "todo", "text": "buy milk"}, timeout=60)
        assert not saved.is_error, helpers.text_of(saved)
        assert helpers.text_of(saved) == "saved todo (8 characters)"
        assert saved.structured_content == {"result": "saved todo (8 characters)"}, saved.structured_content
        assert (tmp_path / "notes-dir" / "todo.txt").read_text() == "buy milk"
        read = await w.call("read_note", {"name": "todo"}, timeout=60)
        assert not read.is_error and helpers.text_of(read) == "buy milk", helpers.text_of(read)
        missing = await w.call("read_note", {"name": "nothing"}, timeout=60)
        assert missing.is_error and "cannot read /data/nothing.txt" in helpers.text_of(missing), helpers.text_of(missing)
        greeted = await w.call("greet", {"name": "Ada"}, timeout=60)
        assert not greeted.is_error and helpers.text_of(greeted) == "Hello, Ada, from Python!", helpers.text_of(greeted)
        # os.environ holds what grants.env names, and nothing of the host's environment.
        owner = await w.call("owner", {}, timeout=60)
        assert not owner.is_error and helpers.text_of(owner) == "Ada", helpers.text_of(owner)
        # Standard wasi:http through componentize-py's own bindings.
        fetched = await w.call("fetch_status", {"url": api.url("/echo?from=python")}, timeout=60)
        assert not fetched.is_error and helpers.text_of(fetched).startswith("200 "), helpers.text_of(fetched)
        assert [r.path for r in api.received] == ["/echo?from=python"], api.received

        # Without grants.files: open() fails in the guest, and the host names the grant to add.
        bare = await w.call("bare_save_note", {"name": "todo", "text": "x"}, timeout=60)
        bare_text = helpers.text_of(bare)
        assert bare.is_error and "cannot write /data/todo.txt" in bare_text, bare_text
        assert "add grants.files" in bare_text, bare_text
        # What needs no grant answers without one.
        bare_greet = await w.call("bare_greet", {"name": "Ada"}, timeout=60)
        assert helpers.text_of(bare_greet) == "Hello, Ada, from Python!", helpers.text_of(bare_greet)
        # Without grants.env the environment is empty, and the host names the grant to add.
        bare_owner = await w.call("bare_owner", {}, timeout=60)
        bare_owner_text = helpers.text_of(bare_owner)
        assert bare_owner.is_error and "NOTES_OWNER is not set" in bare_owner_text, bare_owner_text
        assert "add grants.env" in bare_owner_text, bare_owner_text
        # Without grants.http: refused by the host, naming the origin to add; nothing sent.
        bare_fetch = await w.call("bare_fetch_status", {"url": api.url("/echo?from=bare")}, timeout=60)
        bare_fetch_text = helpers.text_of(bare_fetch)
        assert bare_fetch.is_error and "HttpRequestDenied" in bare_fetch_text, bare_fetch_text
        assert f'add "{api.origin}" to grants.http.origins of plugin \'bare_notes_py\'' in bare_fetch_text, bare_fetch_text
        assert len(api.received) == 1, api.received
        stderr = w.stderr()
    api.close()

    assert "greet <- greet(name: string) -> string" in stderr, stderr[-3000:]
    assert "init <-" not in stderr, stderr[-3000:]
    assert [p.name for p in (tmp_path / "notes-dir").iterdir()] == ["todo.txt"]
    lines = manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    calls = [(l["plugin"], l["tool"], l["outcome"]) for l in lines if l["event"] == "tool_call"]
    assert calls == [
        ("notes_py", "save_note", "ok"),
        ("notes_py", "read_note", "ok"),
        ("notes_py", "read_note", "tool_error"),
        ("notes_py", "greet", "ok"),
        ("notes_py", "owner", "ok"),
        ("notes_py", "fetch_status", "ok"),
        ("bare_notes_py", "bare_save_note", "tool_error"),
        ("bare_notes_py", "bare_greet", "ok"),
        ("bare_notes_py", "bare_owner", "tool_error"),
        ("bare_notes_py", "bare_fetch_status", "tool_error"),
    ], calls
    changes = [l for l in lines if l["event"] == "capability_used" and l.get("capability") == "wasi:filesystem"]
    assert [(l["plugin"], l["target"], l.get("bytes")) for l in changes] == [("notes_py", "/data/todo.txt", 8)], changes
    assert "write" in changes[0]["detail"] and "create" in changes[0]["detail"], changes
    denied = {(l["plugin"], l["capability"]) for l in lines if l["event"] == "capability_denied"}
    assert ("bare_notes_py", "wasi:filesystem") in denied, denied
    assert ("bare_notes_py", "wasi:cli/environment") in denied, denied
    assert ("notes_py", "wasi:filesystem") not in denied and ("notes_py", "wasi:cli/environment") not in denied, denied
