"""The SDK finds its generated modules whatever the plugin imports: componentize-py's
bindings (no component) for a world with no imports, each import alone and all of them,
loaded natively with the SDK's export glue and capability modules. A module name that moves
with the import set (`types` or `warden_plugin_types`) broke the build of a plugin with no
imports; this catches it in a second, the full builds run in tests/e2e/test_sdk_imports.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SDK = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SDK))

from warden_sdk import build  # noqa: E402
from warden_sdk._bindings import INTERFACES, module_names  # noqa: E402

WIT = SDK.parents[1] / "wit"

VARIANTS = {"none": [], **{name: [name] for name in INTERFACES}, "all": list(INTERFACES)}

# Runs inside the bindings: the export glue lists and calls a tool, and every interface
# resolves to its module (or to the error naming the import to add).
PROBE = r"""
import json, pkgutil, sys
from warden_sdk import Plugin
from warden_sdk._bindings import INTERFACES, plugin_interface
from warden_sdk._capability import binding

plugin = Plugin()

@plugin.tool(read_only=True)
def ping() -> str:
    "Answer pong."
    return "pong"

Tools, Resources, Prompts, Completions = plugin.export()
# What a component's snapshot would keep: the modules imported by the end of export().
import wit_world.imports
generated = sorted(m.name for m in pkgutil.iter_modules(wit_world.imports.__path__))
preloaded = sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("wit_world.imports."))
listed = [t.name for t in Tools().list_tools()]
out = Tools().call_tool("ping", "{}")
found = {}
for name in INTERFACES:
    try:
        found[name] = binding(name).__name__
    except RuntimeError as e:
        found[name] = "error: " + str(e)
from warden_sdk import http
try:
    http_modules = [m.__name__ for m in http._wit()]
except RuntimeError as e:
    http_modules = str(e)
print(json.dumps({
    "http": http_modules,
    "tools": listed,
    "text": out.content[0].value,
    "types": plugin_interface("types").__name__,
    "context": hasattr(plugin_interface("context"), "log"),
    "state": hasattr(plugin_interface("state"), "get"),
    "found": found,
    "generated": generated,
    "preloaded": preloaded,
}))
"""


def componentize_py() -> str:
    beside = Path(sys.executable).parent / "componentize-py"
    found = str(beside) if beside.exists() else shutil.which("componentize-py")
    if found is None:
        message = "componentize-py is not installed: pip install -r sdk/python/requirements-build.txt"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def test_module_names_are_qualified_first() -> None:
    assert module_names("warden", "plugin", "types") == ("warden_plugin_types", "types")
    assert module_names("wasi", "http", "outgoing-handler") == ("wasi_http_outgoing_handler", "outgoing_handler")


def probe_bindings(wit: Path, probe: str, bindings: Path):
    """Generates componentize-py's bindings of the SDK's world from `wit` into `bindings`, then
    runs `probe` against them and the SDK; returns what it printed, as JSON."""
    made = subprocess.run(
        [componentize_py(), "-d", str(wit), "-w", f"warden:plugin/{build.WORLD}", "bindings", str(bindings)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    ran = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(bindings), str(SDK)])},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_sdk_finds_its_bindings(variant: str, tmp_path: Path) -> None:
    imports = VARIANTS[variant]
    wit = build.write_wit(WIT, imports, tmp_path / "wit")
    seen = probe_bindings(wit, PROBE, tmp_path / "bindings")
    assert seen["tools"] == ["ping"] and seen["text"] == "pong", seen
    assert seen["types"] in ("wit_world.imports.types", "wit_world.imports.warden_plugin_types"), seen
    assert seen["context"] and seen["state"], seen
    # A component keeps only the modules imported while it is pre-initialized, and
    # componentize-py's runtime imports none of functions alone (outgoing_handler):
    # export() imports them all.
    assert seen["preloaded"] == seen["generated"], seen
    if "http" in imports:
        # warden_sdk.http reaches the handler, wasi:http/types and wasi:io/streams.
        names = [m.rsplit(".", 1)[1] for m in seen["http"]]
        assert names[0] in module_names(*INTERFACES["http"]) and names[1:] == ["wasi_http_types", "streams"], seen
    else:
        assert "does not import `http`" in seen["http"], seen
    for name, module in seen["found"].items():
        if name in imports:
            assert module.startswith("wit_world.imports."), (name, module)
            assert module.rsplit(".", 1)[1] in module_names(*INTERFACES[name]), (name, module)
        else:
            assert module == (
                f"error: this plugin does not import `{name}`: add it to `[tool.warden] imports` in "
                "pyproject.toml and rebuild"
            ), (name, module)


GROUPS_PROBE = r"""
import json
from warden_sdk import Capability, Plugin

plugin = Plugin()
plugin.group("net", "network checks", tools=["ping"], needs=[Capability.HTTP, Capability.CAPTURE_HTTP])
plugin.group("rest", "the other tools")

@plugin.tool()
def ping() -> str:
    return "pong"

@plugin.tool()
def time() -> str:
    return "now"

try:
    exported = plugin.export()
except RuntimeError as e:
    print(json.dumps({"error": str(e)}))
    raise SystemExit(0)
groups = exported[4]().groups()
print(json.dumps([[g.name, g.summary, g.tools, [k.name for k in g.needs]] for g in groups]))
"""


@pytest.mark.parametrize("with_groups", [True, False])
def test_groups_are_exported_when_the_world_has_them(with_groups: bool, tmp_path: Path) -> None:
    wit = build.write_wit(WIT, [], tmp_path / "wit", groups=with_groups)
    seen = probe_bindings(wit, GROUPS_PROBE, tmp_path / "bindings")
    if with_groups:
        assert seen == [
            ["net", "network checks", ["ping"], ["HTTP", "CAPTURE_HTTP"]],
            ["rest", "the other tools", ["time"], []],
        ], seen
    else:
        # Groups declared, but the module does not bind `Groups`: the build's pre-init says how.
        assert seen["error"].startswith("this plugin declares tool groups but does not export them"), seen
        assert "Completions, Groups = plugin.export()" in seen["error"], seen
