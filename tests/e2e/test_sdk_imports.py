"""Every SDK builds a plugin whatever it imports: no capability at all (the first plugin most
authors write), each capability alone, and all of them.

Built into components and loaded by one `warden check` and one `warden serve`: the nine Rust
variants (one cargo build of nine crates sharing their dependencies with test_plugin_new.py),
and the JavaScript and Python plugins with no imports and with all of them (Python's is the
fixture, built once per session for test_plugin_python.py). `ping` answers, `probe` calls each
imported capability (refused without grants, naming the grant; settings read; HTTP refused), and `warden
check` shows that each component imports its capabilities and no other. A JavaScript or Python
plugin importing one capability alone is checked without a componentize run, in a second for
all of them: the JS SDK's bundle and world (sdk/js/test/imports.test.mjs), and the Python SDK
against componentize-py's bindings of each world (sdk/python/tests/test_bindings.py); a
componentize run costs 5-15 s and its load 5 s more per component.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO, check_audit_line, compile_ahead
from test_plugin_js import SDK as JS_SDK
from test_plugin_js import _node
from test_plugin_new import toolchain_env
from test_plugin_python import SDK as PY_SDK
from test_plugin_python import FIXTURE_LIMITS, _toolchain_or_skip, fixture_component

pytestmark = pytest.mark.anyio

# The capability imports, as pyproject.toml / package.json spell them, and the component
# import each becomes.
IMPORTS = {
    "capture/http": "warden:capture/http",
    "capture/page": "warden:capture/page",
    "browser": "warden:browser/browser",
    "terminal": "warden:terminal/terminal",
    "sftp": "warden:sftp/sftp",
    "rdp": "warden:rdp/desktop",
    "settings": "wasi:config/store",
    "http": "wasi:http/outgoing-handler",
}
VARIANTS: dict[str, list[str]] = {"none": [], **{name: [name] for name in IMPORTS}, "all": list(IMPORTS)}
# The variants built for each language (the rest: see the module's docstring).
BUILT = {"rs": list(VARIANTS), "js": ["none", "all"], "py": ["none"]}
GREETING = "hello from the manifest"


def slug(variant: str) -> str:
    return variant.replace("/", "_")


# ---------------------------------------------------------------------------- Python

PY_CALLS = {
    "capture/http": 'capture.http_get("http://127.0.0.1:9/")',
    "capture/page": 'capture.capture_page("http://127.0.0.1:9/")',
    "browser": 'browser.open_page("probe")',
    "terminal": 'terminal.open("local")',
    "sftp": 'sftp.list("nohost", "/")',
    "rdp": 'rdp.open("nohost", None)',
    "settings": 'settings.get("greeting")',
    "http": 'http.get("http://127.0.0.1:9/")',
}
PY_MODULE = {"capture/http": "capture", "capture/page": "capture", "settings": "settings", "http": "http"}


def python_project(root: Path, variant: str) -> Path:
    imports = VARIANTS[variant]
    project = root / f"py-{slug(variant)}"
    project.mkdir()
    modules = sorted({PY_MODULE.get(name, name) for name in imports})
    probes = "".join(f"    lines.append(outcome({name!r}, lambda: {PY_CALLS[name]}))\n" for name in imports)
    (project / "app.py").write_text(
        "from warden_sdk import CapabilityError, Plugin\n"
        + "".join(f"from warden_sdk import {m}\n" for m in modules)
        + """
plugin = Plugin()


def outcome(name, call):
    try:
        return f"{name}: ok {call()!r}"
    except CapabilityError as e:
        return f"{name}: {e}"


@plugin.tool(read_only=True)
def ping() -> str:
    "Answer pong."
    return "pong"


@plugin.tool()
def probe() -> str:
    "Call each imported capability once."
    lines = []
"""
        + probes
        + """    return "\\n".join(lines)


Tools, Resources, Prompts, Completions = plugin.export()
"""
    )
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "py-{slug(variant)}"\nversion = "0.1.0"\n\n'
        f'[tool.warden]\nmodule = "app"\nimports = {json.dumps(imports)}\noutput = "plugin.wasm"\n'
    )
    return project


def python_build(project: Path) -> list[str]:
    return [sys.executable, "-m", "warden_sdk", "build", "--project", str(project), "--quiet"]


# ---------------------------------------------------------------------------- JavaScript

JS_IMPORT = {
    "capture/http": "import { httpGet } from '@warden/plugin-sdk/capture';",
    "capture/page": "import { capturePage } from '@warden/plugin-sdk/capture';",
    "browser": "import { openPage } from '@warden/plugin-sdk/browser';",
    "terminal": "import * as terminal from '@warden/plugin-sdk/terminal';",
    "sftp": "import * as sftp from '@warden/plugin-sdk/sftp';",
    "rdp": "import * as rdp from '@warden/plugin-sdk/rdp';",
    "settings": "",
    "http": "",
}
JS_CALLS = {
    "capture/http": "httpGet('http://127.0.0.1:9/')",
    "capture/page": "capturePage('http://127.0.0.1:9/')",
    "browser": "openPage('probe')",
    "terminal": "terminal.open({ tag: 'local' }, 80, 24)",
    "sftp": "sftp.list('nohost', '/')",
    "rdp": "rdp.open('nohost', undefined)",
    "settings": "settings.get('greeting')",
    "http": "fetch('http://127.0.0.1:9/')",
}


def js_project(root: Path, variant: str) -> Path:
    imports = VARIANTS[variant]
    project = root / f"js-{slug(variant)}"
    (project / "src").mkdir(parents=True)
    head = "\n".join(line for line in dict.fromkeys(JS_IMPORT[name] for name in imports) if line)
    probes = "".join(f"  lines.push(await outcome('{name}', () => {JS_CALLS[name]}));\n" for name in imports)
    (project / "src" / "plugin.js").write_text(
        "import { Plugin, Tool, CapabilityError, settings } from '@warden/plugin-sdk';\n"
        + head
        + """

async function outcome(name, call) {
  try {
    return `${name}: ok ${JSON.stringify(await call())}`;
  } catch (e) {
    // A refused fetch() rejects with a TypeError, not a CapabilityError.
    return `${name}: ${e instanceof CapabilityError ? '' : 'failed: '}${e}`;
  }
}

async function probe() {
  const lines = [];
"""
        + probes
        + """  return lines.join('\\n');
}

const plugin = new Plugin()
  .tool(new Tool('ping', () => 'pong').readOnly())
  .tool(new Tool('probe', probe));

export const { tools, resources, prompts, completions } = plugin.exports();
"""
    )
    (project / "package.json").write_text(
        json.dumps(
            {
                "name": f"js-{slug(variant)}",
                "private": True,
                "type": "module",
                "warden": {"imports": imports, "output": "plugin.wasm"},
            }
        )
    )
    return project


# ---------------------------------------------------------------------------- Rust

RS_CALLS = {
    "capture/http": 'outcome("capture/http", warden_sdk::capture::http_get(warden_sdk::capture::HttpRequest::get("http://127.0.0.1:9/")))',
    "capture/page": """outcome("capture/page", {
        use warden_sdk::capture::page::{capture_page, CaptureRequest, Format, WaitUntil};
        capture_page(&CaptureRequest {
            url: "http://127.0.0.1:9/".into(),
            wait_until: WaitUntil::Load,
            timeout_ms: 0,
            capture_cookies: false,
            format: Format::Text,
        })
    })""",
    "browser": 'outcome("browser", warden_sdk::browser::open_page(Some("probe")))',
    "terminal": 'outcome("terminal", warden_sdk::terminal::open(warden_sdk::terminal::Target::Local, 80, 24))',
    "sftp": 'outcome("sftp", warden_sdk::sftp::list("nohost", "/"))',
    "rdp": 'outcome("rdp", warden_sdk::rdp::open("nohost", None))',
    "settings": 'format!("settings: ok {:?}", warden_sdk::settings::get("greeting"))',
    "http": 'outcome("http", warden_sdk::http::get("http://127.0.0.1:9/").send())',
}

RS_LIB = """use warden_sdk::prelude::*;

#[allow(dead_code)]
fn outcome<T, E: std::fmt::Display>(name: &str, result: Result<T, E>) -> String {
    match result {
        Ok(_) => format!("{name}: ok"),
        Err(e) => format!("{name}: {e}"),
    }
}

fn probe(_: NoArgs) -> Result<String, ToolError> {
    #[allow(unused_mut)]
    let mut lines: Vec<String> = Vec::new();
CALLS    Ok(lines.join("\\n"))
}

warden_sdk::export_plugin!(|| Plugin::new()
    .tool(Tool::new("ping", |_: NoArgs| Ok("pong")).read_only())
    .tool(Tool::new("probe", probe)));
"""


def rust_workspace(root: Path) -> tuple[Path, dict[str, Path]]:
    """One workspace of nine crates, one per variant, sharing one lib.rs whose calls are
    behind a feature per capability: one cargo build compiles them side by side."""
    ws = root / "rs"
    calls = "".join(
        f'    #[cfg(feature = "{slug(name)}")]\n    lines.push({RS_CALLS[name]});\n' for name in IMPORTS
    )
    (ws / "shared").mkdir(parents=True)
    (ws / "shared" / "lib.rs").write_text(RS_LIB.replace("CALLS", calls))
    features = "".join(f"{slug(name)} = []\n" for name in IMPORTS)
    members = {}
    for variant, imports in VARIANTS.items():
        crate = f"rs-{slug(variant).replace('_', '-')}"
        (ws / crate).mkdir()
        enabled = ", ".join(f'"{slug(name)}"' for name in imports)
        (ws / crate / "Cargo.toml").write_text(
            f'[package]\nname = "{crate}"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n'
            f'[lib]\npath = "../shared/lib.rs"\ncrate-type = ["cdylib"]\n\n'
            f"[dependencies]\nwarden-sdk = {{ path = {json.dumps(str(REPO / 'sdk'))} }}\n"
            'serde = { version = "1", features = ["derive"] }\nschemars = "1.2"\n\n'
            f"[features]\ndefault = [{enabled}]\n{features}"
        )
        members[variant] = Path("wasm32-wasip2") / "release" / f"{crate.replace('-', '_')}.wasm"
    (ws / "Cargo.toml").write_text(
        "[workspace]\nresolver = \"3\"\nmembers = [" + ", ".join(f'"rs-{slug(v).replace("_", "-")}"' for v in VARIANTS) + "]\n"
    )
    # Warden's own lock: the versions it is tested with, already downloaded by its build.
    (ws / "Cargo.lock").write_text((REPO / "Cargo.lock").read_text())
    return ws, members


# ---------------------------------------------------------------------------- build

@dataclass
class Built:
    wasm: dict[tuple[str, str], Path]
    seconds: dict[str, float]


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 900) -> float:
    started = time.monotonic()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, argv))} failed in {cwd}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return time.monotonic() - started


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, warden_bin: Path) -> Built:
    _toolchain_or_skip()
    node = _node()
    root = tmp_path_factory.mktemp("sdk-imports")
    started = time.monotonic()
    wasm: dict[tuple[str, str], Path] = {}
    jobs: list[tuple[str, list[str], Path, dict[str, str] | None]] = []
    for variant in BUILT["py"]:
        py = python_project(root, variant)
        jobs.append((f"py {variant}", python_build(py), py, {**os.environ, "PYTHONPATH": str(PY_SDK)}))
        wasm[("py", variant)] = py / "plugin.wasm"
    for variant in BUILT["js"]:
        js = js_project(root, variant)
        jobs.append((f"js {variant}", [str(node), str(JS_SDK / "build.mjs"), str(js)], js, None))
        wasm[("js", variant)] = js / "plugin.wasm"
    ws, members = rust_workspace(root)
    shared = REPO / "target" / "e2e-sdk-package"
    for variant, rel in members.items():
        wasm[("rs", variant)] = shared / rel

    seconds: dict[str, float] = {}
    # Cargo takes both cores for its nine crates; then the componentize runs two at a time
    # (each is one core's work).
    seconds["rust, 9 crates"] = _run(
        ["cargo", "build", "--offline", "--target", "wasm32-wasip2", "--release", "--workspace"],
        ws,
        {**toolchain_env({}), "CARGO_TARGET_DIR": str(shared)},
    )
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = {name: pool.submit(_run, argv, cwd, env) for name, argv, cwd, env in jobs}
        seconds.update({name: future.result() for name, future in results.items()})
    # All seven imports in Python: the SDK's fixture, built once per session.
    wasm[("py", "all")] = fixture_component(tmp_path_factory)
    for key, path in wasm.items():
        assert path.is_file(), (key, path)
    compile_ahead(tmp_path_factory, *(path for (lang, _), path in wasm.items() if lang in ("js", "py")))
    print(f"built in {time.monotonic() - started:.0f} s: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
    return Built(wasm, seconds)


def plugin_name(lang: str, variant: str) -> str:
    return f"{lang}-{slug(variant).replace('_', '-')}"


def manifest_text(built: Built) -> str:
    blocks = []
    for (lang, variant), path in sorted(built.wasm.items()):
        limits = FIXTURE_LIMITS if lang == "py" else 'limits = { memory = "64MiB", call_timeout = "4s" }'
        blocks.append(
            f'[[plugin]]\nname = "{plugin_name(lang, variant)}"\nsource = "{path}"\n'
            f'tool_prefix = "{lang}_{slug(variant)}_"\n{limits}\n'
            f'[plugin.settings]\ngreeting = "{GREETING}"\n'
        )
    return "\n".join(blocks)


# ---------------------------------------------------------------------------- tests

DENIED_NAMING = {
    "capture/http": "http_hosts",
    "capture/page": "origins",
    "browser": "browser",
    "terminal": "local",
    "sftp": "sftp",
    "rdp": "rdp",
}


async def test_every_variant_loads_answers_and_reaches_its_imports(
    built: Built, start_warden, write_manifest, warden_bin: Path, warden_env: dict[str, str]
) -> None:
    manifest = write_manifest(manifest_text(built))
    # `warden check` first: it compiles every component into the session's cache, so the
    # server after it starts warm.
    checked = subprocess.run(
        [str(warden_bin), "check", "-m", str(manifest.path)],
        env={**os.environ, **warden_env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    seen = _imports_by_plugin(checked.stdout)
    for lang, variant in built.wasm:
        name = plugin_name(lang, variant)
        wanted = {IMPORTS[i] for i in VARIANTS[variant]}
        # The interfaces with functions (type-only ones, `*/types` and `warden:types/errors`,
        # come along with them).
        capabilities = {
            i
            for i in seen[name]
            if i.startswith(("warden:", "wasi:config", "wasi:http")) and not i.endswith(("/types", "/errors"))
        }
        # A Rust component imports only what its code calls: context and state drop out of
        # one that calls neither.
        assert capabilities - {"warden:plugin/context", "warden:plugin/state"} == wanted, (name, seen[name])
        if lang != "rs":
            assert {"warden:plugin/context", "warden:plugin/state"} <= capabilities, (name, seen[name])

    async with start_warden(manifest) as w:
        names = {t.name for t in (await w.session.list_tools()).tools}
        for lang, variant in sorted(built.wasm):
            prefix = f"{lang}_{slug(variant)}_"
            if (lang, variant) == ("py", "all"):
                # The fixture: its echo answers (its calls into each capability are
                # test_sdk_python_capabilities.py's).
                echo = await w.call(prefix + "echo", {"text": "still here"}, timeout=60)
                assert not echo.is_error and echo.content[0].text == "still here", echo
                continue
            assert {prefix + "ping", prefix + "probe"} <= names, (prefix, sorted(names))
            pong = await w.call(prefix + "ping", {}, timeout=60)
            assert not pong.is_error and pong.content[0].text == "pong", (prefix, pong)
            probe = await w.call(prefix + "probe", {}, timeout=60)
            assert not probe.is_error, (prefix, probe.content)
            text = probe.content[0].text if probe.content else ""
            lines = text.splitlines()
            imports = VARIANTS[variant]
            assert [line.split(":", 1)[0] for line in lines] == imports, (prefix, lines)
            for name, line in zip(imports, lines):
                if name == "settings":
                    assert GREETING in line, (prefix, line)
                elif name == "http":
                    # Refused by the host: the SDKs of Rust and Python name the grant; JavaScript's
                    # fetch() rejects with a TypeError (the audit line names it).
                    assert "ok" not in line.split(":", 2)[1], (prefix, line)
                    if lang != "js":
                        assert "the host refused" in line and "grants.http.origins" in line, (prefix, line)
                else:
                    # Refused by the host, with the grant to add named.
                    assert "access denied" in line and DENIED_NAMING[name] in line, (prefix, line)
    # Each refusal left its audit line.
    denied: dict[str, int] = {}
    for line in manifest.audit_lines():
        check_audit_line(line)
        if line["event"] == "capability_denied":
            denied[line["plugin"]] = denied.get(line["plugin"], 0) + 1
    for lang, variant in built.wasm:
        if (lang, variant) != ("py", "all"):
            refused = [i for i in VARIANTS[variant] if i != "settings"]
            assert denied.get(plugin_name(lang, variant), 0) >= len(refused), (lang, variant, denied)


def _imports_by_plugin(out: str) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    current = None
    for line in out.splitlines():
        m = re.match(r"plugin '([^']+)'", line)
        if m:
            current = m.group(1)
            seen[current] = set()
            continue
        m = re.match(r"    (\S+)@\S+\s", line)
        if current is not None and m:
            seen[current].add(m.group(1))
    return seen
