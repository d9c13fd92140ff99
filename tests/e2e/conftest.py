"""Shared fixtures for the end-to-end suite.

Every test starts its own `warden` process with a manifest written into its own
`tmp_path`, talks to it through the official MCP Python SDK (or raw JSON-RPC in
test_protocol.py) and reads the audit log that its manifest configured.

Paths come from the environment, with defaults relative to the repository:
  WARDEN_BIN    target/release/warden
  ECHO_WASM     target/wasm/wasm32-wasip2/wasm-component/warden_guest_echo.wasm
  HOSTILE_WASM  target/wasm/wasm32-wasip2/wasm-component/warden_guest_hostile.wasm
  CONFORMANCE_WASM  target/wasm/wasm32-wasip2/wasm-component/warden_guest_conformance.wasm
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import subprocess
import threading
import time
import urllib.parse
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
WASM_DIR = REPO / "target" / "wasm" / "wasm32-wasip2" / "wasm-component"
BUILD_HINT = "run `cargo build --release -p warden -p warden-tests` first"
HEX64 = re.compile(r"^[0-9a-f]{64}$")

# Fixtures of the browser-driving modules (`chromium`) and the SSH modules (`sshd`).
pytest_plugins = ["browser_helpers", "sshd"]

# --------------------------------------------------------------------------- parallel runs
#
# tests/run runs the suite on two pytest-xdist workers (most of an e2e test's time is spent
# waiting for Chromium, sshd or a server), then the `serial` tests alone. A worker takes a
# whole file at a time, so a file's module fixtures (one Chromium, one registry) start once.

#: Files that build plugins with the SDK toolchains and share those builds: the JavaScript and
#: Python fixtures are built once per pytest process (`build_js`, `fixture_component`) and the
#: Rust plugins share the cargo directory target/e2e-sdk-package. They go to one worker as one
#: unit, first: nothing is built twice, and the two cores are not both taken by compilers while
#: the other worker drives browsers. test_foreign_toolchains.py builds its own components with
#: the same toolchains (componentize-js, componentize-py), so it joins the unit for the same reason.
SHARED_BUILDS = "SDK builds"
SHARED_BUILD_FILES = {
    "test_foreign_toolchains.py",
    "test_plugin_js.py",
    "test_plugin_new.py",
    "test_plugin_python.py",
    "test_plugin_settings.py",
    "test_sdk_http.py",
    "test_sdk_imports.py",
    "test_sdk_js_capabilities.py",
    "test_sdk_js_features.py",
    "test_sdk_packages.py",
    "test_sdk_python_capabilities.py",
    "test_sdk_python_context.py",
    "test_sdk_tool_groups.py",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "serial: needs the machine to itself (wall-clock bounds, races a load widens): runs alone, after the parallel tests (tests/run)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the order in which files are handed out: the shared builds first
    (the longest unit, see SHARED_BUILD_FILES), then the files with the most tests, so that
    the run does not end with one worker busy on a long file and the other idle."""
    if not hasattr(config, "workerinput"):
        return
    per_file: dict[str, int] = {}
    for item in items:
        per_file[item.path.name] = per_file.get(item.path.name, 0) + 1
    items.sort(key=lambda item: (item.path.name not in SHARED_BUILD_FILES, -per_file[item.path.name]))


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """One unit of work per file, except SHARED_BUILD_FILES: one unit together."""
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return SHARED_BUILDS if Path(path).name in SHARED_BUILD_FILES else path

    # Units in the order pytest_collection_modifyitems gave them.
    config.option.loadscopereorder = False
    return ByFile(config, log)


#: Lock files a login shell's profile takes and waits for. A shell that a test hangs up while
#: its profile starts (open, then close at once) can leave one behind, and every later
#: login shell of the machine (local terminals and SSH logins alike) then waits a minute for
#: it. Such a lock is held for milliseconds, so one older than this is stale.
PROFILE_LOCKS = [
    Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "shims" / ".pyenv-shim",
]
STALE_LOCK_SECONDS = 10


@pytest.fixture(autouse=True)
def no_stale_profile_locks() -> None:
    """The machine's shells start as they would for a user: no lock left by an earlier test."""
    for lock in PROFILE_LOCKS:
        with contextlib.suppress(OSError):
            if time.time() - lock.stat().st_mtime > STALE_LOCK_SECONDS:
                lock.unlink()


def _required_file(env: str, default: Path) -> Path:
    path = Path(os.environ.get(env, str(default)))
    if not path.is_file():
        pytest.fail(f"{env}={path} does not exist; {BUILD_HINT}", pytrace=False)
    return path


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


def warden_binary() -> Path:
    return _required_file("WARDEN_BIN", REPO / "target" / "release" / "warden")


@pytest.fixture(scope="session")
def warden_bin() -> Path:
    return warden_binary()


@pytest.fixture(scope="session")
def echo_wasm() -> Path:
    return _required_file("ECHO_WASM", WASM_DIR / "warden_guest_echo.wasm")


@pytest.fixture(scope="session")
def hostile_wasm() -> Path:
    return _required_file("HOSTILE_WASM", WASM_DIR / "warden_guest_hostile.wasm")


@pytest.fixture(scope="session")
def conformance_wasm() -> Path:
    return _required_file("CONFORMANCE_WASM", WASM_DIR / "warden_guest_conformance.wasm")


_session_caches: dict[int, Path] = {}


def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's compiled-component cache (keyed by its one temp-path factory)."""
    if id(tmp_path_factory) not in _session_caches:
        _session_caches[id(tmp_path_factory)] = tmp_path_factory.mktemp("warden-cache")
    return _session_caches[id(tmp_path_factory)]


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One compiled-component cache for the whole session (warm starts after the first)."""
    return session_cache(tmp_path_factory)


def compile_ahead(tmp_path_factory: pytest.TempPathFactory, *components: Path) -> None:
    """What an admin does before serving: `warden check` puts each component's optimized code
    into the session's cache. The servers the tests start then load it, where a large component
    in no cache would start on baseline code (`[server] quick_start`, tested in
    test_quick_start.py) and a short-lived server would leave its optimized compilation unfinished
    for the next to begin again."""
    cache = session_cache(tmp_path_factory)
    for component in components:
        tmp = tmp_path_factory.mktemp("compile-ahead")
        manifest = tmp / "warden.toml"
        manifest.write_text(f'[server]\naudit_log = "{tmp / "audit.jsonl"}"\n\n{plugin_block("ahead", component)}')
        env = {**os.environ, "WARDEN_CACHE_DIR": str(cache), "XDG_STATE_HOME": str(tmp / "state")}
        done = subprocess.run(
            [str(warden_binary()), "check", "--manifest", str(manifest)], env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"warden check of {component}:\n{done.stderr[-3000:]}"


@pytest.fixture()
def warden_env(cache_dir: Path, tmp_path: Path) -> dict[str, str]:
    """Environment for a warden process: the session cache, state kept under tmp_path."""
    env = {
        "WARDEN_CACHE_DIR": str(cache_dir),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "RUST_LOG": os.environ.get("RUST_LOG", "info"),
    }
    return env


# --------------------------------------------------------------------------- manifests


@dataclass
class Manifest:
    path: Path
    audit: Path

    def audit_lines(self) -> list[dict[str, Any]]:
        if not self.audit.exists():
            return []
        lines = []
        for raw in self.audit.read_text().splitlines():
            if raw.strip():
                lines.append(json.loads(raw))
        return lines


def plugin_block(name: str, source: Path | str, extra: str = "") -> str:
    return f'[[plugin]]\nname = "{name}"\nsource = "{source}"\n{extra}\n'


@pytest.fixture()
def write_manifest(tmp_path: Path):
    """write_manifest(body, name="warden.toml") -> Manifest; adds a [server] audit_log line."""

    def write(body: str, name: str = "warden.toml", audit: str = "audit.jsonl") -> Manifest:
        path = tmp_path / name
        text = f'[server]\naudit_log = "{audit}"\n\n{body}'
        path.write_text(text)
        return Manifest(path=path, audit=tmp_path / audit)

    return write


# --------------------------------------------------------------------------- MCP client


def text_of(result: Any) -> str:
    """All text content blocks of a CallToolResult, joined."""
    return "".join(getattr(block, "text", "") for block in result.content)


@dataclass
class Warden:
    session: ClientSession
    init: Any
    stderr_path: Path
    manifest: Path | None
    pid: int | None = None

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def process(self) -> psutil.Process:
        assert self.pid is not None, "warden process not found"
        return psutil.Process(self.pid)

    async def call(self, name: str, arguments: dict[str, Any] | None = None, timeout: float = 30):
        with anyio.fail_after(timeout):
            return await self.session.call_tool(name, arguments or {})

    async def assert_echo(self, text: str = "still here") -> None:
        result = await self.call("echo", {"text": text}, timeout=15)
        assert not result.is_error, text_of(result)
        assert text_of(result) == text


def _find_pid(marker: str, deadline: float) -> int | None:
    me = psutil.Process()
    while time.monotonic() < deadline:
        for child in me.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if marker in " ".join(child.cmdline()):
                    return child.pid
        time.sleep(0.02)
    return None


@contextlib.asynccontextmanager
async def open_warden(
    warden_bin: Path,
    env: dict[str, str],
    cwd: Path,
    manifest: Manifest | None,
    stderr_path: Path,
    **session_kwargs: Any,
) -> AsyncIterator[Warden]:
    """An initialized MCP session to `warden serve` (with `manifest`), its stderr in
    `stderr_path`: what `start_warden` starts, for fixtures of a wider scope."""
    args = ["serve"]
    if manifest is not None:
        args += ["--manifest", str(manifest.path)]
    params = StdioServerParameters(command=str(warden_bin), args=args, env=env, cwd=str(cwd))
    with open(stderr_path, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, **session_kwargs) as session:
                try:
                    # A hang guard, not a speed bound: a first start compiles each plugin
                    # (a JavaScript or Python component takes seconds of Cranelift on an idle
                    # core), and the other test worker may hold a core meanwhile.
                    with anyio.fail_after(60):
                        init = await session.initialize()
                except BaseException:
                    errlog.flush()
                    print("warden stderr:\n" + stderr_path.read_text(errors="replace")[-4000:])
                    raise
                marker = str(manifest.path) if manifest is not None else str(warden_bin)
                pid = _find_pid(marker, time.monotonic() + 2)
                yield Warden(session, init, stderr_path, manifest.path if manifest else None, pid)


@pytest.fixture()
def start_warden(warden_bin: Path, warden_env: dict[str, str], tmp_path: Path):
    """`async with start_warden(manifest) as w:` -> an initialized MCP session to `warden serve`."""
    counter = iter(range(1000))

    def start(manifest: Manifest | None, env: dict[str, str] | None = None, **session_kwargs: Any):
        stderr_path = tmp_path / f"warden-stderr-{next(counter)}.log"
        return open_warden(warden_bin, {**warden_env, **(env or {})}, tmp_path, manifest, stderr_path, **session_kwargs)

    return start


# --------------------------------------------------------------------------- local HTTP


@dataclass
class LocalHTTP:
    """A tiny HTTP server on 127.0.0.1:0 that records every request it receives.

    GET /body?...          200, body "warden-e2e-body <path>"
    GET /redirect?to=URL   302 to URL
    """

    server: http.server.ThreadingHTTPServer
    requests: list[str] = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def url(self, path: str = "/body", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def redirect_url(self, to: str, host: str = "127.0.0.1") -> str:
        return self.url("/redirect?to=" + urllib.parse.quote(to, safe=""), host)


def _make_http() -> LocalHTTP:
    holder: dict[str, LocalHTTP] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            holder["srv"].requests.append(self.path)
            parsed = urllib.parse.urlparse(self.path)
            if parsed.path == "/redirect":
                target = urllib.parse.parse_qs(parsed.query)["to"][0]
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = f"warden-e2e-body {self.path}".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    srv = LocalHTTP(server)
    holder["srv"] = srv
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return srv


@pytest.fixture()
def http_server() -> Iterator[LocalHTTP]:
    srv = _make_http()
    yield srv
    srv.server.shutdown()
    srv.server.server_close()


@pytest.fixture()
def http_server2() -> Iterator[LocalHTTP]:
    srv = _make_http()
    yield srv
    srv.server.shutdown()
    srv.server.server_close()


# --------------------------------------------------------------------------- audit


def check_audit_line(line: dict[str, Any]) -> None:
    """Fields every audit line carries (spec: audit JSONL)."""
    for key in ("ts", "event", "plugin", "tool", "decision", "outcome"):
        assert key in line, f"audit line lacks {key!r}: {line}"
    assert line["event"] in (
        "tool_call",
        "resource_read",
        "prompt_get",
        "completion",
        "approval",
        "capability_used",
        "capability_denied",
        "plugin_load",
        "recording",
    ), line
    if line["event"] in ("tool_call", "resource_read", "prompt_get", "completion"):
        for key in ("args_sha256", "args_bytes", "duration_ms"):
            assert key in line, f"tool_call audit line lacks {key!r}: {line}"
        assert HEX64.match(line["args_sha256"]), f"args_sha256 is not 64 hex chars: {line}"
        assert isinstance(line["args_bytes"], int) and line["args_bytes"] >= 0, line
        assert isinstance(line["duration_ms"], int) and line["duration_ms"] >= 0, line
    assert line["decision"] in ("allowed", "denied"), line
    assert line["outcome"] in ("ok", "tool_error", "timeout", "trap", "cancelled", "denied"), line
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", line["ts"]), line
    for raw_key in ("arguments", "args", "params"):
        assert raw_key not in line, f"audit line carries raw arguments under {raw_key!r}: {line}"
    if line["event"] == "capability_denied":
        for key in ("capability", "target", "reason"):
            assert key in line, f"capability_denied line lacks {key!r}: {line}"
        assert line["decision"] == "denied", line
    if line["event"] == "capability_used":
        for key in ("capability", "target", "duration_ms"):
            assert key in line, f"capability_used line lacks {key!r}: {line}"
        assert line["decision"] == "allowed", line
        assert "?" not in line["target"], f"a URL query reached the audit log: {line}"


async def wait_for(predicate, timeout: float = 5.0, interval: float = 0.05):
    """Poll predicate() until it returns a truthy value (returned) or timeout (returns the last value)."""
    deadline = time.monotonic() + timeout
    value = predicate()
    while not value and time.monotonic() < deadline:
        await anyio.sleep(interval)
        value = predicate()
    return value


@pytest.fixture()
def helpers():
    """Plain helper functions, handed to tests as a namespace."""

    class H:
        text_of = staticmethod(text_of)
        check_audit_line = staticmethod(check_audit_line)
        wait_for = staticmethod(wait_for)
        plugin_block = staticmethod(plugin_block)
        HEX64 = HEX64

    return H
