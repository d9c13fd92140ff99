"""`warden plugin new`: the crate it writes builds into a component as it is (with the
toolchain and dependency versions Warden itself builds with), `warden check` loads it, and its
tools answer through `warden call`, the capability one denied until the manifest grants it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from conftest import REPO


def run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def toolchain_env(warden_env: dict[str, str]) -> dict[str, str]:
    """The environment for cargo outside the repository: the repository's pinned toolchain
    (the one tests/run gave the wasm32-wasip2 target), not the machine's default."""
    env = {**os.environ, **warden_env}
    shown = subprocess.run(["rustup", "show", "active-toolchain"], cwd=REPO, capture_output=True, text=True)
    if shown.returncode == 0 and shown.stdout.split():
        env["RUSTUP_TOOLCHAIN"] = shown.stdout.split()[0]
    return env


def test_a_new_plugin_builds_loads_and_answers(warden_bin, warden_env, tmp_path) -> None:
    env = toolchain_env(warden_env)
    crate = tmp_path / "demo-tools"
    made = run([str(warden_bin), "plugin", "new", "demo-tools", "--path", str(crate)], tmp_path, env)
    assert made.returncode == 0, made.stderr
    assert "cargo build --target wasm32-wasip2 --release" in made.stdout, made.stdout
    for name in ("Cargo.toml", "Cargo.lock", "src/lib.rs", "warden.toml", "README.md", ".gitignore"):
        assert (crate / name).is_file(), name

    # Refused: an existing, non-empty directory, and a name that is no crate or plugin name.
    again = run([str(warden_bin), "plugin", "new", "demo-tools", "--path", str(crate)], tmp_path, env)
    assert again.returncode == 2 and "exists and is not empty" in again.stderr, again.stderr
    bad = run([str(warden_bin), "plugin", "new", "Demo Tools"], tmp_path, env)
    assert bad.returncode == 2 and "must be 1-32 characters" in bad.stderr, bad.stderr
    assert not (tmp_path / "Demo Tools").exists()

    # Every crate it needs was downloaded by Warden's own build: no network needed. The build
    # directory is shared with test_sdk_packages.py, which builds the same crates again.
    shared = REPO / "target" / "e2e-sdk-package"
    built = run(["cargo", "build", "--offline", "--target", "wasm32-wasip2", "--release"], crate,
                {**env, "CARGO_TARGET_DIR": str(shared)}, timeout=600)
    assert built.returncode == 0, built.stderr[-4000:]
    wasm = crate / "target/wasm32-wasip2/release/demo_tools.wasm"
    wasm.parent.mkdir(parents=True)
    shutil.copy(shared / "wasm32-wasip2/release/demo_tools.wasm", wasm)

    checked = run([str(warden_bin), "check", "-m", "warden.toml"], crate, env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "tools: hello, fetch_status" in checked.stdout, checked.stdout
    assert "NOT GRANTED" in checked.stdout and "grants.capture.http_hosts" in checked.stdout, checked.stdout

    hello = run([str(warden_bin), "call", "-m", "warden.toml", "hello", '{"name": "Ada"}'], crate, env)
    assert hello.returncode == 0 and hello.stdout.strip() == "Hello, Ada!", hello.stdout + hello.stderr
    empty = run([str(warden_bin), "call", "-m", "warden.toml", "hello", '{"name": " "}'], crate, env)
    assert empty.returncode == 1 and "must not be empty" in empty.stdout, empty.stdout
    fetch = run([str(warden_bin), "call", "-m", "warden.toml", "fetch_status", '{"url": "http://127.0.0.1:9/"}'], crate, env)
    assert fetch.returncode == 1 and "grants.capture.http_hosts" in fetch.stdout, fetch.stdout
