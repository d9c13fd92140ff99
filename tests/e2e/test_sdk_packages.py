"""The SDKs as they would be published: each one packaged from this checkout, installed in a
temporary directory outside it, and a plugin built from that package loads and answers."""

from __future__ import annotations

import filecmp
import os
import subprocess
import tarfile
from pathlib import Path

from conftest import REPO
from test_plugin_new import toolchain_env

# Shared with later runs, so a warm run compiles only the plugin (wit-bindgen, serde and schemars
# for wasm32-wasip2 stay built); the sources come from the packaged crate, never the checkout.
RUST_TARGET = REPO / "target" / "e2e-sdk-package"


def run(argv: list, cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def same_tree(a: Path, b: Path) -> list[str]:
    """Paths that differ between two directory trees (missing on one side or other content)."""
    cmp = filecmp.dircmp(a, b)
    diff = [str(a / n) for n in cmp.left_only + cmp.right_only + cmp.diff_files + cmp.funny_files]
    return diff + [d for sub in cmp.common_dirs for d in same_tree(a / sub, b / sub)]


def test_the_rust_sdk_carries_the_contract() -> None:
    """sdk/wit is the copy the packaged crate builds from: it must not drift from wit/."""
    assert not same_tree(REPO / "wit", REPO / "sdk" / "wit"), "sdk/wit differs from wit/: copy wit/ over sdk/wit"


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
