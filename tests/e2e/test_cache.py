"""The one-shot CLI commands (tools, call, check) and the compiled-component cache."""

from __future__ import annotations

import os
import re
import subprocess
import time

import pytest

GRANT_KEY = "grants.capture.http_hosts"


@pytest.fixture()
def cli(warden_bin, warden_env, tmp_path):
    def run(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(warden_bin), *args],
            env={**os.environ, **warden_env, **(env or {})},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    return run


@pytest.fixture()
def two_plugins(write_manifest, helpers, echo_wasm, hostile_wasm):
    body = helpers.plugin_block("echo", echo_wasm, 'tools = { allow = ["*"], deny = ["count"] }')
    body += helpers.plugin_block("hostile", hostile_wasm)
    return write_manifest(body)


def ready_counts(stderr: str) -> tuple[int, int, int, int]:
    """Plugins ready, then how many were compiled, loaded from the cache, and loaded from the
    machine code embedded in the binary (the built-ins)."""
    match = re.search(r"plugins ready: (\d+) \(compiled: (\d+), from cache: (\d+), precompiled: (\d+)\)", stderr)
    assert match, f"no 'plugins ready' line on stderr:\n{stderr[-2000:]}"
    return int(match[1]), int(match[2]), int(match[3]), int(match[4])


def test_cache_tools_and_call(cli, two_plugins, tmp_path, helpers):
    fresh = {"WARDEN_CACHE_DIR": str(tmp_path / "fresh-cache")}
    first = cli("tools", "--manifest", str(two_plugins.path), env=fresh)
    assert first.returncode == 0, first.stderr
    assert ready_counts(first.stderr) == (2, 2, 0, 0), first.stderr[-2000:]
    assert any((tmp_path / "fresh-cache").rglob("*")), "the cache dir is empty after a cold start"

    for tool in ("echo", "progress", "log", "spin", "fetch", "flood", "count"):
        assert re.search(rf"\b{tool}\b", first.stdout), f"{tool} missing from `warden tools`:\n{first.stdout}"
    assert "hostile" in first.stdout and "echo" in first.stdout, first.stdout

    started = time.monotonic()
    second = cli("tools", "--manifest", str(two_plugins.path), env=fresh)
    warm = time.monotonic() - started
    assert second.returncode == 0, second.stderr
    assert ready_counts(second.stderr) == (2, 0, 2, 0), second.stderr[-2000:]
    assert second.stdout == first.stdout
    print(f"warm `warden tools`: {warm * 1000:.0f} ms")

    hi = cli("call", "--manifest", str(two_plugins.path), "echo", '{"text":"hi"}', env=fresh)
    assert hi.returncode == 0, hi.stderr
    assert hi.stdout.strip() == "hi", hi.stdout

    started = time.monotonic()
    denied = cli("call", "--manifest", str(two_plugins.path), "fetch", '{"url":"http://10.255.255.1/"}', env=fresh)
    elapsed = time.monotonic() - started
    assert denied.returncode == 1, (denied.returncode, denied.stdout, denied.stderr[-2000:])
    assert GRANT_KEY in denied.stdout + denied.stderr, denied.stdout + denied.stderr[-2000:]
    assert "10.255.255.1:80" in denied.stdout + denied.stderr, denied.stdout
    assert elapsed < 20, f"a denied fetch took {elapsed:.1f}s (was a connection attempted?)"

    lines = two_plugins.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    calls = [(line["plugin"], line["tool"], line["outcome"]) for line in lines if line["event"] == "tool_call"]
    assert calls == [("echo", "echo", "ok"), ("hostile", "fetch", "tool_error")], lines
    denied_lines = [line for line in lines if line["event"] == "capability_denied"]
    assert len(denied_lines) == 1, lines
    assert denied_lines[0]["target"] == "10.255.255.1:80", denied_lines[0]
    assert denied_lines[0]["capability"] == "capture.http", denied_lines[0]


def test_check_valid_manifest(cli, two_plugins):
    result = cli("check", "--manifest", str(two_plugins.path))
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    assert "echo" in result.stdout and "hostile" in result.stdout, result.stdout


BAD_MANIFESTS = {
    "unknown plugin key": ('[[plugin]]\nname = "echo"\nsource = "{echo}"\ncolour = "blue"\n', 7),
    "unknown server key": ('[[plugin]]\nname = "echo"\nsource = "{echo}"\n', 2),
    "unknown limit key": ('[[plugin]]\nname = "echo"\nsource = "{echo}"\nlimits = {{ cpu = "1s" }}\n', 7),
}


@pytest.mark.parametrize("case", sorted(BAD_MANIFESTS))
def test_check_reports_file_and_line(cli, tmp_path, echo_wasm, case):
    body, line = BAD_MANIFESTS[case]
    server = 'audit_lgo = "audit.jsonl"' if case == "unknown server key" else 'audit_log = "audit.jsonl"'
    path = tmp_path / "bad.toml"
    # line 1: [server], line 2: server key, line 3: blank, plugin table from line 4
    path.write_text(f"[server]\n{server}\n\n" + body.format(echo=echo_wasm))
    result = cli("check", "--manifest", str(path))
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert f"{path}:{line}" in output or (str(path) in output and re.search(rf"\bline {line}\b", output)), (
        f"expected {path}:{line} in:\n{output[-2000:]}"
    )

    # `serve` refuses the same manifest instead of serving something else.
    served = cli("serve", "--manifest", str(path), timeout=20)
    assert served.returncode != 0, served.stdout + served.stderr[-2000:]
    assert served.stdout == "", f"stdout must carry only MCP: {served.stdout!r}"
    assert str(path) in served.stderr, served.stderr[-2000:]


def test_check_rejects_tool_collision(cli, write_manifest, helpers, echo_wasm, hostile_wasm):
    # echo and hostile both export `count`
    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm) + helpers.plugin_block("hostile", hostile_wasm))
    result = cli("check", "--manifest", str(manifest.path))
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "count" in output and "echo" in output and "hostile" in output, output[-2000:]


def test_check_rejects_missing_component(cli, write_manifest, helpers, tmp_path):
    missing = tmp_path / "nope.wasm"
    manifest = write_manifest(helpers.plugin_block("ghost", missing))
    result = cli("check", "--manifest", str(manifest.path))
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "nope.wasm" in output, output[-2000:]


def test_check_names_the_tools_when_a_tool_glob_matches_none(cli, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm, 'tools = ["echo", "ecko"]'))
    result = cli("check", "--manifest", str(manifest.path))
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert '"ecko"' in output and "echo, " in output and "count" in output, output[-2000:]


def test_builtins_start_precompiled(cli, write_manifest, tmp_path):
    body = (
        '[[plugin]]\nname = "terminal"\nsource = "builtin:terminal"\ngrants.terminal = { local = true }\n\n'
        '[[plugin]]\nname = "sftp"\nsource = "builtin:sftp"\n'
    )
    manifest = write_manifest(body)
    fresh = {"WARDEN_CACHE_DIR": str(tmp_path / "fresh-cache")}
    first = cli("tools", "--manifest", str(manifest.path), env=fresh)
    assert first.returncode == 0, first.stderr[-2000:]
    assert ready_counts(first.stderr) == (2, 0, 0, 2), first.stderr[-2000:]
    # sftp is loaded (and precompiled) but granted nothing, so its tools are not listed.
    assert "terminal_execute" in first.stdout and "sftp_read" not in first.stdout, first.stdout
    second = cli("tools", "--manifest", str(manifest.path), env=fresh)
    assert ready_counts(second.stderr) == (2, 0, 0, 2), second.stderr[-2000:]
    assert second.stdout == first.stdout
    # Nothing was compiled, so nothing was written to the cache.
    assert not list((tmp_path / "fresh-cache").glob("*.cwasm"))
