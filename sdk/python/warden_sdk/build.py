"""Build a plugin: generate the narrow world from `[tool.warden] imports` and run
componentize-py.

    python -m warden_sdk build [--project DIR] [--output FILE] [--wit DIR]

`pyproject.toml`:

    [tool.warden]
    module = "app"                      # the module that ends with `... = plugin.export()`
    imports = ["http"]                  # http, capture/http, capture/page, browser, terminal, sftp, rdp, settings
    output = "my_plugin.wasm"           # default: the project name with '-' -> '_'

The world imports `warden:plugin/context` and `state` and the listed interfaces only, so `warden check`
shows exactly what the plugin uses, and exports the four plugin interfaces, and `groups` when the
module binds `Groups` (`Tools, Resources, Prompts, Completions, Groups = plugin.export()`: the
plugin declares tool groups). `http` is the standard
`wasi:http/outgoing-handler`: its WIT and that of the WASI packages it uses (0.2.12, as the host's
wasmtime-wasi-http implements them) come with the SDK (`warden_sdk/wasi`).
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from ._bindings import INTERFACES

COMPONENTIZE_PY = "0.25.1"

WORLD = "python-plugin"


class BuildError(Exception):
    pass


def find_wit(explicit: str | None, project: Path) -> Path:
    here = Path(__file__).resolve().parent
    candidates = [
        Path(explicit) if explicit else None,
        Path(os.environ["WARDEN_WIT"]) if os.environ.get("WARDEN_WIT") else None,
        here / "wit",  # the copy a published package carries
        here.parent.parent.parent / "wit",  # a checkout: sdk/python/warden_sdk -> wit/
    ]
    for c in candidates:
        if c is not None:
            c = c if c.is_absolute() else project / c
            if (c / "plugin.wit").is_file():
                return c
    raise BuildError(
        "cannot find Warden's WIT (plugin.wit): pass --wit DIR, set WARDEN_WIT, or set "
        "`wit = \"path/to/warden/wit\"` in [tool.warden]"
    )


# The standard WASI packages the SDK carries, for `http`: Warden's own wit/ has none of them.
WASI = Path(__file__).resolve().parent / "wasi"


def package_version(wit: Path, namespace: str, package: str) -> str:
    for f in sorted([*(wit / "deps" / package).glob("*.wit"), *(WASI / package).glob("*.wit")]):
        m = re.search(rf"^package\s+{namespace}:{re.escape(package)}@([0-9][^;\s]*)\s*;", f.read_text(), re.M)
        if m:
            return m.group(1)
    raise BuildError(f"no `package {namespace}:{package}@...` in {wit / 'deps' / package}")


def exports_groups(project: Path, module: str) -> bool:
    """Whether the app module binds `Groups` at its top level (as `Tools, ..., Groups =
    plugin.export()` does): then the world exports `groups`. A module the build cannot read
    as a file exports no groups."""
    base = project.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            text = path.read_text()
            try:
                tree = ast.parse(text, str(path))
            except SyntaxError:
                # Newer syntax than the Python that runs the build (componentize-py brings its
                # own): a top-level line that binds the name.
                return TOP_LEVEL_GROUPS.search(text) is not None
            return any(_binds(node, "Groups") for node in tree.body)
    return False


TOP_LEVEL_GROUPS = re.compile(r"^(?=[\w(])(?:[\w\s,()]*\bGroups\b[\w\s,()]*=(?!=)|class\s+Groups\b|from\s.*\bimport\b.*\bGroups\b)", re.M)


def _binds(node: ast.stmt, name: str) -> bool:
    def named(target: ast.expr) -> bool:
        if isinstance(target, ast.Name):
            return target.id == name
        if isinstance(target, (ast.Tuple, ast.List)):
            return any(named(e) for e in target.elts)
        if isinstance(target, ast.Starred):
            return named(target.value)
        return False

    if isinstance(node, ast.Assign):
        return any(named(t) for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return named(node.target)
    if isinstance(node, ast.ClassDef):
        return node.name == name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name) == name for a in node.names)
    return False


def world_text(wit: Path, imports: list[str], groups: bool = False) -> str:
    plugin_version = re.search(r"^package\s+warden:plugin@([^;\s]+)\s*;", (wit / "plugin.wit").read_text(), re.M)
    if plugin_version is None:
        raise BuildError(f"{wit / 'plugin.wit'} declares no `package warden:plugin@...`")
    lines = [f"package warden:plugin@{plugin_version.group(1)};", "", f"world {WORLD} {{", "    import context;", "    import state;"]
    for name in imports:
        if name not in INTERFACES:
            raise BuildError(f"unknown import `{name}` in [tool.warden] imports; use some of: {', '.join(INTERFACES)}")
        namespace, package, interface = INTERFACES[name]
        lines.append(f"    import {namespace}:{package}/{interface}@{package_version(wit, namespace, package)};")
    lines += ["    export tools;", "    export resources;", "    export prompts;", "    export completions;"]
    if groups:
        lines.append("    export groups;")
    lines += ["}", ""]
    return "\n".join(lines)


def write_wit(wit: Path, imports: list[str], dest: Path, groups: bool = False) -> Path:
    """Warden's WIT with the plugin's world beside it (and the WASI packages `http` needs),
    in `dest`, for componentize-py's `-d`."""
    world = world_text(wit, imports, groups)
    shutil.copytree(wit, dest)
    if "http" in imports:
        for package in WASI.iterdir():
            if not (dest / "deps" / package.name).exists():
                shutil.copytree(package, dest / "deps" / package.name)
    (dest / "zz-python-plugin.wit").write_text(world)
    return dest


def componentize_py() -> str:
    beside = Path(sys.executable).parent / "componentize-py"
    found = str(beside) if beside.exists() else shutil.which("componentize-py")
    if found is None:
        raise BuildError(f"componentize-py is not installed: pip install componentize-py=={COMPONENTIZE_PY}")
    return found


def build(project: Path, output: str | None = None, wit_dir: str | None = None, quiet: bool = False) -> Path:
    project = project.resolve()
    pyproject = project / "pyproject.toml"
    if not pyproject.is_file():
        raise BuildError(f"no pyproject.toml in {project}")
    data = tomllib.loads(pyproject.read_text())
    conf = data.get("tool", {}).get("warden", {})
    name = data.get("project", {}).get("name", project.name)
    module = conf.get("module", "app")
    imports = conf.get("imports", [])
    if not isinstance(imports, list) or not all(isinstance(i, str) for i in imports):
        raise BuildError("[tool.warden] imports must be a list of interface names, e.g. [\"capture/http\"]")
    out = Path(output or conf.get("output") or f"{name.replace('-', '_')}.wasm")
    out = out if out.is_absolute() else project / out
    wit = find_wit(wit_dir or conf.get("wit"), project)
    sdk_path = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="warden-wit-") as tmp:
        tmp_wit = write_wit(wit, imports, Path(tmp) / "wit", exports_groups(project, module))
        cmd = [
            componentize_py(),
            "-d",
            str(tmp_wit),
            "-w",
            f"warden:plugin/{WORLD}",
            "componentize",
            "-p",
            str(project),
            "-p",
            str(sdk_path),
            module,
            "-o",
            str(out),
        ]
        if quiet:
            cmd.insert(1, "-q")
        started = time.monotonic()
        done = subprocess.run(cmd, cwd=project)
        if done.returncode != 0:
            raise BuildError(f"componentize-py failed (exit {done.returncode}): {' '.join(cmd)}")
    if not quiet:
        size = out.stat().st_size / 1e6
        print(f"built {out} ({size:.1f} MB) in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m warden_sdk", description="Build a Warden plugin written in Python.")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="generate the narrow world and run componentize-py")
    b.add_argument("--project", default=".", help="the directory with pyproject.toml (default: .)")
    b.add_argument("--output", "-o", help="the component to write (default: [tool.warden] output)")
    b.add_argument("--wit", help="Warden's wit/ directory (default: the SDK's copy or checkout)")
    b.add_argument("--quiet", "-q", action="store_true")
    w = sub.add_parser("world", help="print the world the build would generate")
    w.add_argument("--project", default=".")
    w.add_argument("--wit")
    args = parser.parse_args(argv)
    try:
        project = Path(args.project)
        if args.command == "world":
            conf = tomllib.loads((project / "pyproject.toml").read_text()).get("tool", {}).get("warden", {})
            groups = exports_groups(project.resolve(), conf.get("module", "app"))
            print(world_text(find_wit(args.wit or conf.get("wit"), project.resolve()), conf.get("imports", []), groups))
            return 0
        build(project, args.output, args.wit, args.quiet)
    except (BuildError, OSError, tomllib.TOMLDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0
